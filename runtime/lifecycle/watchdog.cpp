#include "runtime/lifecycle/watchdog.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "base/fd.hpp"
#include "runtime/linux/proc_info.hpp"

namespace sh::lifecycle {
namespace {

constexpr int kKillRounds = 50;      // cgroup sweeps: processes may fork while we kill
constexpr long kRoundPauseNs = 10'000'000;  // 10 ms between sweeps

int pidfd_open(pid_t pid) { return int(::syscall(SYS_pidfd_open, pid, 0)); }
int pidfd_send_signal(int fd, int sig) { return int(::syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0)); }

// Detach from everything the runtime had: stdio, other fds, signal state, cwd.
void detach() {
  prctl(PR_SET_NAME, "sharness-wdog", 0, 0, 0);
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    if (null > 2) ::close(null);
  }
  if (::syscall(SYS_close_range, 3u, ~0u, 0u) < 0) {
    long max = ::sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); ++fd) ::close(int(fd));
  }
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int s = 1; s < NSIG; ++s) signal(s, SIG_DFL);
  signal(SIGHUP, SIG_IGN);  // the session the runtime leaves behind may hang up
  ::setsid();               // not in the caller's process group: a terminal's ^C is not for us
  if (::chdir("/") < 0) _exit(1);
}

// Read the pids of a cgroup.procs file into buf; returns how many.
int read_pids(const std::string& file, pid_t* out, int max) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[8192];
  int n = 0;
  long cur = -1;
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    for (ssize_t i = 0; i < r && n < max; ++i) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        cur = (cur < 0 ? 0 : cur * 10) + (buf[i] - '0');
      } else if (cur >= 0) {
        out[n++] = pid_t(cur);
        cur = -1;
      }
    }
  }
  if (cur >= 0 && n < max) out[n++] = pid_t(cur);
  ::close(fd);
  return n;
}

void kill_cgroup(const std::string& procs) {
  // cgroup v2 (5.14+): the kernel kills the whole cgroup, no pid can be reused under us.
  std::string dir = procs.substr(0, procs.rfind('/') + 1);
  int k = ::open((dir + "cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);
  if (k >= 0) {
    bool ok = ::write(k, "1", 1) == 1;
    ::close(k);
    if (ok) return;
  }
  // v1: sweep until nothing is left to kill (a process may fork between read and kill).
  static pid_t pids[4096];
  for (int round = 0; round < kKillRounds; ++round) {
    int n = read_pids(procs, pids, 4096);
    bool killed = false;
    for (int i = 0; i < n; ++i)
      if (pids[i] > 0 && ::kill(pids[i], SIGKILL) == 0) killed = true;
    if (!killed) return;
    struct timespec pause = {0, kRoundPauseNs};
    nanosleep(&pause, nullptr);
  }
}

[[noreturn]] void watch(pid_t init_pid, uint64_t start_time, const std::vector<std::string>& procs, uint64_t seconds) {
  detach();
  Fd pidfd(pidfd_open(init_pid));
  if (!pidfd) _exit(0);  // already gone
  // The pidfd pins one process; check it is the container's init and not a recycled pid.
  auto st = proc::stat(init_pid);
  if (!st || st->start_time != start_time || st->state == 'Z') _exit(0);

  Fd timer(timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC));
  if (!timer) _exit(2);
  struct timespec now {};
  clock_gettime(CLOCK_BOOTTIME, &now);
  struct itimerspec when {};
  uint64_t deadline = uint64_t(now.tv_sec) + seconds;
  when.it_value.tv_sec = deadline > uint64_t(LONG_MAX) ? LONG_MAX : time_t(deadline);
  when.it_value.tv_nsec = now.tv_nsec;
  if (timerfd_settime(timer.get(), TFD_TIMER_ABSTIME, &when, nullptr) < 0) _exit(2);

  struct pollfd fds[2] = {{pidfd.get(), POLLIN, 0}, {timer.get(), POLLIN, 0}};
  for (;;) {
    int r = poll(fds, 2, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) _exit(2);
    if (fds[0].revents) _exit(0);  // init exited: the container is over
    if (fds[1].revents) break;
  }
  pidfd_send_signal(pidfd.get(), SIGKILL);
  for (const auto& f : procs) kill_cgroup(f);
  _exit(0);
}

}  // namespace

Result<pid_t> spawn_watchdog(pid_t init_pid, uint64_t init_start_time, std::vector<std::string> cgroup_procs_files,
                             uint64_t seconds) {
  if (init_pid <= 0) return fail("watchdog: bad init pid " + std::to_string(init_pid));
  if (seconds == 0) return fail("watchdog: a wall-clock limit of 0 seconds");
  // One fork (profile.md #6: the second copy of the runtime cost ~0.6 ms): the watchdog takes a
  // session of its own in watch(), and when the runtime exits it is re-parented to the caller's
  // subreaper. The runtime only ever waits for specific pids, so it never reaps it by mistake.
  pid_t w = fork();
  if (w < 0) return sys_error("watchdog: fork");
  if (w == 0) watch(init_pid, init_start_time, cgroup_procs_files, seconds);
  return w;
}

}  // namespace sh::lifecycle
