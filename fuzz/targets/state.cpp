// The state store's record (state.json under --root): lifecycle::record_from_json, and the
// round trip through record_to_json.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "one_reading.hpp"
#include "runtime/lifecycle/state_store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::one_reading(text);
  auto r = sh::lifecycle::record_from_json(text, "state.json");
  if (!r) return 0;
  auto again = sh::lifecycle::record_from_json(sh::lifecycle::record_to_json(*r), "state.json (rewritten)");
  if (!again) __builtin_trap();
  return 0;
}
