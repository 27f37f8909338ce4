// The starter config.json that `spec` writes (runc's shape, our hostname).
#pragma once
#include <string>

namespace sh::oci {

// Pretty config.json text. `rootless`: a user namespace mapping the current euid/egid to
// root, no network or cgroup namespace, /sys bind-mounted, no cgroup resources.
std::string default_spec_json(bool rootless);

}  // namespace sh::oci
