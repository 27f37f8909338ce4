#include "runtime/cli/args.hpp"

namespace sh::cli {

std::string Parsed::get(const std::string& name, const std::string& def) const {
  auto it = values.find(name);
  return it == values.end() || it->second.empty() ? def : it->second.back();
}

std::vector<std::string> Parsed::all(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? std::vector<std::string>{} : it->second;
}

bool Parsed::flag(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return false;
  return it->second.empty() || (it->second.back() != "false" && it->second.back() != "0");
}

namespace {
const FlagSpec* find(const std::vector<FlagSpec>& specs, const std::string& name) {
  for (auto& s : specs)
    for (auto& n : s.names)
      if (n == name) return &s;
  return nullptr;
}
}  // namespace

Result<Parsed> parse(const std::vector<FlagSpec>& specs, const std::vector<std::string>& args, size_t from,
                     bool stop_at_positional) {
  Parsed p;
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      p.positional.insert(p.positional.end(), args.begin() + long(i) + 1, args.end());
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      p.positional.push_back(a);
      if (stop_at_positional) {
        p.positional.insert(p.positional.end(), args.begin() + long(i) + 1, args.end());
        break;
      }
      continue;
    }
    std::string body = a.substr(a[1] == '-' ? 2 : 1);
    std::optional<std::string> inline_value;
    if (auto eq = body.find('='); eq != std::string::npos) {
      inline_value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    const FlagSpec* s = find(specs, body);
    if (!s) return fail("flag provided but not defined: -" + body);
    auto& slot = p.values[s->names.front()];
    if (!s->repeatable) slot.clear();
    if (s->takes_value) {
      if (inline_value) {
        slot.push_back(*inline_value);
      } else {
        if (i + 1 >= args.size()) return fail("flag needs an argument: -" + body);
        slot.push_back(args[++i]);
      }
    } else if (inline_value) {
      if (*inline_value != "true" && *inline_value != "false")
        return fail("invalid boolean value \"" + *inline_value + "\" for -" + body);
      slot.push_back(*inline_value);
    }
  }
  return p;
}

Result<unsigned> to_unsigned(const std::string& flag, const std::string& v) {
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
    return fail("invalid value \"" + v + "\" for --" + flag + ": expected a non-negative integer");
  return unsigned(std::stoul(v));
}

}  // namespace sh::cli
