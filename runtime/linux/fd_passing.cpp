#include "runtime/linux/fd_passing.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace sh::fd_passing {

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
