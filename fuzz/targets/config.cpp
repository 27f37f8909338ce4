// config.json: oci::parse_config, then (if it parsed) oci::validate_config, and a round trip
// through the writer for what parsed: nothing may crash, leak or hit UB, whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "oci/config.hpp"
#include "oci/config_write.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto c = sh::oci::parse_config(text, "config.json");
  if (!c) return 0;
  (void)sh::oci::validate_config(*c, "config.json");
  // What we write must parse again (policy map and exec rely on it).
  std::string again = sh::oci::config_to_json(*c, false);
  auto c2 = sh::oci::parse_config(again, "config.json (rewritten)");
  if (!c2) __builtin_trap();
  return 0;
}
