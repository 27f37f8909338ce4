#define BOOST_TEST_MODULE apparmor
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <string>

#include "base/file.hpp"
#include "runtime/linux/apparmor.hpp"
#include "tests/unit/fork_child.hpp"

using namespace sh;

// The text runc's aa_change_onexec writes, and what may not go into it.
BOOST_AUTO_TEST_CASE(exec_attribute_text) {
  BOOST_TEST(*apparmor::exec_attr_text("docker-default") == "exec docker-default");
  BOOST_TEST(*apparmor::exec_attr_text("cri-containerd.apparmor.d") == "exec cri-containerd.apparmor.d");
  BOOST_TEST(*apparmor::exec_attr_text("unconfined") == "exec unconfined");
  BOOST_TEST(!apparmor::exec_attr_text(""));
  auto nl = apparmor::exec_attr_text("a\nchangeprofile unconfined");
  BOOST_REQUIRE(!nl);
  BOOST_TEST(nl.error().what() == "process.apparmorProfile: a control character in the profile name");
  BOOST_TEST(!apparmor::exec_attr_text(std::string("a\0b", 3)));
}

// The per-LSM attribute (Linux 5.1+) first, the generic one only without it.
BOOST_AUTO_TEST_CASE(exec_attribute_path) {
  BOOST_TEST(apparmor::exec_attr_path(true) == "thread-self/attr/apparmor/exec");
  BOOST_TEST(apparmor::exec_attr_path(false) == "thread-self/attr/exec");
}

// On kernels without the per-LSM directory the generic attribute is AppArmor's only if it
// reads as an AppArmor label.
BOOST_AUTO_TEST_CASE(generic_attribute_label) {
  BOOST_TEST(apparmor::looks_like_label("unconfined\n"));
  BOOST_TEST(apparmor::looks_like_label("docker-default (enforce)\n"));
  BOOST_TEST(apparmor::looks_like_label("/usr/bin/foo (complain)"));
  BOOST_TEST(!apparmor::looks_like_label("system_u:system_r:kernel_t:s0\n"));  // SELinux
  BOOST_TEST(!apparmor::looks_like_label("_\n"));                                // Smack
  BOOST_TEST(!apparmor::looks_like_label(""));
  BOOST_TEST(!apparmor::looks_like_label(" (enforce)"));
}

// The kernel's answer agrees with the module parameter runc reads.
BOOST_AUTO_TEST_CASE(kernel_answer_matches_the_module) {
  auto param = read_file("/sys/module/apparmor/parameters/enabled", 64);
  bool module_on = param && !param->empty() && (*param)[0] == 'Y';
  BOOST_TEST_MESSAGE("apparmor module parameter: " << (param ? *param : param.error().what()));
  BOOST_TEST(apparmor::kernel_answers() == module_on);
}

// The launch plan's handle: opened where AppArmor answers, a clear refusal elsewhere.
BOOST_AUTO_TEST_CASE(open_exec_attribute_or_refuse) {
  if (::geteuid() != 0) {
    BOOST_TEST_MESSAGE("not root: skipped");
    return;
  }
  auto r = test::in_child([]() -> std::string {
    auto fd = apparmor::open_exec_attr();
    if (apparmor::kernel_answers()) return fd ? "" : "not opened: " + fd.error().what();
    if (fd) return "opened on a host without AppArmor";
    if (fd.error().what().find("AppArmor is not enabled on this host") == std::string::npos)
      return "unclear refusal: " + fd.error().what();
    return "";
  });
  test::expect_ok(r);
}

// A file mounted over the task's attr/current (as CVE-2025-52881 mounted over attr files)
// fools a plain open (the control), never the launch plan: it reads a private procfs, and
// even through /proc it never crosses a mount.
BOOST_AUTO_TEST_CASE(overmounted_attribute_not_believed) {
  if (::geteuid() != 0 || apparmor::kernel_answers()) {
    BOOST_TEST_MESSAGE("not root, or AppArmor on: skipped");
    return;
  }
  char tmpl[] = "/tmp/apparmor-fake.XXXXXX";
  int tfd = ::mkstemp(tmpl);
  BOOST_REQUIRE(tfd >= 0);
  BOOST_REQUIRE(::write(tfd, "unconfined\n", 11) == 11);
  ::close(tfd);
  std::string fake = tmpl;
  auto r = test::in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) < 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) < 0)
      return "no private mount namespace";
    std::string target = "/proc/" + std::to_string(::getpid()) + "/task/" + std::to_string(::gettid()) + "/attr/current";
    if (::mount(fake.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) < 0) return "bind over " + target + " failed";
    auto plain = read_file("/proc/thread-self/attr/current", 64);
    if (!plain || *plain != "unconfined\n") return "control: the overmount did not take";
    if (apparmor::kernel_answers()) return "believed the overmount through /proc";
    auto fd = apparmor::open_exec_attr();
    if (fd) return "opened the exec attribute under an overmount";
    return "";
  });
  ::unlink(tmpl);
  test::expect_ok(r);
}
