// Syscall groups: every member exists on x86_64, nesting expands, unknown groups are errors.
#define BOOST_TEST_MODULE policy_groups
#include <boost/test/unit_test.hpp>

#include <seccomp.h>

#include "spec-mapping/syscall_groups.hpp"

using namespace sh;
using namespace sh::policy;

BOOST_AUTO_TEST_CASE(every_member_is_an_x86_64_syscall) {
  for (const auto& g : group_names()) {
    auto members = expand_group(g);
    BOOST_REQUIRE(members);
    BOOST_TEST(!members->empty(), g);
    for (const auto& n : *members)
      BOOST_TEST(seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, n.c_str()) >= 0, g << ": " << n);
  }
}

BOOST_AUTO_TEST_CASE(the_groups_systemd_documents_are_there) {
  for (auto g : {"@aio", "@basic-io", "@chown", "@clock", "@debug", "@default", "@file-system", "@io-event", "@ipc",
                 "@keyring", "@memlock", "@module", "@mount", "@network-io", "@process", "@raw-io", "@reboot",
                 "@resources", "@setuid", "@signal", "@swap", "@sync", "@system-service", "@timer"})
    BOOST_TEST(is_group(g), g);
}

BOOST_AUTO_TEST_CASE(nesting_and_mixing) {
  auto svc = expand_group("@system-service");
  BOOST_REQUIRE(svc);
  for (auto g : {"@basic-io", "@default", "@file-system", "@network-io", "@process", "@signal"}) {
    auto members = expand_group(g);  // named: a range-for over *temporary would dangle
    for (const auto& n : *members) BOOST_TEST(svc->contains(n), g << " " << n);
  }
  // What DESIGN.md §2 denies is in no everyday group.
  for (auto n : {"ptrace", "mount", "unshare", "setns", "bpf", "keyctl", "io_uring_setup", "userfaultfd",
                 "perf_event_open", "kexec_load", "init_module", "pivot_root", "chroot", "swapon", "reboot"})
    BOOST_TEST(!svc->contains(n), n);
  auto mixed = expand({"@signal", "read", "openat"});
  BOOST_REQUIRE(mixed);
  BOOST_TEST(mixed->contains("rt_sigaction"));
  BOOST_TEST(mixed->contains("read"));
  BOOST_TEST(mixed->contains("openat"));
}

BOOST_AUTO_TEST_CASE(unknown_group) {
  auto r = expand({"@nope"});
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what() == "unknown syscall group \"@nope\"");
  BOOST_TEST(!is_group("@nope"));
}
