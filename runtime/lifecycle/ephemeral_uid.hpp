// A throwaway uid per container (policy identity.uid "ephemeral", DESIGN.md §2 "raise
// privilege"): a uid no other container holds, no account in /etc/passwd names, and no
// running process owns, so the container shares no file, no process (kill, ptrace, /proc)
// and no per-uid limit (RLIMIT_NPROC) with anything else on the host.
//
// A claim is a file <state_root>/.uids/<uid> created with O_CREAT|O_EXCL and holding the
// container id: creation is atomic, so two concurrent creates never get the same uid.
// Call allocate after the container's state directory <state_root>/<id> exists: a claim
// whose container directory is gone and whose uid no process owns is stale (a crash
// between create and delete) and is taken over.
#pragma once
#include <cstdint>
#include <string>

#include "base/error.hpp"

namespace sh::lifecycle {

// 2,000,000,000 and up: far above every distro's system and user ranges (Debian's
// UID_MAX is 60000, systemd's dynamic users stop at 65519, container subuid ranges from
// /etc/subuid usually start at 100000 and span 65536 per user, systemd-nspawn's
// container ranges end at 1878982656), and below 2^31 so that no tool that treats uids as
// signed 32-bit numbers sees a negative one.
inline constexpr uint32_t kEphemeralUidFirst = 2000000000u;
inline constexpr uint32_t kEphemeralUidCount = 65536u;

// Pick and claim a uid in [first, first+count). Fails when every uid in the range is taken.
Result<uint32_t> allocate_ephemeral_uid(const std::string& state_root, uint32_t first, uint32_t count,
                                        const std::string& container_id);
// Remove the claim if (and only if) it holds `container_id`. A missing claim is fine.
Result<void> release_ephemeral_uid(const std::string& state_root, uint32_t uid, const std::string& container_id);

// Whether any task has `uid` as its real uid (asked of the kernel's per-user process count by a
// child that takes the uid; see the .cpp). Exposed for tests.
bool uid_has_processes(uint32_t uid);

// The claim file's path, for tests and for `delete` to find it.
std::string ephemeral_uid_claim_path(const std::string& state_root, uint32_t uid);

}  // namespace sh::lifecycle
