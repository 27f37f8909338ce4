// run: create + start, then (unless detached) wait for the process, forwarding signals,
// and delete the container unless --keep.
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/internal.hpp"

namespace sh::lifecycle {

namespace {

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

Result<int> wait_forwarding(const Launched& l) {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGTSTP, SIGPIPE})
    sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  Fd sfd(::signalfd(-1, &set, SFD_CLOEXEC));
  for (;;) {
    struct pollfd p[2] = {{l.pidfd.get(), POLLIN, 0}, {sfd.get(), POLLIN, 0}};
    int n = ::poll(p, sfd ? 2 : 1, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("wait for container");
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      if (::read(sfd.get(), &si, sizeof si) == sizeof si)
        ::syscall(SYS_pidfd_send_signal, l.pidfd.get(), int(si.ssi_signo), nullptr, 0);
    }
    if (p[0].revents & POLLIN) {
      int status = 0;
      while (::waitpid(l.pid, &status, 0) < 0)
        if (errno != EINTR) return sys_error("waitpid container init");
      return exit_code(status);
    }
  }
}

Result<int> run(const Globals& g, const CreateOptions& o, bool detach, bool keep) {
  Launched l = TRY(create(g, o));
  if (auto r = start(g, o.id); !r) {
    (void)remove(g, o.id, true);
    return fail(r.error());
  }
  if (detach) return 0;
  int code = TRY(wait_forwarding(l));
  if (!keep) TRYV(remove(g, o.id, true));
  return code;
}

}  // namespace sh::lifecycle
