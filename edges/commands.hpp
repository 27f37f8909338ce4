// What sharness-edge does (cmd/sharness-edge/main.cpp parses the flags and dispatches): the
// container's hooks `up` (edges/up.cpp) and `down` (edges/down.cpp), and `connect` for tools.
#pragma once
#include <string>

#include "base/error.hpp"

namespace sh::edges {

struct Opts {
  std::string root, config;  // the state root; the runtime config ("" for the default)
};

// createRuntime hook (OCI state on stdin): the container's proxy and its supervisor, started.
Result<int> up(const Opts& o);
// poststop hook (OCI state on stdin): both stopped, their registrations and uid released.
Result<int> down(const Opts& o);
// One TLS client connection to the proxy at `socket`, as a holder of the leaf in cert_dir,
// expecting `role`: stdin -> peer, peer -> stdout.
Result<int> connect(const std::string& cert_dir, const std::string& socket, const std::string& role);

}  // namespace sh::edges
