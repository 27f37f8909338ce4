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
// `state` output (pretty, runc's field set).
std::string state_command_json(const State& s);

}  // namespace sh::oci
