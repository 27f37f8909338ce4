#include "runtime/lifecycle/preserved_fds.hpp"

#include <fcntl.h>
#include <sys/resource.h>

#include <string>

#include "base/log.hpp"

namespace sh::lifecycle {

Result<void> check_preserved_fds(unsigned n) {
  if (n == 0) return {};
  std::string flag = "--preserve-fds " + std::to_string(n);
  std::string range = "the caller must have fds 3.." + std::to_string(3ul + n - 1) + " open";
  struct rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && 3ul + n > rl.rlim_cur)
    return fail(flag + ": above the open-files limit " + std::to_string(rl.rlim_cur) + " (" + range + ")");
  for (unsigned i = 0; i < n; ++i) {
    int fd = 3 + int(i);
    // The --log file is opened before any command runs: if it took a number in the range,
    // that number was free in the caller.
    if (fd == log::fd() || ::fcntl(fd, F_GETFD) < 0)
      return fail(flag + ": fd " + std::to_string(fd) + " is not open (" + range + ")");
  }
  return {};
}

}  // namespace sh::lifecycle
