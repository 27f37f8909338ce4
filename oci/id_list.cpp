#include "oci/id_list.hpp"

#include <algorithm>
#include <charconv>

namespace sh::oci {

Result<std::vector<unsigned>> parse_id_list(std::string_view text, const std::string& path, unsigned limit) {
  auto bad = [&](std::string_view why) {
    return fail(path + ": \"" + std::string(text) + "\" is not a list such as \"0-3,7\" (" + std::string(why) + ")");
  };
  if (text.empty()) return bad("empty");
  std::vector<unsigned> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find(',', pos);
    auto item = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    auto number = [&](std::string_view s, unsigned& v) {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      return !s.empty() && ec == std::errc() && p == s.data() + s.size();
    };
    unsigned lo = 0, hi = 0;
    auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      if (!number(item, lo)) return bad("\"" + std::string(item) + "\" is not a number");
      hi = lo;
    } else if (!number(item.substr(0, dash), lo) || !number(item.substr(dash + 1), hi)) {
      return bad("\"" + std::string(item) + "\" is not a range low-high");
    }
    if (lo > hi) return bad("range " + std::string(item) + " runs backwards");
    if (hi >= limit) return bad(std::to_string(hi) + " is not below " + std::to_string(limit));
    for (unsigned i = lo; i <= hi; ++i) out.push_back(i);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace sh::oci
