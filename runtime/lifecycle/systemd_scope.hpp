// The systemd cgroup driver as the lifecycle sees it (--systemd-cgroup): a container's
// transient scope started, changed and stopped through the sharness-systemd helper (the D-Bus
// calls, runtime/linux/systemd_bus.cpp), and the properties it gets (runtime/linux/systemd_props.hpp).
#pragma once
#include <sys/types.h>

#include <string>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/systemd_props.hpp"

namespace sh::lifecycle::systemd_scope {

// Refused before anything is made: no systemd running (no /run/systemd/system, sd_booted's
// test, as runc 1.1 refuses: never a quiet fall back to the cgroupfs driver), or a host whose
// cgroups are not the unified hierarchy (this driver is v2 only).
Result<void> require_systemd(const cgroups::Layout& l);
// Whether the unit goes to the caller's user manager (rootless) rather than the system's:
// --rootless true/false says; auto is a caller that is not root, or root of a user namespace.
bool user_bus(const Globals& g);

Result<void> start(const std::string& unit, bool user, const systemd::Properties& props);
Result<void> set(const std::string& unit, bool user, const systemd::Properties& props);
Result<void> stop(const std::string& unit, bool user);

// The cgroup v2 path systemd put `pid` in (its "0::" line in /proc/PID/cgroup).
Result<std::string> cgroup_of(pid_t pid);

}  // namespace sh::lifecycle::systemd_scope
