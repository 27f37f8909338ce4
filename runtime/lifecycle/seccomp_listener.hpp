// OCI seccomp notify (runtime-spec config-linux.md "listenerPath", runtime.md "Seccomp notify"),
// as runc does it: the process that loads a filter with SCMP_ACT_NOTIFY (init at `start`, or an
// `exec`'d process) sends the notify fd to the runtime command that waits on it (sync::Msg::
// seccomp_fd) and waits for seccomp_done before its execve. The runtime connects to listenerPath
// and sends one message: the container process state (oci::container_process_state_json) with
// the fd as SCM_RIGHTS. A listener that cannot be reached fails the start or the exec: the
// process never runs with notifications nobody answers (they would fail with ENOSYS).
//
// Why not from init at create, as runc does for a filter loaded early: our filters load last,
// right before execve, after the start barrier; the fd exists only then.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "oci/state.hpp"
#include "runtime/lifecycle/sync.hpp"

namespace sh::lifecycle {

// Where the fd goes and what is said with it.
struct ListenerTarget {
  std::string path;       // linux.seccomp.listenerPath
  std::string metadata;   // linux.seccomp.listenerMetadata
  oci::State state;       // the container's state
  pid_t pid = 0;          // the process that loaded the filter (runtime's pid namespace)
};

// The target a config names (an error when it has no listenerPath).
Result<ListenerTarget> listener_of(const oci::Config& c, oci::State state, pid_t pid);

// Process side, after loading a filter that returned a notify fd: hand it over through `sock`
// and wait until the runtime says it reached the listener.
Result<void> hand_notify_fd(int sock, int notify_fd);

// Runtime side: the process's next message other than seccomp_fd. A seccomp_fd on the way is
// sent to `target()`'s listener, and the process told to go on (or, when that fails, sent the
// error, which comes back as an error message, as if the process had sent it).
Result<std::optional<sync::Message>> recv_serving_listener(int sock, const std::function<Result<ListenerTarget>()>& target);

}  // namespace sh::lifecycle
