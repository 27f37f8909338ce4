// `run` with process.terminal and no --console-socket: the runtime takes the pty master
// itself and copies bytes between it and its own stdio (raw mode when stdin is a tty),
// forwarding window size changes, until the container's process exits; `denials`: the
// container's reader, read meanwhile (denial_reader.hpp).
#pragma once
#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/denial_reader.hpp"

namespace sh::lifecycle {

Result<int> proxy_and_wait(const Launched& l, int master, DenialReader* denials = nullptr);

}  // namespace sh::lifecycle
