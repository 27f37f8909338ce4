// The state rules: which operations a container allows in each status, in one place. Each rule
// returns nothing when the operation may go on, else the refusal. The texts are matched by
// clients and suites and stay byte for byte: containerd's shim ignores a kill error that says
// "container not running"; conformance/suites/lifecycle.sh, errors.sh and ops.sh match the rest.
// Pure: tests/unit/test_state_rules.cpp goes over every status.
#pragma once
#include <string>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::lifecycle::rules {

// start: only a created container.
inline Result<void> can_start(const std::string& id, Status s) {
  if (s != Status::created) return fail("cannot start container " + id + ": it is " + status_name(s) + ", not created");
  return {};
}

// exec: a created, running or (with --ignore-paused) paused container.
inline Result<void> can_exec(const std::string& id, Status s, bool ignore_paused) {
  if (s == Status::paused && !ignore_paused) return fail("cannot exec in a paused container " + id);
  if (s != Status::running && s != Status::created && s != Status::paused)
    return fail("cannot exec in container " + id + ": it is " + status_name(s));
  return {};
}

// kill: a container with an init; after init exited, only --all, which still empties the cgroup.
inline Result<void> can_kill(const std::string& id, Status s, bool all, bool has_cgroup) {
  if (s == Status::creating || (s == Status::stopped && (!all || !has_cgroup)))
    return fail("cannot kill container " + id + ": container not running (it is " + status_name(s) + ")");
  return {};
}

// delete: a stopped or created container; with --force, any.
inline Result<void> can_delete(const std::string& id, Status s, bool force) {
  if (force) return {};
  if (s == Status::running || s == Status::paused)
    return fail("cannot delete container " + id + " that is not stopped: " + status_name(s));
  if (s == Status::creating) return fail("cannot delete container " + id + ": it is being created");
  return {};
}

// update, ps, stats and events (what acts on a container's cgroup): one that has processes.
inline Result<void> has_processes(const std::string& id, Status s) {
  if (s == Status::stopped) return fail("container " + id + " is not running (it is stopped)");
  if (s == Status::creating) return fail("container " + id + " is not running (it is being created)");
  return {};
}

// pause: a running container; resume: a paused one.
inline Result<void> can_pause(const std::string& id, Status s) {
  TRYV(has_processes(id, s));
  if (s != Status::running) return fail("container " + id + " is not running (it is " + status_name(s) + ")");
  return {};
}
inline Result<void> can_resume(const std::string& id, Status s) {
  TRYV(has_processes(id, s));
  if (s != Status::paused) return fail("container " + id + " is not paused (it is " + status_name(s) + ")");
  return {};
}

}  // namespace sh::lifecycle::rules
