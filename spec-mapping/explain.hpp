// `policy explain`: one line per bound a policy puts on a container, with the mechanism
// that enforces it, whether this host has that mechanism, and who applies it (DESIGN.md
// "Boundary versus Setting": all of these are applied from above, before execve, so the
// process cannot undo them).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/host_facts.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

inline constexpr const char* kBeforeExecve = "Boundary (applied by the runtime before execve)";
inline constexpr const char* kKmsSidecar = "Boundary (held by the KMS sidecar, another uid outside the container)";
inline constexpr const char* kEgressDoor = "Boundary (held by the egress door, a sidecar outside the container)";
inline constexpr const char* kWatchdog = "Boundary (enforced from outside by the runtime's watchdog)";
// The note of a bound that records a change the policy made to what the config asked for
// (create logs each as a warning: the client asked for more than it got).
inline constexpr const char* kConfigHeld = "the policy holds what the config asked for";

// What the host offers: one probe's result (runtime/linux/host_facts: the callers probe, the
// policy layer only reads it).
using HostProbe = host::Facts;

std::vector<Bound> explain(const Policy& p, const HostProbe& host);
// The same with the policy's syscalls expanded by the caller (allowed_syscalls(), empty without a
// syscalls section): create expands them once for the filter and the explanation.
std::vector<Bound> explain(const Policy& p, const HostProbe& host, const std::set<std::string>& allowed);

// One line for a terminal: "[ok] memory cgroup limit 128 MiB: Boundary (...)".
std::string format_bound(const Bound& b);

// With bestEffort false, any bound missing on this host is an error listing them all.
Result<void> require_available(const std::vector<Bound>& bounds, bool best_effort);

}  // namespace sh::policy
