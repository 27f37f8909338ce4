// Per-process attributes set in the container's init before execve: rlimits, oom_score_adj,
// scheduler, I/O priority, personality, and the user (groups, gid, uid, umask).
#pragma once
#include <sys/types.h>

#include "base/error.hpp"
#include "oci/config.hpp"

namespace sh::procattr {

// "RLIMIT_NOFILE" -> RLIMIT_NOFILE; error for unknown names.
Result<int> rlimit_resource(const std::string& name);
Result<void> apply_rlimits(const std::vector<oci::Rlimit>& rl);
Result<void> apply_oom_score_adj(int adj);        // writes /proc/self/oom_score_adj
Result<void> apply_scheduler(const oci::Scheduler& s);
Result<void> apply_io_priority(const oci::IoPriority& p);
Result<void> apply_personality(const oci::Personality& p);
// setgroups(additionalGids) (skipped when setgroups is denied in a user namespace),
// setresgid, setresuid, keeping capabilities across the change (PR_SET_KEEPCAPS).
Result<void> apply_user(const oci::User& u, bool setgroups_allowed);

}  // namespace sh::procattr
