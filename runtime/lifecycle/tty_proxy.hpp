// `run` with process.terminal and no --console-socket: the runtime takes the pty master
// itself and copies bytes between it and its own stdio (raw mode when stdin is a tty),
// forwarding window size changes, until the container's process exits.
#pragma once
#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::lifecycle {

Result<int> proxy_and_wait(const Launched& l, int master);

}  // namespace sh::lifecycle
