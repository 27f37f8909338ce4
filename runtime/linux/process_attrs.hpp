// Per-process attributes set in the container's init before execve: rlimits, oom_score_adj,
// scheduler, I/O priority, personality, and the user (groups, gid, uid, umask).
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>

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
// Memory-deny-write-execute (a policy's memory.denyWriteExecute): prctl(PR_SET_MDWE,
// PR_MDWE_REFUSE_EXEC_GAIN). From here no mapping is writable and executable and none gains
// execute; it cannot be undone, and children and execve keep it (Linux 6.3+).
inline constexpr int kSetMdwe = 65, kGetMdwe = 66;  // PR_SET_MDWE, PR_GET_MDWE (older headers lack them)
Result<void> deny_write_execute();
// A process's own attributes, in the one order init and exec share: oomScoreAdj, scheduler,
// ioPriority, then rlimits (the order init always had).
Result<void> apply_process(const oci::Process& p);
// setgroups(additionalGids) (skipped when setgroups is denied in a user namespace),
// setresgid, setresuid, keeping capabilities across the change (PR_SET_KEEPCAPS).
Result<void> apply_user(const oci::User& u, bool setgroups_allowed);

// The home directory of `uid` in the text of a passwd file; "/" when no line names it (runc's
// default for HOME).
std::string home_in_passwd(std::string_view passwd, uid_t uid);
// HOME for a process whose env lacks it, as runc sets it: from /etc/passwd under `root_fd`
// (the container's root), opened inside it (no symlink or magic link out of it, regular file
// only, at most 4 MiB read); "/" when there is no such file or entry.
std::string container_home(int root_fd, uid_t uid);

}  // namespace sh::procattr
