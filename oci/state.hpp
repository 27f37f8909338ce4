// The OCI state document (as `state` prints it and hooks receive it on stdin).
#pragma once
#include <sys/types.h>

#include <map>
#include <string>

namespace sh::oci {

struct State {
  std::string oci_version = "1.3.0";
  std::string id;
  std::string status;  // creating created running stopped paused
  pid_t pid = 0;
  std::string bundle;
  std::map<std::string, std::string> annotations;
  // runc extras that `state` prints:
  std::string rootfs;
  std::string created;  // RFC 3339
  std::string owner;
};

// Spec state (hook stdin): ociVersion, id, status, pid, bundle, annotations.
std::string hook_state_json(const State& s);
// The container process state a seccomp listener receives with the notify fd (runtime-spec
// runtime.md "Seccomp notify" / config-linux.md listenerPath): ociVersion, fds (["seccompFd"]:
// the fd travels as the message's only SCM_RIGHTS fd), pid (the process that loaded the filter,
// in the runtime's pid namespace), metadata (listenerMetadata; left out when absent or empty,
// as runc's omitempty), state (the spec state above).
std::string container_process_state_json(const State& s, pid_t pid, const std::string& metadata);
// `state` output (pretty, runc's field set).
std::string state_command_json(const State& s);

}  // namespace sh::oci
