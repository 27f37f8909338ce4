#include "runtime/lifecycle/tty_proxy.hpp"

#include "runtime/lifecycle/internal.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

namespace sh::lifecycle {

namespace {

// Restores the terminal's mode whatever path we leave by.
struct RawMode {
  bool active = false;
  struct termios saved{};
  RawMode() {
    if (!::isatty(0) || ::tcgetattr(0, &saved) < 0) return;
    struct termios raw = saved;
    ::cfmakeraw(&raw);
    active = ::tcsetattr(0, TCSANOW, &raw) == 0;
  }
  ~RawMode() {
    if (active) ::tcsetattr(0, TCSANOW, &saved);
  }
};

void copy_winsize(int master) {
  struct winsize ws;
  if (::ioctl(0, TIOCGWINSZ, &ws) == 0) ::ioctl(master, TIOCSWINSZ, &ws);
}

// Copy what is readable from `from` to `to`; false at EOF or error.
bool pump(int from, int to) {
  char buf[16384];
  ssize_t n = ::read(from, buf, sizeof buf);
  if (n <= 0) return n < 0 && (errno == EINTR || errno == EAGAIN);
  for (ssize_t off = 0; off < n;) {
    ssize_t w = ::write(to, buf + off, size_t(n - off));
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    off += w;
  }
  return true;
}

}  // namespace

Result<int> proxy_and_wait(const Launched& l, int master, DenialReader* denials) {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGPIPE}) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  Fd sfd(::signalfd(-1, &set, SFD_CLOEXEC));
  RawMode raw;
  copy_winsize(master);
  bool stdin_open = true;
  for (;;) {
    struct pollfd p[5] = {{master, POLLIN, 0}, {l.pidfd.get(), POLLIN, 0}, {sfd.get(), POLLIN, 0},
                          {stdin_open ? 0 : -1, POLLIN, 0}, {denials ? denials->fd() : -1, POLLIN, 0}};
    if (::poll(p, 5, denials ? denials->tick_ms() : -1) < 0) {
      if (errno == EINTR) continue;
      return sys_error("poll terminal");
    }
    if (denials) denials->step(p[4].revents != 0);
    if (p[0].revents & POLLIN) pump(master, 1);
    if (p[3].revents & (POLLIN | POLLHUP)) stdin_open = pump(0, master);
    if (p[2].revents & POLLIN) {
      struct signalfd_siginfo si;
      if (::read(sfd.get(), &si, sizeof si) == sizeof si) {
        if (si.ssi_signo == SIGWINCH)
          copy_winsize(master);
        else
          ::syscall(SYS_pidfd_send_signal, l.pidfd.get(), int(si.ssi_signo), nullptr, 0);
      }
    }
    if (p[1].revents & POLLIN) {
      // The process is gone: drain what it wrote last, then reap it.
      struct pollfd m{master, POLLIN, 0};
      while (::poll(&m, 1, 0) > 0 && (m.revents & POLLIN) && pump(master, 1)) {
      }
      int status = 0;
      while (::waitpid(l.pid, &status, 0) < 0)
        if (errno != EINTR) return sys_error("waitpid container init");
      return exit_code(status);
    }
  }
}

}  // namespace sh::lifecycle
