#include "runtime/linux/fd_passing.hpp"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

namespace sh::fd_passing {

Result<Fd> connect_unix(const std::string& path, const std::string& what) {
  Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error(what + ": socket");
  struct sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return fail(what + " " + path + ": path too long");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0)
    return sys_error("connect " + what + " " + path);
  return s;
}

Result<void> send_fd(int sock, int fd, std::string_view payload) {
  std::string data(payload.empty() ? std::string_view("x") : payload);
  struct iovec iov{data.data(), data.size()};
  alignas(struct cmsghdr) char ctrl[CMSG_SPACE(sizeof(int))] = {};
  struct msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl;
  msg.msg_controllen = sizeof ctrl;
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  for (;;) {
    if (::sendmsg(sock, &msg, MSG_NOSIGNAL) >= 0) return {};
    if (errno != EINTR) return sys_error("send fd");
  }
}

Result<Fd> recv_fd(int sock, std::string* payload) {
  char data[4096];
  struct iovec iov{data, sizeof data};
  alignas(struct cmsghdr) char ctrl[CMSG_SPACE(sizeof(int))] = {};
  struct msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl;
  msg.msg_controllen = sizeof ctrl;
  ssize_t n;
  do n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) return sys_error("receive fd");
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
      if (payload) payload->assign(data, size_t(n));
      return Fd(fd);
    }
  }
  return fail("receive fd: no file descriptor in message");
}

}  // namespace sh::fd_passing
