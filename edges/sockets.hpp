// The proxies' sockets: UNIX ones reached through directory fds (a container may write the
// directory: a name must be a socket itself, never a symlink), TCP on IPv4.
#pragma once
#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::edges {

// Listen on dir/name (via the directory fd, so the path length never matters), mode 0666: the
// directory decides who reaches it.
Result<Fd> listen_unix(int dirfd, const std::string& name, const std::string& what);
Result<Fd> connect_unix_path(const std::string& path, const std::string& what);
// Connect to dir/name, where dir may be written by a container.
Result<Fd> connect_unix_in(int dirfd, const std::string& name, const std::string& what);

std::string ip_text(in_addr addr);
Result<Fd> tcp_listen(in_addr addr, uint16_t port);
Result<Fd> tcp_connect(in_addr addr, uint16_t port);
Result<Fd> tcp_listen_local(uint16_t port);   // 127.0.0.1
Result<Fd> tcp_connect_local(uint16_t port);  // 127.0.0.1

// The first IPv4 address of an interface other than loopback in the calling thread's network
// namespace: a container "with a network".
std::optional<in_addr> network_address();

}  // namespace sh::edges
