// Denials explained (docs/denials.md): a per-container reader outside the container that turns
// the kernel's audit records of a seccomp or Landlock refusal into JSON lines in the
// container's state dir (denials.jsonl), each naming the bound and the policy field that would
// allow it; `events --denials ID` streams them.
//
// The reader subscribes at create, for a container under a policy with a seccomp filter or a
// Landlock layer, after init is set up and before anything of the workload runs, so no record of
// the container can come before it listens. It reads until init exits (a pidfd), then drains what
// the kernel still delivers. Who reads: a process of its own forked at create (create, `run -d`),
// or a foreground `run` itself while it waits for init (one fork less per run; run.cpp).
// A record is the container's when its process is in the container's pid namespace (or, sharing
// the host's, its cgroups), or when it is a Landlock domain the container made. Loss is written
// as loss, never skipped: the kernel's lost counter growing (host-wide: backlog or rate limit),
// the reader's own socket overflowing, audit disabled (Landlock writes nothing then), seccomp's
// errno action left out of kernel.seccomp.actions_logged.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/error.hpp"
#include "runtime/linux/audit_events.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::lifecycle {

inline constexpr const char* kDenialLog = "denials.jsonl";
// After init's exit: how long the reader waits for records still on their way through kauditd.
inline constexpr int kDenialDrainMs = 300;

// Whether a container under `ext` (nullptr: no policy) gets a reader: a policy with a seccomp
// filter or a Landlock layer, and a runtime that can read the audit log (root).
bool records_denials(const policy::Extension* ext);

// A container's reader, from its subscription to the end of its record: read by a process of its
// own (fork_off) or by whoever polls fd() and calls step().
class DenialReader {
 public:
  // Subscribe to the audit log for the container whose init is `init_pid` (started at
  // `start_time`), open the record `log_path` (appending) and write what the host leaves out.
  static Result<DenialReader> open(pid_t init_pid, uint64_t start_time, const std::string& log_path);
  DenialReader(DenialReader&&) noexcept;
  DenialReader& operator=(DenialReader&&) noexcept;
  ~DenialReader();

  int fd() const;       // the audit socket, to poll for POLLIN
  int tick_ms() const;  // poll's timeout: until the kernel's lost counter is due to be read
  // After a poll: read what is queued (`readable`: fd() polled ready) into the record, and the
  // lost counter when it is due.
  void step(bool readable);
  // Init has exited: read what is queued until nothing more comes for `quiet_ms`, then end the
  // record (events still missing their EOE, the lost counter).
  void drain(int quiet_ms);
  // A process of its own (not our child once we exit: re-parented to the caller's subreaper)
  // reads until init exits, drains for what is still on its way through kauditd, and exits.
  Result<void> fork_off() &&;

 private:
  struct State;
  explicit DenialReader(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// `events --denials ID`: every line of the container's record, then (the container still
// running) the new ones as they come, until it has stopped and its reader has drained. A
// container without a record (no policy with seccomp or Landlock) is an error that says so.
struct Globals;
Result<void> follow_denials(const Globals& g, const std::string& id,
                            const std::function<bool(const std::string& line)>& emit);

// The JSON line of a denial (bound, field and suggestion filled in), and of a loss or a notice.
std::string denial_json(const audit::Denial& d);
std::string note_json(const char* kind, const std::string& detail, long long lost = -1);

}  // namespace sh::lifecycle
