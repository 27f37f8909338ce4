// policy learn's recording (docs/learn.md "How a run is recorded"): seccomp user notification
// for every syscall of the container's processes, answered with SECCOMP_USER_NOTIF_FLAG_CONTINUE
// once the recorder has read what it needs (the path, the flags, the address) from the blocked
// task. A syscall cannot happen before it is recorded, so nothing is lost or rate-limited: a
// record the recorder cannot make is an error of the run, never a gap.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "runtime/linux/seccomp.hpp"
#include "spec-mapping/learn.hpp"

namespace sh::recorder {

// The recording filter: every syscall of the native ABI to the listener; clone3 gets ENOSYS and a
// clone that asks for a new namespace EPERM, as under every policy (seccomp_map), so the run takes
// the paths it will take under the policy it teaches; another ABI kills the process.
Result<seccomp::Filter> recording_filter();

// init: the fd number seccomp(2) gives the listener next (the lowest free one), announced to the
// runtime before the filter is loaded: after the load init's every syscall waits for the
// recorder, so it cannot send the fd itself.
Result<int> next_fd();
// runtime: init's listener, fd `number` of the process behind `pidfd`, taken with pidfd_getfd once
// init has loaded it (checked to be a seccomp notify fd), within `within`.
Result<Fd> take_listener(int pidfd, int number, std::chrono::milliseconds within);

class Recorder {
 public:
  // `init`: the container's init; recording starts at its execve (what init does before is the
  // runtime's own launch).
  Recorder(Fd listener, pid_t init);
  // Answer every notification until every recorded process is gone (the listener hangs up) or
  // stop(). Runs on its own thread; the first record it could not make is the error.
  Result<void> serve();
  void stop();
  policy::Trace& trace() { return trace_; }

 private:
  struct Task;
  Result<void> handle(const struct seccomp_notif& n);
  Result<void> record_open(Task& t, int dirfd, uint64_t path, uint64_t flags);
  Result<void> record_exec(Task& t, int dirfd, uint64_t path, int flags);
  Result<void> record_entry(Task& t, int nr, const uint64_t* a);
  Result<void> record_fd(Task& t, int fd, uint64_t right, uint64_t ioctl_cmd);
  Result<void> record_port(Task& t, int fd, uint64_t addr, uint64_t len, bool bind);
  Result<void> record_interpreter(Task& t, const std::string& path, int depth);
  const std::string& name_of(int nr);

  Fd listener_;
  Fd stop_;
  pid_t init_;
  bool started_ = false;
  policy::Trace trace_;
  std::map<int, std::string> names_;
};

}  // namespace sh::recorder
