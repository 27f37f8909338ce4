// Device rules on cgroup v2 (runtime/linux/cgroups_v2_devices.cpp): the rule semantics, and,
// as root with a cgroup2 hierarchy (pure v2, or the unified one of a hybrid host), the eBPF
// program the kernel runs, seen from a process inside the cgroup.
#define BOOST_TEST_MODULE cgroup_devices
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/cgroups_impl.hpp"

namespace cg = sh::cgroups;
namespace v2 = sh::cgroups::detail::v2;
using sh::oci::DeviceRule;

namespace {

DeviceRule rule(bool allow, std::string type, std::optional<int64_t> major, std::optional<int64_t> minor,
                std::string access) {
  return DeviceRule{allow, std::move(type), major, minor, std::move(access)};
}

v2::DeviceFilter filter(const std::vector<DeviceRule>& rules) {
  auto f = v2::device_filter(rules);
  BOOST_TEST_REQUIRE(f.has_value(), (f ? "" : f.error().what()));
  return *f;
}

// What every container gets with no rules of its own (as runc builds it).
std::vector<DeviceRule> container_defaults() { return cg::container_device_rules({}, {}, false); }

}  // namespace

BOOST_AUTO_TEST_CASE(defaults_allow_the_standard_nodes_only) {
  auto f = filter(container_defaults());
  BOOST_TEST(!f.default_allow);
  BOOST_TEST(v2::allows(f, 'c', 1, 3, "rw"));    // null
  BOOST_TEST(v2::allows(f, 'c', 1, 9, "r"));     // urandom
  BOOST_TEST(v2::allows(f, 'c', 136, 4, "rw"));  // a pty
  BOOST_TEST(v2::allows(f, 'c', 5, 2, "rw"));    // ptmx
  BOOST_TEST(v2::allows(f, 'b', 8, 0, "m"));     // mknod of anything, as runc
  BOOST_TEST(!v2::allows(f, 'b', 8, 0, "r"));    // but no disk
  BOOST_TEST(!v2::allows(f, 'c', 1, 1, "r"));    // /dev/mem
  BOOST_TEST(!v2::allows(f, 'c', 1, 11, "w"));   // /dev/kmsg
  BOOST_TEST(!v2::allows(f, 'c', 10, 200, "rw"));  // /dev/net/tun is not added
  BOOST_TEST(v2::allows(f, 'c', 1, 3, "rwm"));
}

BOOST_AUTO_TEST_CASE(allow_all_resets_and_later_rules_win) {
  // A privileged container: deny-all, then allow-all.
  auto all = filter({rule(false, "a", {}, {}, "rwm"), rule(true, "a", {}, {}, "rwm")});
  BOOST_TEST(all.default_allow);
  BOOST_TEST(all.rules.empty());
  BOOST_TEST(v2::allows(all, 'b', 8, 0, "rw"));
  // What comes after the reset still counts, later rules winning.
  auto f = filter({rule(true, "a", {}, {}, "rwm"), rule(false, "c", 1, 1, "rwm"), rule(true, "c", 1, {}, "r")});
  BOOST_TEST(f.default_allow);
  BOOST_TEST(v2::allows(f, 'c', 1, 1, "r"));   // the later allow of c 1:* r
  BOOST_TEST(!v2::allows(f, 'c', 1, 1, "w"));  // the deny still holds for w
  BOOST_TEST(!v2::allows(f, 'c', 1, 1, "rw"));
  BOOST_TEST(v2::allows(f, 'b', 7, 0, "rw"));
}

BOOST_AUTO_TEST_CASE(each_access_bit_decided_on_its_own) {
  // A deny of "w" stops an open for read-write (runc's filter would let it through).
  auto f = filter({rule(false, "a", {}, {}, "rwm"), rule(true, "c", 1, 3, "rwm"), rule(false, "c", 1, 3, "w")});
  BOOST_TEST(v2::allows(f, 'c', 1, 3, "r"));
  BOOST_TEST(!v2::allows(f, 'c', 1, 3, "w"));
  BOOST_TEST(!v2::allows(f, 'c', 1, 3, "rw"));
  // Two allows of one node add up, as v1 merges them.
  auto g = filter({rule(false, "a", {}, {}, "rwm"), rule(true, "c", 1, 5, "r"), rule(true, "c", 1, 5, "w")});
  BOOST_TEST(v2::allows(g, 'c', 1, 5, "rw"));
  BOOST_TEST(!v2::allows(g, 'c', 1, 5, "m"));
  // An "a" rule with numbers matches both kinds; one without access rwm is not a reset.
  auto h = filter({rule(false, "a", {}, {}, "rwm"), rule(true, "a", 4, {}, "r"), rule(true, "a", {}, {}, "m")});
  BOOST_TEST(!h.default_allow);
  BOOST_TEST(v2::allows(h, 'b', 4, 1, "r"));
  BOOST_TEST(v2::allows(h, 'c', 4, 1, "r"));
  BOOST_TEST(!v2::allows(h, 'c', 5, 1, "r"));
  BOOST_TEST(v2::allows(h, 'c', 5, 1, "m"));
}

BOOST_AUTO_TEST_CASE(bad_rules_are_refused_naming_them) {
  auto t = v2::device_filter({rule(false, "a", {}, {}, "rwm"), rule(true, "x", 1, 3, "r")});
  BOOST_TEST_REQUIRE(!t.has_value());
  BOOST_TEST(t.error().what().find("linux.resources.devices[1].type") != std::string::npos);
  auto a = v2::device_filter({rule(true, "c", 1, 3, "rx")});
  BOOST_TEST_REQUIRE(!a.has_value());
  BOOST_TEST(a.error().what().find("linux.resources.devices[0].access") != std::string::npos);
  auto n = v2::device_filter({rule(true, "c", int64_t(1) << 33, 3, "r")});
  BOOST_TEST_REQUIRE(!n.has_value());
  BOOST_TEST(n.error().what().find("linux.resources.devices[0].major") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(program_shape) {
  // Ends in "return 1", every jump lands inside the program, nothing follows an exit but a
  // jump target (the verifier refuses unreachable code); an unconditional rule ends a bit's list.
  for (const auto& rules : {container_defaults(),
                            std::vector<DeviceRule>{rule(true, "a", {}, {}, "rwm"), rule(false, "a", {}, {}, "w")},
                            std::vector<DeviceRule>{rule(false, "a", {}, {}, "rwm"), rule(true, "a", {}, {}, "m"),
                                                    rule(true, "c", 1, 3, "m")}}) {
    auto prog = v2::device_program(filter(rules));
    BOOST_TEST_REQUIRE(prog.size() > 2u);
    BOOST_TEST(prog.back().code == (BPF_JMP | BPF_EXIT));
    BOOST_TEST(prog[prog.size() - 2].imm == 1);
    std::vector<bool> target(prog.size() + 1, false);
    for (size_t i = 0; i < prog.size(); ++i) {
      uint8_t cls = BPF_CLASS(prog[i].code);
      if (cls == BPF_JMP && BPF_OP(prog[i].code) != BPF_EXIT) {
        long to = long(i) + 1 + prog[i].off;
        BOOST_TEST_REQUIRE((to > long(i) && to < long(prog.size())));
        target[size_t(to)] = true;
      }
    }
    for (size_t i = 0; i + 1 < prog.size(); ++i) {
      bool ends = prog[i].code == (BPF_JMP | BPF_EXIT) || prog[i].code == (BPF_JMP | BPF_JA);
      if (ends) BOOST_TEST(target[i + 1], "instruction " << i + 1 << " is unreachable");
    }
  }
}

// ---- the real kernel (root, cgroup2) ---------------------------------------------------------
namespace {

// A pure v2 view of this host's cgroup2 hierarchy (the unified one on a hybrid host: the
// kernel runs a cgroup2 device program whatever the v1 devices controller says).
std::optional<cg::Layout> v2_layout() {
  if (geteuid() != 0) return std::nullopt;
  auto l = cg::detect_layout();
  if (!l || l->unified_mount.empty()) return std::nullopt;
  cg::Layout v = *l;
  v.mode = cg::Mode::v2;
  v.v1_mounts.clear();
  return v;
}

// In a child born in `cgroup_fd`: 0 when `op` succeeded, else its errno.
template <class F>
int in_cgroup(int cgroup_fd, F&& op) {
  struct clone_args args = {};
  args.flags = cgroup_fd >= 0 ? CLONE_INTO_CGROUP : 0;
  args.exit_signal = SIGCHLD;
  args.cgroup = uint64_t(cgroup_fd < 0 ? 0 : cgroup_fd);
  long child = syscall(SYS_clone3, &args, sizeof args);
  if (child == 0) _exit(op());
  BOOST_TEST_REQUIRE(child > 0);
  int status = 0;
  BOOST_TEST_REQUIRE(waitpid(pid_t(child), &status, 0) == child);
  BOOST_TEST_REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

int open_errno(const char* path, int flags) {
  int fd = open(path, flags | O_CLOEXEC);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

int mknod_errno(const std::string& path, unsigned major, unsigned minor) {
  if (mknod(path.c_str(), S_IFCHR | 0600, makedev(major, minor)) < 0) return errno;
  unlink(path.c_str());
  return 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(kernel_program_enforces_from_inside) {
  auto l = v2_layout();
  if (!l) {
    BOOST_TEST_MESSAGE("skipped: needs root and a cgroup2 hierarchy");
    return;
  }
  std::string parent = "/sharness-unit-dev-" + std::to_string(getpid());
  cg::Cgroup c(*l, parent + "/c");
  sh::oci::Resources res;
  res.devices = container_defaults();
  auto cr = c.create(&res);
  BOOST_TEST_REQUIRE(cr.has_value(), (cr ? "" : cr.error().what()));
  auto fd = c.open_v2_dir();
  BOOST_TEST_REQUIRE(fd.has_value());
  std::string dir = std::filesystem::temp_directory_path() / ("sharness-dev-" + std::to_string(getpid()));
  mkdir(dir.c_str(), 0700);

  // /dev/full (1:7) is allowed, /dev/kmsg (1:11) is not: inside, open of the one works and of
  // the other is EPERM; mknod of another kmsg node is allowed (m on every char device, as
  // runc) but opening it is EPERM. Outside the cgroup (the control) every one of them works.
  for (int cgfd : {-1, *fd}) {
    bool inside = cgfd >= 0;
    BOOST_TEST_MESSAGE((inside ? "inside" : "outside") << " the cgroup");
    BOOST_TEST(in_cgroup(cgfd, [] { return open_errno("/dev/full", O_WRONLY); }) == 0);
    BOOST_TEST(in_cgroup(cgfd, [] { return open_errno("/dev/kmsg", O_RDONLY); }) == (inside ? EPERM : 0));
    BOOST_TEST(in_cgroup(cgfd, [&] {
                 std::string node = dir + "/kmsg";
                 if (mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 11)) < 0) return errno + 1000;
                 int e = open_errno(node.c_str(), O_RDONLY);
                 unlink(node.c_str());
                 return e;
               }) == (inside ? EPERM : 0));
  }
  // Block devices: mknod allowed, open refused.
  BOOST_TEST(in_cgroup(*fd, [&] { return mknod_errno(dir + "/sda", 8, 0); }) == 0);
  close(*fd);
  rmdir(dir.c_str());
  BOOST_TEST_REQUIRE(c.destroy().has_value());
  rmdir((l->unified_mount + parent).c_str());
}

BOOST_AUTO_TEST_CASE(kernel_no_mknod_rule_refuses_mknod) {
  auto l = v2_layout();
  if (!l) {
    BOOST_TEST_MESSAGE("skipped: needs root and a cgroup2 hierarchy");
    return;
  }
  std::string parent = "/sharness-unit-dev-" + std::to_string(getpid());
  cg::Cgroup c(*l, parent + "/exact");
  sh::oci::Resources res;
  res.devices = cg::container_device_rules({rule(true, "c", 1, 3, "rw")}, {}, true);  // a policy's exact list
  BOOST_TEST_REQUIRE(c.create(&res).has_value());
  auto fd = c.open_v2_dir();
  BOOST_TEST_REQUIRE(fd.has_value());
  std::string node = std::filesystem::temp_directory_path() / ("sharness-null-" + std::to_string(getpid()));
  BOOST_TEST(in_cgroup(*fd, [] { return open_errno("/dev/null", O_RDWR); }) == 0);
  BOOST_TEST(in_cgroup(*fd, [] { return open_errno("/dev/zero", O_RDONLY); }) == EPERM);
  BOOST_TEST(in_cgroup(*fd, [&] { return mknod_errno(node, 1, 3); }) == EPERM);
  BOOST_TEST(in_cgroup(-1, [&] { return mknod_errno(node, 1, 3); }) == 0);  // the control
  close(*fd);
  BOOST_TEST_REQUIRE(c.destroy().has_value());
  rmdir((l->unified_mount + parent).c_str());
}
