// console-receiver: the other end of a runtime's --console-socket, for the conformance suites.
//
//   console-receiver SOCKET_PATH [--send TEXT] [--expect TEXT] [--timeout SEC]
//
// Listens on a unix stream socket at SOCKET_PATH (made atomically: bound under a temporary
// name, listening, then renamed into place, so a caller that sees the path can connect),
// accepts one connection and receives one message whose SCM_RIGHTS carries the pty master,
// as runc's console socket protocol does. Then it
//   - prints `winsize ROWSxCOLS` (TIOCGWINSZ on the master) as the first line of stdout,
//   - writes TEXT to the master if --send was given (verbatim: pass $'line\n' for a newline),
//   - reads the master and copies everything read to stdout, until the --expect text has been
//     seen, or (without --expect) until the other side is gone (EOF/EIO), or the timeout.
// Diagnostics (the name sent with the fd, errors) go to stderr, prefixed "console-receiver:".
// Exit: 0 if the expected text was seen (without --expect: if the pty reached EOF), 1 if not
// (timeout, no connection, no fd), 2 on a usage error. SOCKET_PATH is removed on exit.
// Only POSIX/Linux APIs; every fd is owned by an Fd.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Removes a path when it goes out of scope (the socket, and the temporary name while binding).
class Unlinker {
 public:
  explicit Unlinker(std::string path) : path_(std::move(path)) {}
  Unlinker(const Unlinker&) = delete;
  Unlinker& operator=(const Unlinker&) = delete;
  ~Unlinker() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  void release() { path_.clear(); }

 private:
  std::string path_;
};

void say(const std::string& msg) {
  std::string line = "console-receiver: " + msg + "\n";
  (void)!::write(2, line.data(), line.size());
}

void say_errno(const std::string& what) { say(what + ": " + std::strerror(errno)); }

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    s.remove_prefix(size_t(n));
  }
  return true;
}

struct Options {
  std::string socket_path;
  std::optional<std::string> send, expect;
  double timeout = 10;
};

int usage() {
  say("usage: console-receiver SOCKET_PATH [--send TEXT] [--expect TEXT] [--timeout SEC]");
  return 2;
}

std::optional<Options> parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string> {
      if (a == flag) {
        if (i + 1 >= argc) return std::nullopt;
        return std::string(argv[++i]);
      }
      return std::string(a.substr(flag.size() + 1));  // --flag=value
    };
    auto is = [&](std::string_view flag) { return a == flag || (a.starts_with(flag) && a.size() > flag.size() && a[flag.size()] == '='); };
    if (is("--send")) {
      o.send = value("--send");
      if (!o.send) return std::nullopt;
    } else if (is("--expect")) {
      o.expect = value("--expect");
      if (!o.expect || o.expect->empty()) return std::nullopt;
    } else if (is("--timeout")) {
      auto v = value("--timeout");
      if (!v) return std::nullopt;
      double t = 0;
      auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), t);
      if (ec != std::errc{} || p != v->data() + v->size() || t <= 0) return std::nullopt;
      o.timeout = t;
    } else if (a.starts_with("-") && a != "-") {
      return std::nullopt;
    } else if (o.socket_path.empty()) {
      o.socket_path = std::string(a);
    } else {
      return std::nullopt;
    }
  }
  if (o.socket_path.empty()) return std::nullopt;
  return o;
}

double now() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Milliseconds left until `deadline` for poll(2), at least 0.
int ms_left(double deadline) {
  double left = deadline - now();
  return left <= 0 ? 0 : int(left * 1000) + 1;
}

// Wait until fd is readable or the deadline passes. true if readable (or hung up).
bool wait_readable(int fd, double deadline) {
  for (;;) {
    struct pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, ms_left(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

// bind + listen under a temporary name, then rename into place: whoever sees SOCKET_PATH
// can connect to it right away.
std::optional<Fd> listen_at(const std::string& path) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  struct sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (tmp.size() >= sizeof addr.sun_path) {
    say("socket path too long: " + path);
    return std::nullopt;
  }
  std::memcpy(addr.sun_path, tmp.c_str(), tmp.size() + 1);
  Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) {
    say_errno("socket");
    return std::nullopt;
  }
  ::unlink(tmp.c_str());
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    say_errno("bind " + tmp);
    return std::nullopt;
  }
  Unlinker tmp_guard(tmp);
  if (::listen(s.get(), 1) < 0) {
    say_errno("listen " + tmp);
    return std::nullopt;
  }
  if (::rename(tmp.c_str(), path.c_str()) < 0) {
    say_errno("rename " + tmp + " to " + path);
    return std::nullopt;
  }
  tmp_guard.release();
  return s;
}

// One message with SCM_RIGHTS: the fd, and the text that came with it (the pty's name).
std::optional<Fd> receive_fd(int conn, std::string& payload) {
  char data[4096];
  struct iovec iov{data, sizeof data};
  alignas(struct cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * 4)] = {};
  struct msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl;
  msg.msg_controllen = sizeof ctrl;
  ssize_t n;
  do n = ::recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    say_errno("recvmsg");
    return std::nullopt;
  }
  payload.assign(data, size_t(n));
  std::optional<Fd> got;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      if (!got) got.emplace(fd);
      else ::close(fd);  // only the first is the master; never leak the rest
    }
  }
  if (!got) say(n == 0 ? "the peer closed the connection without sending anything"
                       : "the message carried no file descriptor (no SCM_RIGHTS)");
  if (msg.msg_flags & MSG_CTRUNC) say("control data truncated");
  return got;
}

int run(const Options& o) {
  double deadline = now() + o.timeout;
  auto listener = listen_at(o.socket_path);
  if (!listener) return 1;
  Unlinker sock_guard(o.socket_path);

  if (!wait_readable(listener->get(), deadline)) {
    say("no connection on " + o.socket_path + " within the timeout");
    return 1;
  }
  Fd conn(::accept4(listener->get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn) {
    say_errno("accept");
    return 1;
  }
  listener->reset();
  if (!wait_readable(conn.get(), deadline)) {
    say("no message on the connection within the timeout");
    return 1;
  }
  std::string name;
  auto got = receive_fd(conn.get(), name);
  if (!got) return 1;
  Fd master = std::move(*got);
  conn.reset();
  while (!name.empty() && name.back() == '\0') name.pop_back();
  say("received fd " + std::to_string(master.get()) + " with \"" + name + "\"");

  struct winsize ws{};
  if (::ioctl(master.get(), TIOCGWINSZ, &ws) < 0) {
    say_errno("TIOCGWINSZ on the received fd (not a terminal?)");
    return 1;
  }
  if (!write_all(1, "winsize " + std::to_string(ws.ws_row) + "x" + std::to_string(ws.ws_col) + "\n")) return 1;

  if (o.send && !write_all(master.get(), *o.send)) {
    say_errno("write to the pty master");
    return 1;
  }

  std::string seen;  // everything read, to find --expect across read boundaries
  char buf[4096];
  for (;;) {
    if (o.expect && seen.find(*o.expect) != std::string::npos) return 0;
    if (!wait_readable(master.get(), deadline)) {
      say(o.expect ? "timed out before \"" + *o.expect + "\" was read" : std::string("timed out before EOF"));
      return 1;
    }
    ssize_t n = ::read(master.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // EIO on a pty master: every slave fd is closed (the process is gone): EOF
      if (n < 0 && errno != EIO) say_errno("read from the pty master");
      if (o.expect) {
        say("EOF before \"" + *o.expect + "\" was read");
        return 1;
      }
      return n == 0 || errno == EIO ? 0 : 1;
    }
    if (!write_all(1, std::string_view(buf, size_t(n)))) return 1;
    seen.append(buf, size_t(n));
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto o = parse_args(argc, argv);
  if (!o) return usage();
  ::signal(SIGPIPE, SIG_IGN);
  return run(*o);
}
