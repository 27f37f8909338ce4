// The watchdog shares the runtime's memory (clone(CLONE_VM), not fork): no page table is copied
// and no page is copied on write, which made a forked watchdog ~5% of a harsh run. The price is
// discipline in the child: it runs on a stack and data block of its own (mmap'ed here, never
// touched by the runtime again), makes only raw system calls (glibc's wrappers write errno, a
// thread-local of the runtime's thread, which goes on running), allocates nothing and blocks
// every signal (the handlers are the runtime's code). When the runtime exits, the memory stays
// mapped for the watchdog alone. Architectures without a raw-call path below fork instead.
#include "runtime/lifecycle/watchdog.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace sh::lifecycle {
namespace {

constexpr int kKillRounds = 50;             // cgroup sweeps: processes may fork while we kill
constexpr long kRoundPauseNs = 10'000'000;  // 10 ms between sweeps
constexpr int kMaxPids = 4096;
constexpr size_t kStackSize = 64 * 1024;
constexpr size_t kMaxFiles = 16;  // cgroup hierarchies (v1 has a dozen at most)
constexpr uint64_t kMaxSeconds = uint64_t(1) << 32;  // a deadline in ns stays far below 2^64

// Everything the watchdog needs, laid out before the clone in one private mapping.
struct Job {
  pid_t init_pid;
  int init_pidfd;       // the runtime's pidfd of init (its number in our copy of the fd table), or -1
  uint64_t start_time;  // in clock ticks, to check the pid
  uint64_t started_ns;  // the same in CLOCK_BOOTTIME ns: the limit counts from it
  uint64_t seconds;
  const char* record;   // where to leave watchdog_record.hpp's record ("": nowhere)
  size_t n_files;
  const char* procs[kMaxFiles];  // cgroup.procs of each hierarchy (the strings follow the Job)
  const char* kill[kMaxFiles];   // the cgroup.kill beside each (cgroup v2 only has one)
  pid_t pids[kMaxPids];
  char buf[8192];
};

#if defined(__x86_64__) || defined(__aarch64__)
// A system call that leaves errno alone: returns the kernel's value (-errno on failure).
long raw(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0) {
#if defined(__x86_64__)
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  long ret;
  asm volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
  return ret;
#else
  register long x8 asm("x8") = n;
  register long x0 asm("x0") = a;
  register long x1 asm("x1") = b;
  register long x2 asm("x2") = c;
  register long x3 asm("x3") = d;
  register long x4 asm("x4") = e;
  asm volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
  return x0;
#endif
}
constexpr bool kShared = true;
#else
long raw(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0) {
  long r = ::syscall(n, a, b, c, d, e);
  return r < 0 ? -errno : r;
}
constexpr bool kShared = false;  // forked: errno is the child's own
#endif

long raw_open(const char* path, int flags) { return raw(SYS_openat, AT_FDCWD, long(path), flags, 0); }

// Decimal digits of v at p; returns the end.
char* put_uint(char* p, uint64_t v) {
  char digits[20];
  int n = 0;
  do digits[n++] = char('0' + v % 10);
  while (v /= 10);
  while (n) *p++ = digits[--n];
  return p;
}

char* put(char* p, const char* s) {
  while (*s) *p++ = *s++;
  return p;
}

[[noreturn]] void leave(int code) {
  for (;;) raw(SYS_exit, code);
}

// Stdio on /dev/null, every other fd but `keep` closed, every signal blocked, a session of its
// own (a terminal's ^C is not for us), cwd "/".
void detach(int keep) {
  raw(SYS_prctl, PR_SET_NAME, long("sharness-wdog"));
  uint64_t all = ~uint64_t(0);
  raw(SYS_rt_sigprocmask, SIG_SETMASK, long(&all), 0, sizeof all);
  long null = raw_open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0)
    for (int fd = 0; fd < 3; ++fd) raw(SYS_dup3, null, fd, 0);
  if (keep > 3) raw(SYS_close_range, 3, keep - 1, 0);
  raw(SYS_close_range, keep >= 3 ? keep + 1 : 3, long(~0u), 0);
  raw(SYS_setsid);
  if (raw(SYS_chdir, long("/")) < 0) leave(1);
}

// Fields 3 (state) and 22 (start time) of /proc/<pid>/stat, parsed in place.
bool init_is(Job& j) {
  char path[64];
  *put(put_uint(put(path, "/proc/"), uint64_t(j.init_pid)), "/stat") = 0;
  long fd = raw_open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  long len = raw(SYS_read, fd, long(j.buf), sizeof j.buf - 1);
  raw(SYS_close, fd);
  if (len <= 0) return false;
  j.buf[len] = 0;
  char* p = std::strrchr(j.buf, ')');
  if (!p) return false;
  int field = 2;
  char state = '?';
  for (++p; *p;) {
    while (*p == ' ') ++p;
    if (!*p) break;
    ++field;
    if (field == 3) state = *p;
    if (field == 22) {
      uint64_t v = 0;
      while (*p >= '0' && *p <= '9') v = v * 10 + uint64_t(*p++ - '0');
      return v == j.start_time && state != 'Z' && state != 'X';
    }
    while (*p && *p != ' ') ++p;
  }
  return false;
}

int read_pids(Job& j, const char* file) {
  long fd = raw_open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int n = 0;
  long cur = -1;
  for (;;) {
    long r = raw(SYS_read, fd, long(j.buf), sizeof j.buf);
    if (r == -EINTR) continue;
    if (r <= 0) break;
    for (long i = 0; i < r && n < kMaxPids; ++i) {
      if (j.buf[i] >= '0' && j.buf[i] <= '9') {
        cur = (cur < 0 ? 0 : cur * 10) + (j.buf[i] - '0');
      } else if (cur >= 0) {
        j.pids[n++] = pid_t(cur);
        cur = -1;
      }
    }
  }
  if (cur >= 0 && n < kMaxPids) j.pids[n++] = pid_t(cur);
  raw(SYS_close, fd);
  return n;
}

void kill_cgroup(Job& j, size_t i) {
  // cgroup v2 (5.14+): the kernel kills the whole cgroup, no pid can be reused under us.
  long k = raw_open(j.kill[i], O_WRONLY | O_CLOEXEC);
  if (k >= 0) {
    bool ok = raw(SYS_write, k, long("1"), 1) == 1;
    raw(SYS_close, k);
    if (ok) return;
  }
  // v1: sweep until nothing is left to kill (a process may fork between read and kill).
  for (int round = 0; round < kKillRounds; ++round) {
    int n = read_pids(j, j.procs[i]);
    bool killed = false;
    for (int p = 0; p < n; ++p)
      if (j.pids[p] > 0 && raw(SYS_kill, j.pids[p], SIGKILL) == 0) killed = true;
    if (!killed) return;
    struct timespec pause = {0, kRoundPauseNs};
    raw(SYS_nanosleep, long(&pause), 0);
  }
}

// watchdog_record.hpp's record, left before the kill so that it is there when init is gone.
// One write of a new file (O_EXCL): a reader finds it whole once the container is dead.
void leave_record(Job& j, uint64_t deadline_ns, uint64_t fired_ns) {
  if (!*j.record) return;
  char* p = put(j.buf, "{\"startedNs\":");
  p = put(put_uint(p, j.started_ns), ",\"deadlineNs\":");
  p = put(put_uint(p, deadline_ns), ",\"firedNs\":");
  p = put(put_uint(p, fired_ns), "}\n");
  long fd = raw(SYS_openat, AT_FDCWD, long(j.record), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  raw(SYS_write, fd, long(j.buf), p - j.buf);
  raw(SYS_close, fd);
}

uint64_t boottime_ns() {
  struct timespec now {};
  raw(SYS_clock_gettime, CLOCK_BOOTTIME, long(&now));
  return uint64_t(now.tv_sec) * 1'000'000'000u + uint64_t(now.tv_nsec);
}

int watch(void* arg) {
  Job& j = *static_cast<Job*>(arg);
  detach(j.init_pidfd);
  long pidfd = j.init_pidfd;
  if (pidfd < 0) {
    pidfd = raw(SYS_pidfd_open, j.init_pid, 0);
    if (pidfd < 0) leave(0);  // already gone
    // The pidfd pins one process; check it is the container's init and not a recycled pid.
    if (!init_is(j)) leave(0);
  }
  long timer = raw(SYS_timerfd_create, CLOCK_BOOTTIME, TFD_CLOEXEC);
  if (timer < 0) leave(2);
  // From init's start, not from now: the time create took after the clone is the container's.
  // A deadline already past fires at once.
  uint64_t deadline = j.started_ns + j.seconds * 1'000'000'000u;
  struct itimerspec when {};
  when.it_value.tv_sec = time_t(deadline / 1'000'000'000u);
  when.it_value.tv_nsec = long(deadline % 1'000'000'000u);
  if (raw(SYS_timerfd_settime, timer, TFD_TIMER_ABSTIME, long(&when), 0) < 0) leave(2);

  struct pollfd fds[2] = {{int(pidfd), POLLIN, 0}, {int(timer), POLLIN, 0}};
  for (;;) {
    struct timespec* forever = nullptr;
    long r = raw(SYS_ppoll, long(fds), 2, long(forever), 0, 0);
    if (r == -EINTR) continue;
    if (r < 0) leave(2);
    if (fds[0].revents) leave(0);  // init exited: the container is over
    if (fds[1].revents) break;
  }
  leave_record(j, deadline, boottime_ns());
  raw(SYS_pidfd_send_signal, pidfd, SIGKILL, 0, 0);
  for (size_t i = 0; i < j.n_files; ++i) kill_cgroup(j, i);
  leave(0);
}

}  // namespace

Result<pid_t> spawn_watchdog(pid_t init_pid, uint64_t init_start_time, std::vector<std::string> cgroup_procs_files,
                             uint64_t seconds, const std::string& record_path, int init_pidfd) {
  if (init_pid <= 0) return fail("watchdog: bad init pid " + std::to_string(init_pid));
  if (seconds == 0) return fail("watchdog: a wall-clock limit of 0 seconds");
  if (seconds > kMaxSeconds) return fail("watchdog: a wall-clock limit of " + std::to_string(seconds) + " seconds");
  if (cgroup_procs_files.size() > kMaxFiles) return fail("watchdog: too many cgroup hierarchies");
  if (!record_path.empty() && record_path[0] != '/')
    return fail("watchdog: the record's path is not absolute: " + record_path);  // it runs in "/"
  long tick = ::sysconf(_SC_CLK_TCK);
  if (tick <= 0) return sys_error("watchdog: sysconf(_SC_CLK_TCK)");
  size_t strings = record_path.size() + 1;
  for (const auto& f : cgroup_procs_files) strings += 2 * (f.size() + 16);
  size_t size = kStackSize + sizeof(Job) + strings;
  void* mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return sys_error("watchdog: mmap");
  // Stack at the bottom (it grows down from kStackSize), the job above it.
  Job* j = new (static_cast<char*>(mem) + kStackSize) Job{};
  j->init_pid = init_pid;
  j->init_pidfd = init_pidfd >= 3 ? init_pidfd : -1;  // 0-2 become /dev/null in the watchdog
  j->start_time = init_start_time;
  j->started_ns = init_start_time * (1'000'000'000u / uint64_t(tick));
  j->seconds = seconds;
  char* s = reinterpret_cast<char*>(j + 1);
  j->record = s;
  s = ::stpcpy(s, record_path.c_str()) + 1;
  for (const auto& f : cgroup_procs_files) {
    std::string dir = f.substr(0, f.rfind('/') + 1);
    j->procs[j->n_files] = s;
    s = ::stpcpy(s, f.c_str()) + 1;
    j->kill[j->n_files++] = s;
    s = ::stpcpy(s, (dir + "cgroup.kill").c_str()) + 1;
  }
  // Not the runtime's child for long: it exits and the watchdog is re-parented to the
  // caller's subreaper. The runtime only ever waits for specific pids, so it never reaps it.
  pid_t w = kShared ? ::clone(watch, static_cast<char*>(mem) + kStackSize, CLONE_VM | SIGCHLD, j) : ::fork();
  if (w < 0) {
    int e = errno;
    ::munmap(mem, size);
    return sys_error("watchdog: clone", e);
  }
  if (w == 0) watch(j);  // forked (no raw-call path on this architecture)
  return w;
}

}  // namespace sh::lifecycle
