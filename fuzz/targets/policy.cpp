// A Process Behaviour Policy: policy::parse_policy (schema, sizes, canonical hash).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "one_reading.hpp"
#include "spec-mapping/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::one_reading(text);
  auto p = sh::policy::parse_policy(text, "policy.json");
  if (!p) return 0;
  // The model's own JSON must parse back to the same rules.
  auto again = sh::policy::parse_policy(sh::policy::policy_to_json(*p), "policy.json (rewritten)");
  if (!again) __builtin_trap();
  return 0;
}
