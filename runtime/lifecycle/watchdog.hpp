// The wall-clock limit of a policy (wallClock.seconds) as a Boundary enforced from outside:
// a small detached process, in the host's namespaces and outside the container's cgroup,
// that waits on a pidfd of the container's init and, when the time is up, SIGKILLs the init
// and every process of the container's cgroups. SIGKILL cannot be caught, blocked or
// ignored, so a process that traps every signal still dies. If the init exits first, the
// watchdog exits at once: it lives exactly as long as the container.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sh::lifecycle {

// Double-fork (the watchdog is nobody's child but the subreaper's, so the runtime can exit),
// setsid, stdio on /dev/null, every other fd closed. The watchdog opens a pidfd for
// init_pid and checks that the process behind it started at init_start_time (field 22 of
// /proc/<pid>/stat), so a recycled pid is never killed; it then waits on the pidfd and a
// CLOCK_BOOTTIME timer (suspend counts: the limit is wall-clock time) set to `seconds` after
// that start (the same clock: the field counts boot-time ticks).
// `cgroup_procs_files`: the container's cgroup.procs files (one per hierarchy on cgroup v1);
// on cgroup v2, the sibling cgroup.kill is used when present (no pid-reuse window).
// `record_path` (absolute, or empty for none): where it leaves watchdog_record.hpp's record
// when it fires, before the kill.
// `init_pidfd` (or -1): a pidfd the caller holds of that very init (clone3's CLONE_PIDFD); the
// watchdog keeps its copy of it instead of opening one by pid and checking the start time.
// Returns the watchdog's pid.
Result<pid_t> spawn_watchdog(pid_t init_pid, uint64_t init_start_time, std::vector<std::string> cgroup_procs_files,
                             uint64_t seconds, const std::string& record_path, int init_pidfd = -1);

}  // namespace sh::lifecycle
