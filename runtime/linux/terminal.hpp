// Terminals: the container's pty is opened inside the container (from its own devpts,
// verified), the master is sent to the caller's --console-socket with SCM_RIGHTS, and the
// peer becomes init's controlling terminal and stdio.
#pragma once
#include <optional>
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"

namespace sh::terminal {

// Connect to the caller's console socket (a unix stream socket path).
Result<Fd> connect_console_socket(const std::string& path);

// In init, after pivot_root: open /dev/pts/ptmx (must be devpts inode 2), get the peer
// with TIOCGPTPEER (never by name), apply the size, send the master over `console_sock`,
// then make the peer the controlling terminal and fds 0, 1, 2. With `bind_dev_console`
// (a container's init, not exec), also bind the peer onto /dev/console, as the
// runtime-spec requires for a terminal.
Result<void> setup_console(int console_sock, const std::optional<oci::ConsoleSize>& size,
                           bool bind_dev_console = false);

}  // namespace sh::terminal
