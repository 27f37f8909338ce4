// Denials explained (docs/denials.md): a per-container reader outside the container that turns
// the kernel's audit records of a seccomp or Landlock refusal into JSON lines in the
// container's state dir (denials.jsonl), each naming the bound and the policy field that would
// allow it; `events --denials ID` streams them.
//
// The reader is spawned at create, for a container under a policy with a seccomp filter or a
// Landlock layer, after init is set up and before anything of the workload runs; it subscribes to
// the audit log before it returns, so no record of the container can come before it listens.
// It lives as long as init (a pidfd), then drains what the kernel still delivers and exits.
// A record is the container's when its process is in the container's pid namespace (or, sharing
// the host's, its cgroups), or when it is a Landlock domain the container made. Loss is written
// as loss, never skipped: the kernel's lost counter growing (host-wide: backlog or rate limit),
// the reader's own socket overflowing, audit disabled (Landlock writes nothing then), seccomp's
// errno action left out of kernel.seccomp.actions_logged.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "base/error.hpp"
#include "runtime/linux/audit_events.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::lifecycle {

inline constexpr const char* kDenialLog = "denials.jsonl";

// Whether a container under `ext` (nullptr: no policy) gets a reader: a policy with a seccomp
// filter or a Landlock layer, and a runtime that can read the audit log (root).
bool records_denials(const policy::Extension* ext);

// Spawn the reader for the container whose init is `init_pid` (started at `start_time`),
// appending to `log_path`. Returns once the reader listens; the reader is not our child.
Result<void> spawn_denial_reader(pid_t init_pid, uint64_t start_time, const std::string& log_path);

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
