// What a policy asks for that OCI config.json cannot express, written as a top-level
// "sharness" block of config.json by `policy map` / `policy apply`, and read back by the
// runtime at create. Its shape leaves room to converge with the runtime-spec Landlock
// proposal ("landlock" is reserved: the Landlock issue fills it).
//
//   "sharness": {
//     "policy": {"id": "harsh", "hash": "<sha256>"},
//     "bestEffort": false,
//     "ephemeralUid": true, "ephemeralGid": true,
//     "network": "none",
//     "wallClockSeconds": 60,
//     "devices": ["null", "urandom", "zero"],
//     "seccomp": { ...an OCI linux.seccomp object: the policy's filter, loaded after
//                  (stacked on) the config's own, right before execve... },
//     "bounds": [{"mechanism": "...", "available": true, "appliedBy": "...", "note": "..."}]
//   }
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"
#include "oci/config.hpp"
#include "spec-mapping/mesh.hpp"

namespace sh::policy {

// One bound a policy puts on the container, for `policy explain` and `hello`.
struct Bound {
  std::string mechanism;   // "memory cgroup limit 128 MiB"
  bool available = true;   // this kernel/host has the mechanism
  std::string applied_by;  // "Boundary (applied by the runtime before execve)"
  std::string note;        // why it is missing, or a detail ("" when none)
  bool operator==(const Bound&) const = default;
};

struct Extension {
  std::string policy_id;
  std::string policy_hash;
  std::optional<oci::Seccomp> seccomp;          // the stacked filter (second, after the config's)
  std::optional<uint64_t> wall_clock_seconds;   // the runtime's watchdog kills the container after
  bool ephemeral_uid = false;                   // the runtime picks a throwaway uid at create...
  bool ephemeral_gid = false;                   // ...and uses it as the gid too (the policy named no gid)
  bool best_effort = false;                     // false: refuse to run if a bound is unavailable
  std::optional<std::string> network;           // "none" (lo left down), "loopback" (lo up), "host"
  std::optional<std::vector<std::string>> devices;  // device names allowed (others need not be created)
  std::optional<Mesh> mesh;  // "edges": {"role", "edges", "accepts"}: what sharness-edge sets up
  std::vector<Bound> bounds;
};

// The object for the "sharness" key.
void write_extension(json::Writer& w, const Extension& e);
std::string extension_to_json(const Extension& e, bool pretty = false);
// Parse the "sharness" object (strict: unknown keys are errors; "landlock" is not supported yet).
Result<Extension> parse_extension(const json::Value& v);

}  // namespace sh::policy
