#define BOOST_TEST_MODULE seccomp
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <string>

#include "runtime/linux/seccomp.hpp"
#include "tests/unit/fork_child.hpp"

using namespace sh;
using sh::test::ChildResult;
using sh::test::expect_ok;
using sh::test::in_child;

namespace {

oci::SeccompSyscall rule(std::vector<std::string> names, std::string action, std::optional<uint32_t> ret = {},
                         std::vector<oci::SeccompArg> args = {}) {
  return oci::SeccompSyscall{std::move(names), std::move(action), ret, std::move(args)};
}

oci::Seccomp allow_by_default(std::vector<oci::SeccompSyscall> rules) {
  oci::Seccomp s;
  s.default_action = "SCMP_ACT_ALLOW";
  s.architectures = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"};
  s.syscalls = std::move(rules);
  return s;
}

// Load in the child; no_new_privs so that loading needs no CAP_SYS_ADMIN.
std::string load(const seccomp::Filter& f) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return "PR_SET_NO_NEW_PRIVS failed";
  auto r = f.load();
  return r ? "" : r.error().what();
}

// "" if `ret`/errno are as expected, else a description.
std::string expect_errno(const char* what, long ret, int want) {
  int e = errno;
  if (want == 0 && ret >= 0) return "";
  if (want != 0 && ret < 0 && e == want) return "";
  return std::string(what) + ": ret " + std::to_string(ret) + " errno " + std::to_string(e) + " (wanted " +
         std::to_string(want) + "); ";
}

// The error text of a failed result, "" otherwise (Boost evaluates messages even on success).
std::string why(const Result<seccomp::Filter>& r) { return r ? "" : r.error().what(); }

std::string compile_error(const oci::Seccomp& s) {
  auto f = seccomp::Filter::compile(s);
  return f ? "" : f.error().what();
}

}  // namespace

BOOST_AUTO_TEST_CASE(actions) {
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_ALLOW", {}) == SCMP_ACT_ALLOW);
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_KILL", {}) == SCMP_ACT_KILL_THREAD);
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_KILL_THREAD", {}) == SCMP_ACT_KILL_THREAD);
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_KILL_PROCESS", {}) == SCMP_ACT_KILL_PROCESS);
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_TRAP", {}) == SCMP_ACT_TRAP);
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_LOG", {}) == SCMP_ACT_LOG);
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_NOTIFY", {}) == SCMP_ACT_NOTIFY);
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_ERRNO", {}) == SCMP_ACT_ERRNO(EPERM));
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_ERRNO", 38u) == SCMP_ACT_ERRNO(38));
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_TRACE", {}) == SCMP_ACT_TRACE(EPERM));
  BOOST_TEST(*seccomp::parse_action("SCMP_ACT_TRACE", 7u) == SCMP_ACT_TRACE(7));
  BOOST_TEST(!seccomp::parse_action("SCMP_ACT_ERRNO", 70000u));
  auto bad = seccomp::parse_action("SCMP_ACT_FOO", {});
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what() == "unknown action \"SCMP_ACT_FOO\"");
}

BOOST_AUTO_TEST_CASE(operators) {
  BOOST_TEST(*seccomp::parse_op("SCMP_CMP_NE") == SCMP_CMP_NE);
  BOOST_TEST(*seccomp::parse_op("SCMP_CMP_LT") == SCMP_CMP_LT);
  BOOST_TEST(*seccomp::parse_op("SCMP_CMP_LE") == SCMP_CMP_LE);
  BOOST_TEST(*seccomp::parse_op("SCMP_CMP_EQ") == SCMP_CMP_EQ);
  BOOST_TEST(*seccomp::parse_op("SCMP_CMP_GE") == SCMP_CMP_GE);
  BOOST_TEST(*seccomp::parse_op("SCMP_CMP_GT") == SCMP_CMP_GT);
  BOOST_TEST(*seccomp::parse_op("SCMP_CMP_MASKED_EQ") == SCMP_CMP_MASKED_EQ);
  BOOST_TEST(!seccomp::parse_op("SCMP_CMP_XX"));
}

BOOST_AUTO_TEST_CASE(architectures) {
  BOOST_TEST(*seccomp::parse_arch("SCMP_ARCH_X86_64") == SCMP_ARCH_X86_64);
  BOOST_TEST(*seccomp::parse_arch("SCMP_ARCH_X86") == SCMP_ARCH_X86);
  BOOST_TEST(*seccomp::parse_arch("SCMP_ARCH_X32") == SCMP_ARCH_X32);
  BOOST_TEST(*seccomp::parse_arch("SCMP_ARCH_AARCH64") == SCMP_ARCH_AARCH64);
  BOOST_TEST(*seccomp::parse_arch("SCMP_ARCH_ARM") == SCMP_ARCH_ARM);
  BOOST_TEST(*seccomp::parse_arch("SCMP_ARCH_S390X") == SCMP_ARCH_S390X);
  BOOST_TEST(*seccomp::parse_arch("SCMP_ARCH_RISCV64") == SCMP_ARCH_RISCV64);
  auto bad = seccomp::parse_arch("SCMP_ARCH_Z80");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what() == "unknown architecture \"SCMP_ARCH_Z80\"");
}

BOOST_AUTO_TEST_CASE(compile_errors_name_the_field) {
  auto s = allow_by_default({rule({"getpid"}, "SCMP_ACT_ERRNO"), rule({"getppid"}, "SCMP_ACT_LOG"),
                             rule({"getuid"}, "SCMP_ACT_FOO")});
  BOOST_TEST(compile_error(s) == "seccomp: linux.seccomp.syscalls[2].action: unknown action \"SCMP_ACT_FOO\"");

  s = allow_by_default({});
  s.default_action = "SCMP_ACT_NOPE";
  BOOST_TEST(compile_error(s).find("linux.seccomp.defaultAction: unknown action") != std::string::npos);

  s = allow_by_default({});
  s.architectures.push_back("SCMP_ARCH_Z80");
  BOOST_TEST(compile_error(s) == "seccomp: linux.seccomp.architectures[3]: unknown architecture \"SCMP_ARCH_Z80\"");

  s = allow_by_default({});
  s.flags = {"SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_BOGUS"};
  BOOST_TEST(compile_error(s) == "seccomp: linux.seccomp.flags[1]: unknown flag \"SECCOMP_FILTER_FLAG_BOGUS\"");

  s = allow_by_default({rule({"getpid"}, "SCMP_ACT_ERRNO", {}, {{0, 1, 0, "SCMP_CMP_APPROX"}})});
  BOOST_TEST(compile_error(s) ==
             "seccomp: linux.seccomp.syscalls[0].args[0].op: unknown operator \"SCMP_CMP_APPROX\"");

  s = allow_by_default({rule({"getpid"}, "SCMP_ACT_ERRNO", {}, {{6, 1, 0, "SCMP_CMP_EQ"}})});
  BOOST_TEST(compile_error(s).find("args[0].index: 6 out of range") != std::string::npos);

  s = allow_by_default({rule({"getpid"}, "SCMP_ACT_NOTIFY")});
  BOOST_TEST(compile_error(s).find("SCMP_ACT_NOTIFY needs linux.seccomp.listenerPath") != std::string::npos);

  s = allow_by_default({});
  s.listener_path = "/run/listener.sock";
  s.default_action = "SCMP_ACT_NOTIFY";
  BOOST_TEST(compile_error(s).find("defaultAction") != std::string::npos);

  s = allow_by_default({rule({}, "SCMP_ACT_ERRNO")});
  BOOST_TEST(compile_error(s).find("syscalls[0].names") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(wait_killable_recv_needs_newer_libseccomp) {
  auto s = allow_by_default({});
  s.flags = {"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"};
  auto err = compile_error(s);
  if (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR < 6)
    BOOST_TEST(err.find("needs libseccomp >= 2.6.0") != std::string::npos);
  else
    BOOST_TEST(err == "");
}

BOOST_AUTO_TEST_CASE(compiles_what_runc_accepts) {
  // Unknown syscalls are skipped, rules equal to the default are skipped, TSYNC is implicit.
  auto s = allow_by_default({rule({"no_such_syscall_xyz", "getpid"}, "SCMP_ACT_ERRNO"),
                             rule({"getppid"}, "SCMP_ACT_ALLOW"), rule({"socket"}, "SCMP_ACT_ERRNO", 97u),
                             rule({"socketcall"}, "SCMP_ACT_ERRNO", 97u)});
  s.flags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"};
  BOOST_TEST(compile_error(s) == "");

  s.default_action = "SCMP_ACT_ERRNO";
  s.default_errno_ret = 1;
  s.syscalls = {rule({"getpid"}, "SCMP_ACT_ERRNO", 1u), rule({"read"}, "SCMP_ACT_ALLOW")};
  BOOST_TEST(compile_error(s) == "");
}

BOOST_AUTO_TEST_CASE(errno_rules_in_a_real_filter) {
  auto f = seccomp::Filter::compile(allow_by_default({
      rule({"mkdir", "mkdirat"}, "SCMP_ACT_ERRNO"),
      rule({"getcwd"}, "SCMP_ACT_ERRNO", 38u),
  }));
  BOOST_REQUIRE_MESSAGE(f, why(f));
  BOOST_TEST(!f->empty());
  expect_ok(in_child([&] {
    std::string r = load(*f);
    if (!r.empty()) return r;
    r += expect_errno("mkdir", mkdir("/tmp/sharness-seccomp-test-dir", 0700), EPERM);
    r += expect_errno("mkdirat", syscall(SYS_mkdirat, AT_FDCWD, "/tmp/sharness-seccomp-test-dir", 0700), EPERM);
    char buf[256];
    r += expect_errno("getcwd", syscall(SYS_getcwd, buf, sizeof buf), 38);
    r += expect_errno("getpid", getpid(), 0);
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(default_action_and_errno_ret) {
  // Deny by default with errno 1; allow only what the child needs to report and exit.
  oci::Seccomp s;
  s.default_action = "SCMP_ACT_ERRNO";
  s.default_errno_ret = EACCES;
  s.syscalls = {rule({"write", "exit", "exit_group", "rt_sigreturn", "brk", "mmap", "munmap", "futex"},
                     "SCMP_ACT_ALLOW")};
  auto f = seccomp::Filter::compile(s);
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&] {
    std::string r = load(*f);
    if (!r.empty()) return r;
    // Strings short enough for SSO: malloc may need syscalls this filter denies.
    if (syscall(SYS_getppid) != -1 || errno != EACCES) return std::string("getppid");
    if (syscall(SYS_getuid) != -1 || errno != EACCES) return std::string("getuid");
    return std::string();
  }));
}

BOOST_AUTO_TEST_CASE(argument_condition) {
  // personality(0xffffffff) only queries: allow it, refuse any change.
  auto f = seccomp::Filter::compile(
      allow_by_default({rule({"personality"}, "SCMP_ACT_ERRNO", {}, {{0, 0xffffffff, 0, "SCMP_CMP_NE"}})}));
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&] {
    std::string r = load(*f);
    if (!r.empty()) return r;
    r += expect_errno("personality(query)", personality(0xffffffff), 0);
    r += expect_errno("personality(PER_LINUX32)", personality(PER_LINUX32), EPERM);
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(same_argument_twice_is_or) {
  // As runc: two conditions on arg 0 become two rules, so either value is refused.
  auto f = seccomp::Filter::compile(allow_by_default({rule({"personality"}, "SCMP_ACT_ERRNO", 22u,
                                                           {{0, PER_LINUX32, 0, "SCMP_CMP_EQ"},
                                                            {0, unsigned(PER_LINUX) | ADDR_NO_RANDOMIZE, 0, "SCMP_CMP_EQ"}})}));
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&] {
    std::string r = load(*f);
    if (!r.empty()) return r;
    r += expect_errno("personality(PER_LINUX32)", personality(PER_LINUX32), EINVAL);
    r += expect_errno("personality(ADDR_NO_RANDOMIZE)", personality(unsigned(PER_LINUX) | ADDR_NO_RANDOMIZE), EINVAL);
    r += expect_errno("personality(PER_LINUX)", personality(PER_LINUX), 0);
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(different_arguments_are_and) {
  // getpriority(PRIO_PROCESS, 424242) is refused; PRIO_PROCESS with another pid, or another
  // `which` with that id, is not.
  auto f = seccomp::Filter::compile(allow_by_default({rule(
      {"getpriority"}, "SCMP_ACT_ERRNO", 13u, {{0, PRIO_PROCESS, 0, "SCMP_CMP_EQ"}, {1, 424242, 0, "SCMP_CMP_EQ"}})}));
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&] {
    std::string r = load(*f);
    if (!r.empty()) return r;
    r += expect_errno("both match", syscall(SYS_getpriority, PRIO_PROCESS, 424242), EACCES);
    r += expect_errno("first only", syscall(SYS_getpriority, PRIO_PROCESS, 0), 0);
    r += expect_errno("second only", syscall(SYS_getpriority, PRIO_PGRP, 424242), ESRCH);
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(masked_eq) {
  // Refuse any personality with ADDR_NO_RANDOMIZE set: (arg0 & mask) == mask.
  auto f = seccomp::Filter::compile(allow_by_default({rule({"personality"}, "SCMP_ACT_ERRNO", {},
                                                           {{0, ADDR_NO_RANDOMIZE, ADDR_NO_RANDOMIZE,
                                                             "SCMP_CMP_MASKED_EQ"}})}));
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&] {
    std::string r = load(*f);
    if (!r.empty()) return r;
    r += expect_errno("with flag", personality(unsigned(PER_LINUX32) | ADDR_NO_RANDOMIZE), EPERM);
    r += expect_errno("without flag", personality(PER_LINUX), 0);
    return r;
  }));
}

BOOST_AUTO_TEST_CASE(kill_and_trap) {
  for (const char* action : {"SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL", "SCMP_ACT_TRAP"}) {
    BOOST_TEST_CONTEXT(action) {
      auto f = seccomp::Filter::compile(allow_by_default({rule({"getppid"}, action)}));
      BOOST_REQUIRE_MESSAGE(f, why(f));
      auto r = in_child([&] {
        std::string err = load(*f);
        if (!err.empty()) return err;
        syscall(SYS_getppid);
        return std::string("survived getppid");
      });
      BOOST_TEST(WIFSIGNALED(r.status));
      BOOST_TEST(WTERMSIG(r.status) == SIGSYS);
      BOOST_TEST(r.report == "");
    }
  }
}

BOOST_AUTO_TEST_CASE(log_action_allows) {
  auto f = seccomp::Filter::compile(allow_by_default({rule({"getppid"}, "SCMP_ACT_LOG")}));
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&] {
    std::string r = load(*f);
    return r.empty() ? expect_errno("getppid", syscall(SYS_getppid), 0) : r;
  }));
}

BOOST_AUTO_TEST_CASE(notify_returns_listener_fd) {
  auto s = allow_by_default({rule({"getppid"}, "SCMP_ACT_NOTIFY")});
  s.listener_path = "/run/sharness-test-listener.sock";
  auto f = seccomp::Filter::compile(s);
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&]() -> std::string {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return "PR_SET_NO_NEW_PRIVS failed";
    auto fd = f->load();
    if (!fd) return fd.error().what();
    if (!*fd) return "no notify fd";
    if (!(fcntl(fd->get(), F_GETFD) & FD_CLOEXEC)) return "notify fd is not close-on-exec";
    return "";
  }));
}

BOOST_AUTO_TEST_CASE(notify_on_unknown_syscalls_only_has_no_listener) {
  auto s = allow_by_default({rule({"no_such_syscall_xyz"}, "SCMP_ACT_NOTIFY")});
  s.listener_path = "/run/sharness-test-listener.sock";
  auto f = seccomp::Filter::compile(s);
  BOOST_REQUIRE_MESSAGE(f, why(f));
  expect_ok(in_child([&]() -> std::string {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return "PR_SET_NO_NEW_PRIVS failed";
    auto fd = f->load();
    if (!fd) return fd.error().what();
    return *fd ? "unexpected notify fd" : "";
  }));
}

BOOST_AUTO_TEST_CASE(empty_filter_loads_nothing) {
  seccomp::Filter f;
  BOOST_TEST(f.empty());
  auto r = f.load();
  BOOST_REQUIRE(r);
  BOOST_TEST(!*r);
}
