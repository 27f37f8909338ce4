// run: create + start, then (unless detached) wait for the process, forwarding signals,
// and delete the container unless --keep.
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "base/log.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/preserved_fds.hpp"
#include "runtime/lifecycle/sync.hpp"
#include "runtime/lifecycle/tty_proxy.hpp"
#include <sys/socket.h>

namespace sh::lifecycle {

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
  return "wait status " + std::to_string(status);
}

Result<int> wait_forwarding(const Launched& l, DenialReader* denials) {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGTSTP, SIGPIPE})
    sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  Fd sfd(::signalfd(-1, &set, SFD_CLOEXEC));
  for (;;) {
    struct pollfd p[3] = {{l.pidfd.get(), POLLIN, 0}, {sfd.get(), POLLIN, 0},
                          {denials ? denials->fd() : -1, POLLIN, 0}};
    int n = ::poll(p, 3, denials ? denials->tick_ms() : -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("wait for container");
    if (denials) denials->step(p[2].revents != 0);
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

namespace {

// Init has exited. Without --keep the record is deleted next: what is queued now is read, and
// nothing is waited for (nor the kernel's lost counter asked). With --keep the record outlives
// the container and must be complete: what kauditd still delivers (the reader's drain, 300 ms)
// is read by a process of its own, so that `run` returns when init exits, as it did when a reader
// was forked at create. That fork costs what the create-time one did, but only for run --keep;
// draining here would add 300 ms of wall time to each of those.
void end_denials(DenialReader&& denials, bool keep) {
  if (!keep) return denials.step(true);
  if (auto r = std::move(denials).fork_off(); !r) {
    log::warn("denials: the last records are read here: " + r.error().what());
    denials.drain(kDenialDrainMs);
  }
}

}  // namespace

Result<int> run(const Globals& g, const CreateOptions& opts, bool detach, bool keep) {
  TRYV(check_preserved_fds(opts.preserve_fds));  // before the console socketpair below
  CreateOptions o = opts;
  o.start_at_once = true;
  // A terminal with nobody to hand the pty to: take it ourselves (as runc does).
  Fd ours, theirs;
  // Parsed once: create takes this bundle (a bad one is loaded again there, for its error).
  std::optional<Bundle> loaded;
  if (auto b = load_bundle(o.bundle)) loaded = std::move(*b);
  if (!detach && o.console_socket.empty() && loaded && loaded->config.process && loaded->config.process->terminal) {
    int sp[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) return sys_error("console socketpair");
    ours.reset(sp[0]);
    theirs.reset(sp[1]);
    o.console_fd = theirs.get();
  }
  o.own_denials = !detach;  // we stay until init exits: we read its denials ourselves
  Created made = TRY(create_container(g, o, std::move(loaded)));
  const Launched& l = made.launched;
  theirs.reset();
  Fd master;
  if (ours) {
    auto m = sync::recv_fd(ours.get());
    if (!m) {
      (void)remove(g, o.id, true);
      return fail(std::move(m.error()).context("receive the container's terminal"));
    }
    master = std::move(*m);
  }
  // Still under create's lock, with the record and the hooks in memory: nothing to re-read.
  if (auto r = start_locked(made.dir, made.rec, &made.poststart, nullptr, made.init_sock.get()); !r) {
    made.dir = ContainerDir();  // remove takes the lock again
    (void)remove(g, o.id, true);
    return fail(r.error());
  }
  made.dir = ContainerDir();  // unlock: kill, pause, delete must not wait for the process
  if (detach) return 0;
  DenialReader* denials = made.denials ? &*made.denials : nullptr;
  int code = master ? TRY(proxy_and_wait(l, master.get(), denials)) : TRY(wait_forwarding(l, denials));
  if (denials) end_denials(std::move(*denials), keep);
  if (!keep) TRYV(remove(g, o.id, true));
  return code;
}

}  // namespace sh::lifecycle
