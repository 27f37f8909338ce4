#include "runtime/cli/table.hpp"

#include <cstring>
#include <sstream>

namespace sh::cli {

bool flag_in(const Flag& f, const char* sub) {
  if (!f.only || !sub) return true;
  std::istringstream in(f.only);
  for (std::string w; in >> w;)
    if (w == sub) return true;
  return false;
}

std::vector<FlagSpec> flag_specs(const CommandTable& t, const char* sub) {
  std::vector<FlagSpec> specs;
  specs.reserve(t.flags.size() + 1);
  auto add = [&](const Flag& f) {
    FlagSpec s{{f.name}, f.value != nullptr, f.repeatable};
    if (f.alias) s.names.push_back(f.alias);
    specs.push_back(std::move(s));
  };
  for (const auto& f : t.flags)
    if (flag_in(f, sub)) add(f);
  add(kHelpFlag);
  return specs;
}

Result<Parsed> parse(const CommandTable& t, const std::vector<std::string>& args, size_t from, const char* sub) {
  return parse(flag_specs(t, sub), args, from, t.flags_end_at_positional);
}

}  // namespace sh::cli
