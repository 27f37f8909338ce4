// Passing an fd over a unix socket (SCM_RIGHTS), with a text payload: the console to
// --console-socket and to `run`'s console proxy, the seccomp notify fd to listenerPath (runtime/lifecycle/sync.hpp names them too).
#pragma once
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::fd_passing {

// Connect a SOCK_STREAM unix socket to `path` (errors name `what` and the path).
Result<Fd> connect_unix(const std::string& path, const std::string& what);

// Pass an fd over a unix socket (SCM_RIGHTS), and receive one.
Result<void> send_fd(int sock, int fd, std::string_view payload);
Result<Fd> recv_fd(int sock, std::string* payload = nullptr);

}  // namespace sh::fd_passing
