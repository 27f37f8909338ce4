#define BOOST_TEST_MODULE kms_secret_mem
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
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
