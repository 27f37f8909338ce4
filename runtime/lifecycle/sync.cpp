#include "runtime/lifecycle/sync.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace sh::sync {

std::string truncate_text(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  // Keep both ends: the value usually sits in the middle, the reason ("ENOENT ...") at the end.
  auto continuation = [&](size_t i) { return (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80; };
  std::string note = " ... (" + std::to_string(text.size()) + " bytes in all, cut) ... ";
  size_t room = max > note.size() ? max - note.size() : 0;
  size_t tail = std::min<size_t>(room / 4, 256), head = room - tail;
  while (head > 0 && continuation(head)) --head;  // never mid-character
  size_t from = text.size() - tail;
  while (from < text.size() && continuation(from)) ++from;
  return std::string(text.substr(0, head)) + note + std::string(text.substr(from));
}

Result<void> send(int fd, Msg type, std::string_view payload) {
  std::string buf(1, char(type));
  buf += type == Msg::error ? truncate_text(payload, kMaxErrorText) : std::string(payload);
  bool plain_write = false;
  for (;;) {
    ssize_t n = plain_write ? ::write(fd, buf.data(), buf.size()) : ::send(fd, buf.data(), buf.size(), MSG_NOSIGNAL);
    if (n >= 0) return {};
    if (errno == EINTR) continue;
    if (errno == EMSGSIZE) return sys_error("sync send: a message of " + std::to_string(buf.size()) + " bytes");
    // A container's seccomp allowlist is loaded before its execve: when that fails, init
    // reports it under the filter, which may deny sendto(2) but hardly write(2).
    if (!plain_write && (errno == EPERM || errno == EACCES || errno == ENOSYS)) {
      plain_write = true;
      continue;
    }
    return sys_error("sync send");
  }
}

Result<void> send_with_fd(int sock, Msg type, int fd) { return send_fd(sock, fd, std::string(1, char(type))); }

Result<std::optional<Message>> recv(int fd) {
  // Peek the datagram size first so any payload size fits.
  char probe;
  ssize_t len;
  do len = ::recv(fd, &probe, 1, MSG_PEEK | MSG_TRUNC);
  while (len < 0 && errno == EINTR);
  if (len < 0) {
    if (errno == ECONNRESET) return std::optional<Message>();
    return sys_error("sync recv");
  }
  if (len == 0) return std::optional<Message>();
  if (Msg(probe) == Msg::seccomp_fd) {
    std::string payload;
    Fd passed = TRYC("sync recv", recv_fd(fd, &payload));
    return std::optional<Message>(Message{Msg::seccomp_fd, payload.substr(1), std::move(passed)});
  }
  std::vector<char> buf(static_cast<size_t>(len));
  ssize_t n;
  do n = ::recv(fd, buf.data(), buf.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return sys_error("sync recv");
  Message m{Msg(buf[0]), std::string(buf.data() + 1, size_t(n) - 1), Fd{}};
  return std::optional<Message>(std::move(m));
}

Result<Message> expect(int fd, Msg want, std::string_view peer) {
  auto m = TRY(recv(fd));
  if (!m) return fail(std::string(peer) + " exited unexpectedly");
  if (m->type == Msg::error) return fail(m->payload);
  if (m->type != want)
    return fail("protocol error: unexpected message " + std::to_string(int(m->type)) + " from " + std::string(peer));
  return std::move(*m);
}

}  // namespace sh::sync
