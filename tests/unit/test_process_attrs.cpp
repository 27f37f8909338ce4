#define BOOST_TEST_MODULE process_attrs
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/capability.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <string>

#include "runtime/linux/process_attrs.hpp"
#include "tests/unit/fork_child.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace sh;
using sh::test::ChildResult;
using sh::test::expect_ok;
using sh::test::in_child;

namespace {

std::string err_text(const Result<void>& r) { return r ? "" : r.error().what(); }

// Make sure this process cannot raise hard limits, whatever it runs as.
bool drop_sys_resource() {
  cap_t c = cap_get_proc();
  cap_value_t v = CAP_SYS_RESOURCE;
  bool ok = c && cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_CLEAR) == 0 && cap_set_proc(c) == 0;
  if (c) cap_free(c);
  return ok;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rlimit_names) {
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_AS") == RLIMIT_AS);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_CORE") == RLIMIT_CORE);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_CPU") == RLIMIT_CPU);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_DATA") == RLIMIT_DATA);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_FSIZE") == RLIMIT_FSIZE);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_LOCKS") == RLIMIT_LOCKS);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_MEMLOCK") == RLIMIT_MEMLOCK);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_MSGQUEUE") == RLIMIT_MSGQUEUE);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_NICE") == RLIMIT_NICE);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_NOFILE") == RLIMIT_NOFILE);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_NPROC") == RLIMIT_NPROC);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_RSS") == RLIMIT_RSS);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_RTPRIO") == RLIMIT_RTPRIO);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_RTTIME") == RLIMIT_RTTIME);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_SIGPENDING") == RLIMIT_SIGPENDING);
  BOOST_TEST(*procattr::rlimit_resource("RLIMIT_STACK") == RLIMIT_STACK);
  auto bad = procattr::rlimit_resource("RLIMIT_FOO");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what() == "unknown rlimit \"RLIMIT_FOO\"");
}

BOOST_AUTO_TEST_CASE(lower_nofile) {
  expect_ok(in_child([] {
    // resource -1: resolved from the name.
    auto r = procattr::apply_rlimits({{"RLIMIT_NOFILE", -1, 512, 256}, {"RLIMIT_CORE", RLIMIT_CORE, 0, 0}});
    if (!r) return r.error().what();
    struct rlimit l {};
    getrlimit(RLIMIT_NOFILE, &l);
    std::string out;
    if (l.rlim_cur != 256 || l.rlim_max != 512)
      out += "NOFILE is " + std::to_string(l.rlim_cur) + "/" + std::to_string(l.rlim_max) + "; ";
    getrlimit(RLIMIT_CORE, &l);
    if (l.rlim_cur != 0 || l.rlim_max != 0) out += "CORE not 0; ";
    return out;
  }));
}

BOOST_AUTO_TEST_CASE(raising_hard_limit_says_why) {
  auto r = in_child([] {
    if (!drop_sys_resource()) return std::string("could not drop CAP_SYS_RESOURCE");
    if (auto r0 = procattr::apply_rlimits({{"RLIMIT_NOFILE", RLIMIT_NOFILE, 512, 512}}); !r0) return err_text(r0);
    return err_text(procattr::apply_rlimits({{"RLIMIT_NOFILE", RLIMIT_NOFILE, 1048576, 1048576}}));
  });
  BOOST_TEST(r.report ==
             "setrlimit RLIMIT_NOFILE (soft 1048576, hard 1048576): EPERM (Operation not permitted) "
             "(raising a hard limit needs CAP_SYS_RESOURCE; current hard limit 512)");
}

BOOST_AUTO_TEST_CASE(soft_above_hard_is_refused) {
  auto r = in_child([] { return err_text(procattr::apply_rlimits({{"RLIMIT_NOFILE", RLIMIT_NOFILE, 100, 200}})); });
  BOOST_TEST(r.report == "setrlimit RLIMIT_NOFILE (soft 200, hard 100): EINVAL (Invalid argument)");
}

BOOST_AUTO_TEST_CASE(oom_score_adj) {
  expect_ok(in_child([] {
    // Raising the score needs no privilege; lowering it would need CAP_SYS_RESOURCE.
    if (auto r = procattr::apply_oom_score_adj(900); !r) return r.error().what();
    std::ifstream in("/proc/self/oom_score_adj");
    int v = 0;
    in >> v;
    return v == 900 ? std::string() : "oom_score_adj is " + std::to_string(v);
  }));
  auto r = in_child([] {
    if (!drop_sys_resource()) return std::string("could not drop CAP_SYS_RESOURCE");
    if (auto r0 = procattr::apply_oom_score_adj(900); !r0) return err_text(r0);
    return err_text(procattr::apply_oom_score_adj(-500));
  });
  BOOST_TEST(r.report.find("set oom_score_adj to -500: write /proc/self/oom_score_adj") == 0);
  BOOST_TEST(r.report.find("needs CAP_SYS_RESOURCE") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(scheduler) {
  expect_ok(in_child([] {
    oci::Scheduler s;
    s.policy = "SCHED_BATCH";
    s.nice = 5;
    s.flags = {"SCHED_FLAG_RESET_ON_FORK"};
    if (auto r = procattr::apply_scheduler(s); !r) return r.error().what();
    std::string out;
    int pol = sched_getscheduler(0);
    if (pol != (SCHED_BATCH | SCHED_RESET_ON_FORK)) out += "policy is " + std::to_string(pol) + "; ";
    if (getpriority(PRIO_PROCESS, 0) != 5) out += "nice not 5; ";
    s = {};
    s.policy = "SCHED_IDLE";
    // Unprivileged, neither a lower nice nor dropping reset-on-fork is allowed.
    s.nice = 5;
    s.flags = {"SCHED_FLAG_RESET_ON_FORK"};
    if (auto r = procattr::apply_scheduler(s); !r) return out + r.error().what();
    if (sched_getscheduler(0) != (SCHED_IDLE | SCHED_RESET_ON_FORK)) out += "not SCHED_IDLE; ";
    return out;
  }));
  oci::Scheduler bad;
  bad.policy = "SCHED_FAST";
  BOOST_TEST(err_text(procattr::apply_scheduler(bad)) == "process.scheduler.policy: unknown policy \"SCHED_FAST\"");
  bad.policy = "SCHED_OTHER";
  bad.flags = {"SCHED_FLAG_TURBO"};
  BOOST_TEST(err_text(procattr::apply_scheduler(bad)) == "process.scheduler.flags: unknown flag \"SCHED_FLAG_TURBO\"");
}

BOOST_AUTO_TEST_CASE(io_priority) {
  expect_ok(in_child([] {
    if (auto r = procattr::apply_io_priority({"IOPRIO_CLASS_BE", 6}); !r) return r.error().what();
    long v = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0);
    return v == ((2 << 13) | 6) ? std::string() : "ioprio is " + std::to_string(v);
  }));
  BOOST_TEST(err_text(procattr::apply_io_priority({"IOPRIO_CLASS_FAST", 1})).find("unknown class") !=
             std::string::npos);
  BOOST_TEST(err_text(procattr::apply_io_priority({"IOPRIO_CLASS_BE", 9})).find("out of range") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(personality_domain) {
  expect_ok(in_child([] {
    if (auto r = procattr::apply_personality({"LINUX32", {}}); !r) return r.error().what();
    int p = personality(0xffffffff);
    return p == PER_LINUX32 ? std::string() : "personality is " + std::to_string(p);
  }));
  BOOST_TEST(err_text(procattr::apply_personality({"WINDOWS", {}})) ==
             "linux.personality.domain: unknown domain \"WINDOWS\"");
}

BOOST_AUTO_TEST_CASE(user_and_groups) {
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root");
    return;
  }
  expect_ok(in_child([] {
    oci::User u;
    u.uid = 1000;
    u.gid = 1000;
    u.additional_gids = {1000, 2000};
    u.umask = 027;
    if (auto r = procattr::apply_user(u, true); !r) return r.error().what();
    std::string out;
    uid_t ru, eu, su;
    gid_t rg, eg, sg;
    getresuid(&ru, &eu, &su);
    getresgid(&rg, &eg, &sg);
    if (ru != 1000 || eu != 1000 || su != 1000) out += "uids not 1000; ";
    if (rg != 1000 || eg != 1000 || sg != 1000) out += "gids not 1000; ";
    gid_t groups[16];
    int n = getgroups(16, groups);
    if (n != 2 || groups[0] != 1000 || groups[1] != 2000) out += "groups are wrong (" + std::to_string(n) + "); ";
    mode_t old = umask(0);
    if (old != 027) out += "umask not 027; ";
    return out;
  }));
}

BOOST_AUTO_TEST_CASE(user_without_groups_clears_them) {
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root");
    return;
  }
  expect_ok(in_child([] {
    gid_t g = 4242;
    setgroups(1, &g);
    oci::User u;
    u.uid = 1001;
    u.gid = 1001;
    if (auto r = procattr::apply_user(u, true); !r) return r.error().what();
    return getgroups(0, nullptr) == 0 ? std::string() : std::string("supplementary groups left");
  }));
}

BOOST_AUTO_TEST_CASE(user_errors_name_the_ids) {
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root");
    return;
  }
  auto r = in_child([] {
    oci::User first;
    first.uid = 1000;
    first.gid = 1000;
    if (auto r0 = procattr::apply_user(first, true); !r0) return err_text(r0);
    // Now unprivileged: a change of gid must fail and say to which gid.
    oci::User second;
    second.uid = 0;
    second.gid = 0;
    return err_text(procattr::apply_user(second, false));
  });
  BOOST_TEST(r.report == "setresgid to gid 0: EPERM (Operation not permitted)");
}

// HOME as runc sets it when the env lacks it: the uid's home in the container's /etc/passwd,
// "/" without an entry.
BOOST_AUTO_TEST_CASE(home_from_passwd) {
  const std::string pw = "root:x:0:0:root:/root:/bin/sh\nbad line\nnobody:x:65534:65534::/nonexistent:/bin/false\n"
                         "u:x:1000:1000:U,,,:/home/u:/bin/sh";
  BOOST_TEST(procattr::home_in_passwd(pw, 0) == "/root");
  BOOST_TEST(procattr::home_in_passwd(pw, 1000) == "/home/u");
  BOOST_TEST(procattr::home_in_passwd(pw, 65534) == "/nonexistent");
  BOOST_TEST(procattr::home_in_passwd(pw, 42) == "/");
  BOOST_TEST(procattr::home_in_passwd("", 0) == "/");
  BOOST_TEST(procattr::home_in_passwd("x:x:10:10::", 10) == "/");  // an empty home: the default
}

// The passwd file is read inside the root: a symlink to the host's file resolves in the root.
BOOST_AUTO_TEST_CASE(container_home_stays_in_the_root) {
  sh::test::TempDir root("home-root"), outside("home-outside");
  std::filesystem::create_directories(root.path / "etc");
  std::ofstream(outside / "passwd") << "root:x:0:0::/escaped:/bin/sh\n";
  std::filesystem::create_symlink(outside / "passwd", root.path / "etc/passwd");
  int fd = ::open(root.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  BOOST_REQUIRE(fd >= 0);
  BOOST_TEST(procattr::container_home(fd, 0) == "/");  // the link's target is not in the root
  std::filesystem::remove(root.path / "etc/passwd");
  std::ofstream(root / "etc/passwd") << "root:x:0:0::/root:/bin/sh\n";
  BOOST_TEST(procattr::container_home(fd, 0) == "/root");
  std::filesystem::remove(root.path / "etc/passwd");
  BOOST_TEST(::mkfifo((root / "etc/passwd").c_str(), 0600) == 0);
  BOOST_TEST(procattr::container_home(fd, 0) == "/");  // not a regular file: never blocks
  ::close(fd);
}
