#define BOOST_TEST_MODULE kms_secret_mem
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <seccomp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "kms/secret_mem.hpp"

using namespace sh::kms;

// The real mechanism: pages from memfd_secret are out of the kernel's direct map, so even this
// process cannot read them through /proc/self/mem, while its ordinary memory reads fine.
BOOST_AUTO_TEST_CASE(secret_pages_do_not_read_through_proc_mem) {
  if (!memfd_secret_available()) {
    BOOST_TEST_MESSAGE("memfd_secret not available on this kernel: nothing to check");
    return;
  }
  auto m = SecretMem::create(100, false);
  BOOST_REQUIRE_MESSAGE(m, (m ? "" : m.error().what()));
  BOOST_TEST(!m->weak());
  BOOST_TEST(m->bytes().size() == static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  std::memset(m->bytes().data(), 0x5a, 32);
  BOOST_TEST(m->bytes()[31] == 0x5a);  // usable by its owner

  std::ifstream maps("/proc/self/maps");
  std::string line, want;
  char addr[32];
  std::snprintf(addr, sizeof addr, "%lx-", reinterpret_cast<unsigned long>(m->bytes().data()));
  while (std::getline(maps, line))
    if (line.rfind(addr, 0) == 0) want = line;
  BOOST_TEST(want.find("secretmem") != std::string::npos);

  int fd = ::open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  BOOST_REQUIRE(fd >= 0);
  char buf[32];
  ssize_t n = ::pread(fd, buf, sizeof buf, reinterpret_cast<off_t>(m->bytes().data()));
  int err = errno;
  BOOST_TEST(n == -1);
  BOOST_TEST(err == EIO);
  static const char plain[32] = "ordinary memory reads fine";  // control
  n = ::pread(fd, buf, sizeof buf, reinterpret_cast<off_t>(plain));
  BOOST_TEST(n == 32);
  BOOST_TEST(std::memcmp(buf, plain, 32) == 0);
  ::close(fd);
}

BOOST_AUTO_TEST_CASE(describe_names_the_mode) {
  if (!memfd_secret_available()) return;
  auto m = SecretMem::create(1, false);
  BOOST_REQUIRE(m);
  BOOST_TEST(m->describe().rfind("memfd_secret", 0) == 0);
}

// A kernel without memfd_secret, made real for this child process by a seccomp filter that
// answers ENOSYS to it: refused unless the weaker mode is allowed, and the weaker mode says so.
BOOST_AUTO_TEST_CASE(without_memfd_secret_refuse_or_weaker_mode) {
  pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    int nr = seccomp_syscall_resolve_name("memfd_secret");
    if (!f || nr == __NR_SCMP_ERROR || seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0 || seccomp_load(f) != 0)
      ::_exit(10);
    if (memfd_secret_available()) ::_exit(11);
    auto refused = SecretMem::create(64, false);
    if (refused) ::_exit(12);
    if (refused.error().what().find("allowWeakerMemory") == std::string::npos) ::_exit(13);
    auto weak = SecretMem::create(64, true);
    if (!weak || !weak->weak()) ::_exit(14);
    if (weak->describe().find("WEAKER MODE") == std::string::npos) ::_exit(15);
    // The documented weakness: root (here: the process itself) reads it through /proc.
    std::memset(weak->bytes().data(), 0x42, 8);
    int fd = ::open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    char b[8] = {};
    if (fd < 0 || ::pread(fd, b, 8, reinterpret_cast<off_t>(weak->bytes().data())) != 8 || b[0] != 0x42) ::_exit(16);
    ::_exit(0);
  }
  int st = 0;
  BOOST_REQUIRE(::waitpid(child, &st, 0) == child);
  BOOST_REQUIRE(WIFEXITED(st));
  BOOST_TEST(WEXITSTATUS(st) == 0, "child step failed: exit " << WEXITSTATUS(st));
}
