#include "runtime/linux/proc_info.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

#include "base/file.hpp"
#include "base/text.hpp"

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

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(std::string_view s) {
  if (s.find('\\') == std::string_view::npos) return std::string(s);  // the usual case
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    auto oct = [&](size_t k) { return s[k] >= '0' && s[k] <= '7'; };
    if (s[i] == '\\' && i + 3 < s.size() && oct(i + 1) && oct(i + 2) && oct(i + 3)) {
      out += char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

// Fields are split as views of the text (one line is ~10 of them): the runtime parses the
// whole table for its cgroup layout at every create, where copying each line and each field
// into strings was ~7 k instructions a line.
Result<std::vector<MountInfo>> parse_mountinfo(std::string_view text, const std::string& what) {
  std::vector<MountInfo> out;
  std::vector<std::string_view> f;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    f.clear();
    constexpr std::string_view kSpace = " \t\n\v\f\r";  // as words() splits
    for (size_t i = line.find_first_not_of(kSpace); i != std::string_view::npos;) {
      size_t j = line.find_first_of(kSpace, i);
      f.push_back(line.substr(i, j == std::string_view::npos ? j : j - i));
      i = j == std::string_view::npos ? j : line.find_first_not_of(kSpace, j);
    }
    if (f.empty()) continue;
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash < 6 || dash + 2 >= f.size()) return fail(what + ": malformed line: " + std::string(line));
    MountInfo mi;
    mi.id = std::atoi(std::string(f[0]).c_str());
    mi.parent = std::atoi(std::string(f[1]).c_str());
    mi.root = unescape(f[3]);
    mi.mount_point = unescape(f[4]);
    mi.options = f[5];
    for (size_t i = 6; i < dash; ++i) {
      if (!mi.optional.empty()) mi.optional += ' ';
      mi.optional += f[i];
    }
    mi.fstype = f[dash + 1];
    mi.source = unescape(f[dash + 2]);
    if (dash + 3 < f.size()) mi.super_options = f[dash + 3];
    out.push_back(std::move(mi));
  }
  return out;
}

Result<std::vector<MountInfo>> read_mountinfo(const std::string& path) {
  return parse_mountinfo(TRY(read_file(path)), path);
}

}  // namespace sh::proc
