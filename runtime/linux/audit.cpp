#include "runtime/linux/audit.hpp"

#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace sh::audit {
namespace {

constexpr int kReceiveBuffer = 8 << 20;  // bursts of denials (a loop of refused calls) fit
constexpr size_t kMaxRecord = 8970;     // MAX_AUDIT_MESSAGE_LENGTH (libaudit.h; the uapi has none)

Result<Fd> netlink(unsigned groups) {
  Fd s(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT));
  if (!s) return sys_error("audit: netlink socket");
  struct sockaddr_nl a{};
  a.nl_family = AF_NETLINK;
  a.nl_groups = groups;
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0)
    return sys_error(groups ? "audit: subscribe to the read-only log (needs CAP_AUDIT_READ)" : "audit: bind");
  return s;
}

}  // namespace

Result<Status> status() {
  Fd s = TRY(netlink(0));
  struct {
    nlmsghdr h;
  } req{};
  req.h.nlmsg_len = sizeof req;
  req.h.nlmsg_type = AUDIT_GET;
  req.h.nlmsg_flags = NLM_F_REQUEST;
  req.h.nlmsg_seq = 1;
  if (::send(s.get(), &req, sizeof req, 0) < 0) return sys_error("audit: AUDIT_GET");
  alignas(nlmsghdr) char buf[8192];
  // The kernel sends the reply from a thread it starts for it (audit_send_reply): wait for it
  // to arrive rather than sleeping in steps (a 10 ms step was most of a foreground run's wall
  // time under a policy, which asks twice). At most a second, as before.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    ssize_t n = ::recv(s.get(), buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) break;
      struct pollfd p{s.get(), POLLIN, 0};
      (void)::poll(&p, 1, int(left));
      continue;
    }
    if (n < 0) return sys_error("audit: AUDIT_GET reply");
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, size_t(n)); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_type == NLMSG_ERROR) {
        auto* e = static_cast<nlmsgerr*>(NLMSG_DATA(h));
        if (e->error) return sys_error("audit: AUDIT_GET", -e->error);
        continue;
      }
      if (h->nlmsg_type != AUDIT_GET) continue;
      audit_status st{};
      std::memcpy(&st, NLMSG_DATA(h), std::min<size_t>(sizeof st, h->nlmsg_len - NLMSG_HDRLEN));
      return Status{st.enabled != 0, st.lost, st.backlog_limit, st.rate_limit};
    }
  }
  return fail("audit: AUDIT_GET: no reply");
}

Result<Fd> subscribe() {
  Fd s = TRY(netlink(1u << (AUDIT_NLGRP_READLOG - 1)));
  int size = kReceiveBuffer;
  // As root the buffer may pass rmem_max; otherwise take what the host allows.
  if (::setsockopt(s.get(), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
    (void)::setsockopt(s.get(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  return s;
}

Result<Got> receive(int fd, int& type, std::string& text) {
  alignas(nlmsghdr) char buf[kMaxRecord + NLMSG_HDRLEN + 64];
  ssize_t n;
  do n = ::recv(fd, buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Got::nothing;
  if (n < 0 && errno == ENOBUFS) return Got::overrun;
  if (n < 0) return sys_error("audit: receive");
  auto* h = reinterpret_cast<nlmsghdr*>(buf);
  if (!NLMSG_OK(h, size_t(n))) return fail("audit: a short netlink message");
  type = h->nlmsg_type;
  size_t len = std::min<size_t>(h->nlmsg_len - NLMSG_HDRLEN, size_t(n) - NLMSG_HDRLEN);
  text.assign(static_cast<const char*>(NLMSG_DATA(h)), len);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return Got::record;
}

}  // namespace sh::audit
