#include "runtime/linux/proc_info.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

namespace sh::proc {

std::optional<Stat> parse_stat(std::string_view t) {
  auto open = t.find('(');
  auto close = t.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  Stat s;
  s.comm = std::string(t.substr(open + 1, close - open - 1));
  // After ") " come fields 3.. separated by single spaces; start time is field 22.
  std::string rest(t.substr(close + 1));
  const char* p = rest.c_str();
  int field = 2;
  while (*p) {
    while (*p == ' ') ++p;
    if (!*p) break;
    ++field;
    const char* start = p;
    while (*p && *p != ' ') ++p;
    if (field == 3) s.state = *start;
    if (field == 22) {
      s.start_time = std::strtoull(start, nullptr, 10);
      return s;
    }
  }
  return std::nullopt;
}

std::optional<Stat> stat(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  return parse_stat(std::string_view(buf, size_t(n)));
}

bool alive(pid_t pid, uint64_t start_time) {
  auto s = stat(pid);
  return s && s->state != 'Z' && s->state != 'X' && s->start_time == start_time;
}

Fd pidfd_of(pid_t pid, uint64_t start_time) {
  if (pid <= 0) return Fd();
  Fd fd(int(::syscall(SYS_pidfd_open, pid, 0)));
  if (!fd || !alive(pid, start_time)) return Fd();
  return fd;
}

bool exits_within(int pidfd, std::chrono::nanoseconds d) {
  auto deadline = std::chrono::steady_clock::now() + d;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct timespec ts{time_t(left.count() / 1'000'000'000), long(left.count() % 1'000'000'000)};
    struct pollfd p{pidfd, POLLIN, 0};
    int n = ::ppoll(&p, 1, &ts, nullptr);
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) {
      ::nanosleep(&ts, nullptr);
      return false;
    }
  }
}

}  // namespace sh::proc
