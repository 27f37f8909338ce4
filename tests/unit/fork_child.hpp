// For unit tests that change what cannot be changed back (a seccomp filter, a Landlock domain,
// capabilities, process attributes): run the change in a forked child and collect its report.
// Include after <boost/test/unit_test.hpp>.
#pragma once
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace sh::test {

struct ChildResult {
  int status = -1;
  std::string report;  // what the child wrote: "" when all its checks passed
};

// The parent's half: everything the child writes to `fd` until EOF (fd is closed), then its status.
inline ChildResult collect(pid_t pid, int fd) {
  ChildResult out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.report.append(buf, size_t(n));
  close(fd);
  waitpid(pid, &out.status, 0);
  return out;
}

// Runs fn in a forked child and collects what it returns (its report).
inline ChildResult in_child(const std::function<std::string()>& fn) {
  int p[2];
  BOOST_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    // Never let the child unwind into Boost: it would go on running the other tests in the
    // changed process.
    try {
      std::string r = fn();
      if (write(p[1], r.data(), r.size()) < 0) _exit(3);
    } catch (...) {
      _exit(4);
    }
    _exit(0);
  }
  close(p[1]);
  return collect(pid, p[0]);
}

inline void expect_ok(const ChildResult& r) {
  BOOST_TEST(WIFEXITED(r.status));
  BOOST_TEST(WEXITSTATUS(r.status) == 0);
  BOOST_TEST(r.report == "");
}

}  // namespace sh::test
