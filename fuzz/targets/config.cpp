// config.json: oci::parse_config, then (if it parsed) oci::validate_config, and a round trip
// through the writer for what parsed: nothing may crash, leak or hit UB, whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "oci/config.hpp"
#include "oci/config_write.hpp"
#include "one_reading.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::one_reading(text);
  auto c = sh::oci::parse_config(text, "config.json");
  if (!c) return 0;
  // The sharness block is kept as one object, which config_to_json splices as text: the
  // splice's scan must agree with the parser about it.
  if (c->sharness_json && !sh::json::is_one_object(*c->sharness_json)) __builtin_trap();
  (void)sh::oci::validate_config(*c, "config.json");
  // What we write must parse again (policy map and exec rely on it).
  // A config that parsed always writes (its blocks were re-encoded by our own writer).
  auto again = sh::oci::config_to_json(*c, false);
  if (!again) __builtin_trap();
  auto c2 = sh::oci::parse_config(*again, "config.json (rewritten)");
  if (!c2) __builtin_trap();
  if (!sh::json::is_one_object(*again)) __builtin_trap();
  return 0;
}
