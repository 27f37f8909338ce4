#include "base/text.hpp"

namespace sh {

std::vector<std::string> words(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  std::vector<std::string> out;
  for (size_t i = text.find_first_not_of(kSpace); i != std::string_view::npos;) {
    size_t j = text.find_first_of(kSpace, i);
    out.emplace_back(text.substr(i, j == std::string_view::npos ? j : j - i));
    i = j == std::string_view::npos ? j : text.find_first_not_of(kSpace, j);
  }
  return out;
}

Result<uint32_t> parse_id(const std::string& s, const char* what) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
    return fail(std::string("invalid ") + what + " \"" + s + "\": expected a number");
  unsigned long v = std::stoul(s);
  if (v > 0xffffffffUL) return fail(std::string("invalid ") + what + " \"" + s + "\"");
  return uint32_t(v);
}

}  // namespace sh
