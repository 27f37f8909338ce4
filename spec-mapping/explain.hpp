// `policy explain`: one line per bound a policy puts on a container, with the mechanism
// that enforces it, whether this host has that mechanism, and who applies it (DESIGN.md
// "Boundary versus Setting": all of these are applied from above, before execve, so the
// process cannot undo them).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

inline constexpr const char* kBeforeExecve = "Boundary (applied by the runtime before execve)";
inline constexpr const char* kKmsSidecar = "Boundary (held by the KMS sidecar, another uid outside the container)";
inline constexpr const char* kWatchdog = "Boundary (enforced from outside by the runtime's watchdog)";

// What the host offers, probed cheaply (files under /proc and /sys, one prctl, one syscall).
struct HostProbe {
  bool memory_cgroup = false, cpu_cgroup = false, pids_cgroup = false, devices_cgroup = false;
  bool seccomp = false;         // /proc/self/status has a Seccomp: field
  bool no_new_privs = false;    // prctl(PR_GET_NO_NEW_PRIVS) works
  bool pidfd = false;           // pidfd_open(2) works (the watchdog needs it)
  std::set<std::string> namespaces;  // OCI names whose /proc/self/ns entry exists
  int landlock_abi = 0;         // landlock::abi_version(); 0: no Landlock
  bool memfd_noexec = false;    // /proc/sys/vm/memfd_noexec exists (Linux 6.3+)
  bool memfd_secret = false;    // memfd_secret(2) works (Linux 5.14+, secretmem enabled)
};
HostProbe probe_host();

std::vector<Bound> explain(const Policy& p, const HostProbe& host);
std::vector<Bound> explain(const Policy& p);  // with probe_host()

// One line for a terminal: "[ok] memory cgroup limit 128 MiB: Boundary (...)".
std::string format_bound(const Bound& b);

// With bestEffort false, any bound missing on this host is an error listing them all.
Result<void> require_available(const std::vector<Bound>& bounds, bool best_effort);

}  // namespace sh::policy
