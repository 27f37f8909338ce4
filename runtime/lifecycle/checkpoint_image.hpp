// What the runtime itself keeps in a checkpoint's image directory beside CRIU's files
// (sharness.json, 0600), and which bounds CRIU cannot carry. Pure: tests/unit/test_checkpoint_image.cpp.
//
// CRIU carries what a process holds in the kernel and can be read back: memory, credentials (uids,
// capability sets, securebits), no_new_privs, seccomp filters, rlimits, namespaces, mounts. What it
// cannot carry is refused at checkpoint, naming the bound (docs/checkpoint.md):
//   - a Landlock domain: the kernel has no interface to read one back (CRIU 4.1 restores the
//     process without it), so config.json's process.landlock and a policy's files/ports/scope
//     layer and exec allowlist are refused;
//   - a policy's sidecars (the edge proxies, the KMS): processes outside the container, with their
//     own identity and keys, not in the image.
// What lives outside the processes is re-made at restore from the bundle and the operator's policy,
// never read from the image: the cgroup and its limits, the floor, the throwaway uid's claim and the
// wall-clock watchdog (with the time the container had left).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::lifecycle {

inline constexpr const char* kImageRecordFile = "sharness.json";

struct ImageRecord {
  std::string id;                     // the container it was taken from
  std::string policy_id, policy_hash;  // empty: taken without a policy
  uint32_t ephemeral_uid = 0;         // the throwaway uid its processes run as (0: none)
  uint64_t wall_clock_spent_ms = 0;   // of its policy's wall clock, used before the checkpoint
  std::vector<std::string> stdio;     // what init's fds 0, 1, 2 were ("pipe:[INODE]", "/dev/null")
  // The container's cgroup directories bound into it (no cgroup namespace): mount point ->
  // controller ("memory", "name=systemd"; "" for cgroup2). Restore binds the new cgroup's there.
  std::map<std::string, std::string> cgroup_binds;
};

std::string image_record_to_json(const ImageRecord& r);
Result<ImageRecord> image_record_from_json(std::string_view text, const std::string& origin);

// The first bound of this container that CRIU cannot carry, as a refusal's text; empty when every
// one can be. `config` is the container's saved config, `ext` its policy's extension (or null).
std::string uncarried_bound(const oci::Config& config, const policy::Extension* ext, Sidecars sidecars);

// The restore's policy must be the checkpoint's: the image's processes hold that policy's
// credentials, seccomp filters and limits, and `state` must not report another.
Result<void> same_policy(const ImageRecord& image, const policy::Extension* restoring);

// The bind mounts of a config, whose sources are outside the container: CRIU's external mounts.
// Each is (destination, absolute source), the source made absolute against `bundle`.
std::vector<std::pair<std::string, std::string>> external_binds(const oci::Config& c, const std::string& bundle);

}  // namespace sh::lifecycle
