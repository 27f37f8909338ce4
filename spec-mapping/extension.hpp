// What a policy asks for that OCI config.json cannot express, written as a top-level
// "sharness" block of config.json by `policy map` / `policy apply`, and read back by the
// runtime at create. Its "landlock" block has the shape of the runtime-spec Landlock
// proposal (as config.json's process.landlock) so that it can converge with the spec.
//
//   "sharness": {
//     "policy": {"id": "harsh", "hash": "<sha256>"},
//     "bestEffort": false,
//     "ephemeralUid": true, "ephemeralGid": true,
//     "network": "none",
//     "wallClockSeconds": 60,
//     "denyWriteExecute": true,
//     "devices": ["null", "urandom", "zero"],
//     "seccomp": { ...an OCI linux.seccomp object: the policy's filter, loaded after
//                  (stacked on) the config's own, right before execve... },
//     "landlock": { ...a process.landlock block: the policy's files, ports, scope and exec,
//                   enforced as a Landlock layer of its own, on top of the config's... },
//     "exec": [{"path": "/bin/busybox", "sha256": "<sha256>"}],
//     "secrets": {"vaults": [...], "hosts": [...], "operations": [...], "ttl": 600},
//     "egress": {"rules": [...], "budgets": {...}},
//     "hooksFromConfig": false,
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
#include "oci/landlock.hpp"
#include "spec-mapping/policy.hpp"

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
  bool deny_write_execute = false;              // PR_SET_MDWE before execve (memory.denyWriteExecute)
  bool ephemeral_uid = false;                   // the runtime picks a throwaway uid at create...
  bool ephemeral_gid = false;                   // ...and uses it as the gid too (the policy named no gid)
  bool best_effort = false;                     // false: refuse to run if a bound is unavailable
  std::optional<std::string> network;           // "none" (lo left down), "loopback" (lo up), "host"
  std::optional<std::vector<std::string>> devices;  // device names allowed (others need not be created)
  std::optional<Mesh> mesh;  // "edges": {"role", "edges", "accepts"}: what sharness-edge sets up
  // The policy's Landlock layer (spec-mapping/landlock_map). Its rule paths are resolved
  // without following symlinks (canonical_paths), which keeps composition exact.
  std::optional<oci::LandlockConfig> landlock;
  // The exec allowlist: hashed at create inside the container, then bound read-only.
  std::optional<std::vector<Pin>> exec;
  // A KMS sidecar ("secrets": the allowlists, nothing secret): create turns it into the
  // per-container hooks, mounts and KMS config (kms/host/plan), also for a config that
  // `policy apply` wrote.
  std::optional<SecretsPolicy> secrets;
  // The egress door's rules (the policy's section as it stands): create's egress sidecar starts
  // the door with them (egress/provision.hpp), also for a config that `policy apply` wrote.
  std::optional<EgressPolicy> egress;
  // "hooksFromConfig": false (the policy's hooks.fromConfig): config.json's own hooks are refused.
  bool hooks_from_config = true;
  std::vector<Bound> bounds;
};

// With hooks_from_config false, any hook in `h` (config.json's own: they run on the host, as
// root) is refused, the error naming the first one's JSON path.
Result<void> refuse_config_hooks(const Extension& e, const oci::Hooks& h);

// The object for the "sharness" key.
void write_extension(json::Writer& w, const Extension& e);
std::string extension_to_json(const Extension& e, bool pretty = false);
// Parse the "sharness" object (strict: unknown keys are errors).
Result<Extension> parse_extension(const json::Value& v);

}  // namespace sh::policy
