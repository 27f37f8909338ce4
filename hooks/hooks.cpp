#include "hooks/hooks.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/fd.hpp"
#include "base/log.hpp"

namespace sh::hooks {
namespace {

constexpr size_t kTailMax = 4096;  // how much of a hook's stderr an error message carries

using Clock = std::chrono::steady_clock;

// glibc 2.36's <sys/pidfd.h> lacks extern "C", so C++ cannot link its wrappers: use the syscalls.
int pidfd_open(pid_t pid) { return int(::syscall(SYS_pidfd_open, pid, 0)); }
int pidfd_kill(int pidfd) { return int(::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0)); }

// fds 0-2 are the child's stdio: a runtime started with one of them closed would get pipe
// ends there, and the child's dup2 onto 0-2 would clobber them. Keep ours above 2.
Result<void> lift_above_stdio(Fd& fd) {
  if (fd.get() > 2) return {};
  int n = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
  if (n < 0) return sys_error("fcntl F_DUPFD_CLOEXEC");
  fd.reset(n);
  return {};
}

struct Pipe {
  Fd r, w;
};

Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) < 0) return sys_error("pipe2");
  Pipe p{Fd(fds[0]), Fd(fds[1])};
  TRYV(lift_above_stdio(p.r));
  TRYV(lift_above_stdio(p.w));
  return p;
}

Result<void> set_nonblock(int fd) {
  int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || ::fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return sys_error("fcntl O_NONBLOCK");
  return {};
}

// execve wants mutable char* arrays; they point into the hook, which outlives the child's exec.
struct ExecArgs {
  std::vector<char*> argv, envp;
  long max_fd = 0;

  explicit ExecArgs(const oci::Hook& h) {
    if (h.args.empty()) argv.push_back(const_cast<char*>(h.path.c_str()));
    for (const auto& a : h.args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : h.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    max_fd = ::sysconf(_SC_OPEN_MAX);
  }
};

// In the forked child: only async-signal-safe calls from here on (the runtime may have threads).
[[noreturn]] void exec_child(const char* path, const ExecArgs& a, int in_r, int err_w, int status_w, bool quiet) {
  // The hook starts with default signal handling, whatever the runtime blocked or ignored.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);

  // stdin: the state; stdout: the runtime's stderr (stdout may be a client's protocol channel),
  // or for a quiet helper captured with stderr; stderr: captured for error messages.
  ::dup2(in_r, 0);
  ::dup2(quiet ? err_w : 2, 1);
  ::dup2(err_w, 2);
  // The exec-status pipe goes to fd 3 (close-on-exec), everything above is closed.
  if (status_w != 3 && ::dup3(status_w, 3, O_CLOEXEC) < 0) {
    int e = errno;
    (void)!::write(status_w, &e, sizeof e);
    ::_exit(127);
  }
  if (::close_range(4, ~0U, 0) < 0)
    for (long fd = 4; fd < a.max_fd; ++fd) ::close(int(fd));

  ::execve(path, a.argv.data(), a.envp.data());
  int e = errno;
  (void)!::write(3, &e, sizeof e);
  ::_exit(127);
}

// Writing the state to a hook that exits without reading it raises SIGPIPE: block it in this
// thread while we write, and swallow a SIGPIPE we caused on the way out.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
    was_pending_ = pending();
  }
  ~SigpipeBlock() {
    if (!was_pending_ && pending()) {
      struct timespec zero {};
      ::sigtimedwait(&set_, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  bool pending() const {
    sigset_t p;
    sigpending(&p);
    return sigismember(&p, SIGPIPE) == 1;
  }
  sigset_t set_{}, old_{};
  bool was_pending_ = false;
};

struct Outcome {
  bool timed_out = false;
  int status = 0;  // waitpid status
  std::string tail;
  bool truncated = false;
};

// Keep only the last kTailMax bytes of stderr. Returns false at EOF or on error.
bool read_stderr(int fd, Outcome& out) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN;
    if (n == 0) return false;
    out.tail.append(buf, size_t(n));
    if (out.tail.size() > kTailMax) {
      out.tail.erase(0, out.tail.size() - kTailMax);
      out.truncated = true;
    }
  }
}

// Push as much of the state as the pipe takes now. Returns false once done (or the hook closed it).
bool write_state(int fd, std::string_view state, size_t& off) {
  while (off < state.size()) {
    ssize_t n = ::write(fd, state.data() + off, state.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN;  // EPIPE: the hook does not want it, not an error
    off += size_t(n);
  }
  return false;
}

pid_t reap(pid_t pid, int& status) {
  pid_t r;
  do r = ::waitpid(pid, &status, 0);
  while (r < 0 && errno == EINTR);
  return r;
}

// Feed stdin, collect stderr and wait for the exit, all in one poll loop, so that neither a hook
// that never reads stdin nor one that floods stderr can stall us past its timeout.
Result<Outcome> supervise(pid_t pid, int pidfd, Fd in_w, Fd err_r, std::string_view state,
                          std::optional<int> timeout) {
  TRYV(set_nonblock(in_w.get()));
  TRYV(set_nonblock(err_r.get()));
  SigpipeBlock guard;
  Outcome out;
  size_t off = 0;
  if (state.empty()) in_w.reset();
  std::optional<Clock::time_point> deadline;
  if (timeout) deadline = Clock::now() + std::chrono::seconds(*timeout);

  for (;;) {
    int wait_ms = -1;
    if (deadline) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) {
        out.timed_out = true;
        pidfd_kill(pidfd);
        break;
      }
      wait_ms = int(std::min<long long>(left, 60'000));
    }
    struct pollfd p[3] = {{pidfd, POLLIN, 0}, {in_w.get(), POLLOUT, 0}, {err_r.get(), POLLIN, 0}};
    // poll ignores negative fds, so closed pipes simply drop out.
    int rc = ::poll(p, 3, wait_ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return sys_error("poll");
    if (p[2].revents && !read_stderr(err_r.get(), out)) err_r.reset();
    if (p[1].revents && !write_state(in_w.get(), state, off)) in_w.reset();
    if (p[0].revents) break;
  }
  in_w.reset();
  // A hook may leave a daemon behind holding stderr: take what is there, never wait for EOF.
  if (err_r) read_stderr(err_r.get(), out);
  if (reap(pid, out.status) < 0) return sys_error("waitpid");
  return out;
}

std::string describe_tail(const Outcome& o) {
  std::string t = o.tail;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\r' || t.back() == '\t')) t.pop_back();
  if (t.empty()) return "";
  return ": " + std::string(o.truncated ? "..." : "") + t;
}

Result<void> check_outcome(const Outcome& o, const std::optional<int>& timeout) {
  if (o.timed_out) return fail("timed out after " + std::to_string(timeout.value_or(0)) + " s" + describe_tail(o));
  if (WIFEXITED(o.status)) {
    if (WEXITSTATUS(o.status) == 0) return {};
    return fail("exited with status " + std::to_string(WEXITSTATUS(o.status)) + describe_tail(o));
  }
  if (WIFSIGNALED(o.status)) {
    const char* abbrev = sigabbrev_np(WTERMSIG(o.status));
    std::string sig = abbrev ? std::string("SIG") + abbrev : std::to_string(WTERMSIG(o.status));
    return fail("killed by signal " + sig + describe_tail(o));
  }
  return fail("ended with wait status " + std::to_string(o.status));
}

// Reports an exec failure written by the child, after reaping it.
Result<void> check_exec(int status_r, pid_t pid) {
  int child_errno = 0;
  ssize_t n;
  do n = ::read(status_r, &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  if (n != ssize_t(sizeof child_errno)) return {};  // EOF: execve succeeded and closed the pipe
  int status = 0;
  reap(pid, status);
  return sys_error("exec", child_errno);
}

Result<void> run_one(const oci::Hook& h, const std::string& state, bool quiet = false) {
  Pipe in = TRY(make_pipe());
  Pipe err = TRY(make_pipe());
  Pipe exec_status = TRY(make_pipe());
  ExecArgs args(h);

  pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork");
  if (pid == 0) exec_child(h.path.c_str(), args, in.r.get(), err.w.get(), exec_status.w.get(), quiet);

  in.r.reset();
  err.w.reset();
  exec_status.w.reset();
  Fd pidfd(pidfd_open(pid));
  if (!pidfd) {
    int e = errno;
    int status = 0;
    ::kill(pid, SIGKILL);
    reap(pid, status);
    return sys_error("pidfd_open", e);
  }
  TRYV(check_exec(exec_status.r.get(), pid));
  Outcome o = TRY(supervise(pid, pidfd.get(), std::move(in.w), std::move(err.r), state, h.timeout));
  return check_outcome(o, h.timeout);
}

}  // namespace

Result<void> run(const std::vector<oci::Hook>& hooks, const std::string& kind, const std::string& state_json) {
  for (const auto& h : hooks) TRYVC(kind + " hook " + h.path, run_one(h, state_json));
  return {};
}

size_t run_warn(const std::vector<oci::Hook>& hooks, const std::string& kind, const std::string& state_json) {
  size_t failed = 0;
  for (const auto& h : hooks)
    if (auto r = run_one(h, state_json); !r) {
      log::warn(kind + " hook " + h.path + ": " + r.error().what() + " (ignored: the lifecycle goes on)");
      ++failed;
    }
  return failed;
}

Result<void> run_helper(const std::string& path, const std::vector<std::string>& args) {
  oci::Hook h;
  h.path = path;
  h.args = {path};
  h.args.insert(h.args.end(), args.begin(), args.end());
  h.timeout = 60;
  TRYVC(path, run_one(h, "", true));
  return {};
}

}  // namespace sh::hooks
