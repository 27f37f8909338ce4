#include "oci/cap_names.hpp"

#include <strings.h>
#include <sys/capability.h>

#include <algorithm>
#include <cctype>

namespace sh::caps {
namespace {

// cap_from_name stops at the first character that is not a letter or '_' and accepts
// numbers, so "CAP_KILL,x" or "5" would pass: accept only whole names.
bool well_formed(const std::string& s) {
  if (s.size() <= 4 || strncasecmp(s.c_str(), "cap_", 4) != 0) return false;
  return std::ranges::all_of(s, [](unsigned char c) { return std::isalpha(c) || c == '_'; });
}

}  // namespace

std::string name(int cap) {
  char* n = cap_to_name(cap_value_t(cap));
  if (!n) return "capability " + std::to_string(cap);
  std::string out(n);
  cap_free(n);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return out;
}

Result<int> parse(const std::string& cap_name) {
  cap_value_t v = 0;
  if (!well_formed(cap_name) || cap_from_name(cap_name.c_str(), &v) < 0)
    return fail("unknown capability \"" + cap_name + "\"");
  return int(v);
}

}  // namespace sh::caps
