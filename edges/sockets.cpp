#include "edges/sockets.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace sh::edges {
namespace {

Result<Fd> unix_socket() {
  Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_UNIX)");
  return s;
}

Result<sockaddr_un> unix_addr(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return fail("socket path too long: " + path);
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

sockaddr_in inet_addr(in_addr addr, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr = addr;
  return a;
}

in_addr loopback() { return in_addr{htonl(INADDR_LOOPBACK)}; }

}  // namespace

Result<Fd> listen_unix(int dirfd, const std::string& name, const std::string& what) {
  std::string path = "/proc/self/fd/" + std::to_string(dirfd) + "/" + name;
  Fd s = TRY(unix_socket());
  auto a = TRY(unix_addr(path));
  ::unlinkat(dirfd, name.c_str(), 0);
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return sys_error("bind " + what);
  if (::fchmodat(dirfd, name.c_str(), 0666, 0) < 0) return sys_error("chmod " + what);
  if (::listen(s.get(), 64) < 0) return sys_error("listen " + what);
  return s;
}

Result<Fd> connect_unix_path(const std::string& path, const std::string& what) {
  Fd s = TRY(unix_socket());
  auto a = TRY(unix_addr(path));
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return sys_error("connect " + what);
  return s;
}

Result<Fd> connect_unix_in(int dirfd, const std::string& name, const std::string& what) {
  Fd p(::openat(dirfd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!p) return sys_error("open " + what);
  struct stat st {};
  if (::fstat(p.get(), &st) < 0) return sys_error("stat " + what);
  if (!S_ISSOCK(st.st_mode)) return fail(what + ": not a socket");
  return connect_unix_path("/proc/self/fd/" + std::to_string(p.get()), what);
}

std::string ip_text(in_addr addr) {
  char b[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &addr, b, sizeof b);
  return b;
}

Result<Fd> tcp_listen(in_addr addr, uint16_t port) {
  std::string what = ip_text(addr) + ":" + std::to_string(port);
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_INET)");
  int one = 1;
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a = inet_addr(addr, port);
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return sys_error("bind " + what);
  if (::listen(s.get(), 64) < 0) return sys_error("listen " + what);
  return s;
}

Result<Fd> tcp_connect(in_addr addr, uint16_t port) {
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket(AF_INET)");
  sockaddr_in a = inet_addr(addr, port);
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0)
    return sys_error("connect " + ip_text(addr) + ":" + std::to_string(port));
  return s;
}

Result<Fd> tcp_listen_local(uint16_t port) { return tcp_listen(loopback(), port); }
Result<Fd> tcp_connect_local(uint16_t port) { return tcp_connect(loopback(), port); }

std::optional<in_addr> network_address() {
  struct ifaddrs* list = nullptr;
  if (::getifaddrs(&list) < 0) return std::nullopt;
  std::optional<in_addr> r;
  for (auto* i = list; i && !r; i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & IFF_LOOPBACK) && (i->ifa_flags & IFF_UP))
      r = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr;
  ::freeifaddrs(list);
  return r;
}

}  // namespace sh::edges
