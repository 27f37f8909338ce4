#define BOOST_TEST_MODULE cgroups
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <new>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/cgroups_impl.hpp"

namespace cg = sh::cgroups;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

bool has_word(const std::string& text, const std::string& w) {
  std::istringstream in(text);
  for (std::string t; in >> t;)
    if (t == w) return true;
  return false;
}

std::string resolve(std::optional<std::string> p, const std::string& id = "c1", bool systemd = false) {
  auto r = cg::resolve_path(p, id, systemd);
  return r ? *r : "ERROR: " + r.error().what();
}

bool is_error(const std::string& s) { return s.starts_with("ERROR: "); }

// This machine's mountinfo, trimmed to the cgroup lines plus one unrelated mount.
const char* kHybrid =
    "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
    "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

}  // namespace

// ---- resolve_path ---------------------------------------------------------------------------
BOOST_AUTO_TEST_CASE(resolve_path_default_and_plain) {
  BOOST_TEST(resolve(std::nullopt) == "/sharness/c1");
  BOOST_TEST(resolve(std::string()) == "/sharness/c1");
  BOOST_TEST(resolve("/docker/abc") == "/docker/abc");
  BOOST_TEST(resolve("kubepods/burstable/pod1/abc") == "/kubepods/burstable/pod1/abc");
  BOOST_TEST(resolve("//a/./b//") == "/a/b");
  // Colons are ordinary characters without --systemd-cgroup.
  BOOST_TEST(resolve("machine.slice:libpod:abc") == "/machine.slice:libpod:abc");
}

BOOST_AUTO_TEST_CASE(resolve_path_refuses_escapes) {
  BOOST_TEST(is_error(resolve("/a/../../etc")));
  BOOST_TEST(is_error(resolve("../x")));
  BOOST_TEST(is_error(resolve("/a/..")));
  BOOST_TEST(is_error(resolve("/")));   // the root cgroup: destroy() would kill the host
  BOOST_TEST(is_error(resolve("/./")));
  BOOST_TEST(is_error(resolve(std::nullopt, "..")));
  BOOST_TEST(is_error(resolve(std::nullopt, "a/b")));
  BOOST_TEST(!is_error(resolve("/a/..b/c..")));  // only whole ".." components are special
}

BOOST_AUTO_TEST_CASE(resolve_path_systemd_slices) {
  BOOST_TEST(resolve("machine.slice:libpod:abc", "c1", true) == "/machine.slice/libpod-abc.scope");
  BOOST_TEST(resolve("user-1000.slice:podman:x", "c1", true) == "/user.slice/user-1000.slice/podman-x.scope");
  BOOST_TEST(resolve("a-b-c.slice:p:x", "c1", true) == "/a.slice/a-b.slice/a-b-c.slice/p-x.scope");
  BOOST_TEST(resolve(":runc:x", "c1", true) == "/system.slice/runc-x.scope");
  BOOST_TEST(resolve("-.slice:p:x", "c1", true) == "/p-x.scope");
  BOOST_TEST(resolve("system.slice::x", "c1", true) == "/system.slice/x.scope");
  BOOST_TEST(resolve(std::nullopt, "c1", true) == "/sharness/c1");
  BOOST_TEST(is_error(resolve("/plain/path", "c1", true)));
  BOOST_TEST(is_error(resolve("a.slice:p:../x", "c1", true)));
  BOOST_TEST(is_error(resolve("a--b.slice:p:x", "c1", true)));
  BOOST_TEST(is_error(resolve("notaslice:p:x", "c1", true)));
  BOOST_TEST(is_error(resolve("a.slice:p:", "c1", true)));
}

// ---- small conversions ------------------------------------------------------------------------
BOOST_AUTO_TEST_CASE(shares_to_weight_matches_runc) {
  BOOST_TEST(cg::shares_to_weight(0) == 0u);
  BOOST_TEST(cg::shares_to_weight(2) == 1u);
  BOOST_TEST(cg::shares_to_weight(1024) == 39u);
  BOOST_TEST(cg::shares_to_weight(262144) == 10000u);
  BOOST_TEST(cg::shares_to_weight(1) == 1u);         // clamped, no unsigned wrap
  BOOST_TEST(cg::shares_to_weight(1u << 30) == 10000u);
  BOOST_TEST(cg::detail::v2::blkio_to_io_weight(10) == 1u);
  BOOST_TEST(cg::detail::v2::blkio_to_io_weight(1000) == 10000u);
  BOOST_TEST(cg::detail::v2::blkio_to_io_weight(500) == 4950u);
}

BOOST_AUTO_TEST_CASE(device_rule_strings) {
  sh::oci::DeviceRule all;
  BOOST_TEST(cg::device_rule_string(all) == "a *:* rwm");
  sh::oci::DeviceRule null{true, "c", 1, 3, "rwm"};
  BOOST_TEST(cg::device_rule_string(null) == "c 1:3 rwm");
  sh::oci::DeviceRule disks{false, "b", 8, std::nullopt, "r"};
  BOOST_TEST(cg::device_rule_string(disks) == "b 8:* r");
  sh::oci::DeviceRule wild{true, "c", -1, -1, "m"};  // runc's wildcard spelling
  BOOST_TEST(cg::device_rule_string(wild) == "c *:* m");
}

BOOST_AUTO_TEST_CASE(unified_keys) {
  using cg::detail::v2::check_unified_key;
  BOOST_TEST(check_unified_key("memory.high").has_value());
  BOOST_TEST(check_unified_key("cgroup.max.depth").has_value());
  BOOST_TEST(!check_unified_key("../memory.max").has_value());
  BOOST_TEST(!check_unified_key("a/memory.max").has_value());
  BOOST_TEST(!check_unified_key("..").has_value());
  BOOST_TEST(!check_unified_key("memory..max").has_value());
  BOOST_TEST(!check_unified_key("nodot").has_value());
  BOOST_TEST(!check_unified_key("cgroup.procs").has_value());
  BOOST_TEST(!check_unified_key("cgroup.kill").has_value());
}

// ---- layout detection ---------------------------------------------------------------------------
BOOST_AUTO_TEST_CASE(layout_hybrid) {
  auto l = cg::parse_layout(kHybrid, "hugetlb\n");
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(cg::mode_name(l->mode) == "hybrid");
  BOOST_TEST(l->unified_mount == "/sys/fs/cgroup/unified");
  BOOST_TEST(l->v1_mounts.size() == 9u);
  BOOST_TEST(l->v1_mounts.at("memory") == "/sys/fs/cgroup/memory");
  BOOST_TEST(l->v1_mounts.at("name=systemd") == "/sys/fs/cgroup/systemd");
  BOOST_TEST(l->v2_controllers == std::vector<std::string>{"hugetlb"});

  auto hs = cg::detail::hierarchies(*l);
  BOOST_TEST(hs.size() == 10u);  // nine v1 mounts and the unified one
  BOOST_TEST(hs.back().v2);
  BOOST_TEST(std::count_if(hs.begin(), hs.end(), [](auto& h) { return h.cpuset_v1; }) == 1);
  auto mem = cg::detail::hierarchy_for(*l, "memory", "memory");
  BOOST_TEST_REQUIRE(mem.has_value());
  BOOST_TEST(!mem->v2);
  auto huge = cg::detail::hierarchy_for(*l, "hugetlb", "hugetlb");
  BOOST_TEST_REQUIRE(huge.has_value());
  BOOST_TEST(huge->v2);
  BOOST_TEST(huge->mount == "/sys/fs/cgroup/unified");
  BOOST_TEST(!cg::detail::hierarchy_for(*l, "net_cls", "").has_value());

  cg::Cgroup c(*l, "/sharness/x");
  BOOST_TEST(c.dir_for("memory") == "/sys/fs/cgroup/memory/sharness/x");
  BOOST_TEST(c.dir_for("hugetlb") == "/sys/fs/cgroup/unified/sharness/x");
  BOOST_TEST(c.dir_for("") == "/sys/fs/cgroup/unified/sharness/x");
  BOOST_TEST(c.dir_for("net_cls") == "");
  BOOST_TEST(*c.open_v2_dir() == -1);
}

// A tmpfs mounted over the unified hierarchy (as the bench and conformance/lib.sh do for
// crun) hides it: the host is then pure v1 for us too. A mount elsewhere hides nothing.
BOOST_AUTO_TEST_CASE(layout_covered_mount_is_ignored) {
  std::string covered = std::string(kHybrid) +
                        "99 30 0:90 / /sys/fs/cgroup/unified rw,relatime - tmpfs tmpfs rw\n";
  auto l = cg::parse_layout(covered);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(cg::mode_name(l->mode) == "v1");
  BOOST_TEST(l->unified_mount.empty());
  BOOST_TEST(l->v1_mounts.size() == 9u);
  std::string parent = std::string(kHybrid) + "99 1 0:90 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n";
  auto none = cg::parse_layout(parent);
  BOOST_TEST(!none.has_value());  // everything under the new tmpfs is hidden
  std::string beside = std::string(kHybrid) + "99 30 0:90 / /sys/fs/cgroup/unifiedx rw - tmpfs tmpfs rw\n";
  auto still = cg::parse_layout(beside);
  BOOST_TEST_REQUIRE(still.has_value());
  BOOST_TEST(cg::mode_name(still->mode) == "hybrid");
}

BOOST_AUTO_TEST_CASE(layout_pure_v2) {
  const char* mi =
      "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
      "rw,nsdelegate,memory_recursiveprot\n";
  auto l = cg::parse_layout(mi, "cpuset cpu io memory hugetlb pids rdma misc\n");
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(cg::mode_name(l->mode) == "v2");
  BOOST_TEST(l->unified_mount == "/sys/fs/cgroup");
  BOOST_TEST(l->v2_controllers.size() == 8u);
  BOOST_TEST(cg::detail::hierarchies(*l).size() == 1u);
  cg::Cgroup c(*l, "/sharness/x");
  BOOST_TEST(c.dir_for("blkio") == "/sys/fs/cgroup/sharness/x");  // io on v2
  BOOST_TEST(c.dir_for("freezer") == "");
}

BOOST_AUTO_TEST_CASE(layout_pure_v1_comounted_and_escaped) {
  const char* mi =
      "25 24 0:22 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,xattr,cpu,cpuacct\n"
      "26 24 0:23 / /sys/fs/cgroup/my\\040memory rw - cgroup cgroup rw,memory,release_agent=/x\n"
      "27 24 0:24 / /sys/fs/cgroup/systemd rw shared:9 - cgroup cgroup rw,xattr,name=systemd\n";
  auto l = cg::parse_layout(mi);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(cg::mode_name(l->mode) == "v1");
  BOOST_TEST(l->unified_mount.empty());
  BOOST_TEST(l->v1_mounts.size() == 4u);  // cpu, cpuacct, memory, name=systemd
  BOOST_TEST(l->v1_mounts.at("cpu") == l->v1_mounts.at("cpuacct"));
  BOOST_TEST(l->v1_mounts.at("memory") == "/sys/fs/cgroup/my memory");
  BOOST_TEST(!l->v1_mounts.contains("xattr"));
  BOOST_TEST(cg::detail::hierarchies(*l).size() == 3u);
}

// Every field of a mountinfo line, escapes and optional tags included (the layout reads it).
BOOST_AUTO_TEST_CASE(mountinfo_fields) {
  auto m = sh::proc::parse_mountinfo(
      "36 35 98:0 /mnt\\040a /a\\011b rw,noatime master:1 shared:7 - ext3 /dev/root rw,errors=continue\n"
      "\n37 36 0:5 / /proc rw - proc proc\n",
      "test");
  BOOST_TEST_REQUIRE(m.has_value());
  BOOST_TEST_REQUIRE(m->size() == 2u);
  const auto& a = (*m)[0];
  BOOST_TEST(a.id == 36);
  BOOST_TEST(a.parent == 35);
  BOOST_TEST(a.root == "/mnt a");
  BOOST_TEST(a.mount_point == "/a\tb");
  BOOST_TEST(a.options == "rw,noatime");
  BOOST_TEST(a.optional == "master:1 shared:7");
  BOOST_TEST(a.fstype == "ext3");
  BOOST_TEST(a.source == "/dev/root");
  BOOST_TEST(a.super_options == "rw,errors=continue");
  BOOST_TEST((*m)[1].super_options.empty());
  BOOST_TEST((*m)[1].optional.empty());
  BOOST_TEST(!sh::proc::parse_mountinfo("1 2 3 / /x rw -\n", "test").has_value());
}

BOOST_AUTO_TEST_CASE(layout_edge_cases) {
  // A bind of a sub-cgroup seen first: the hierarchy's root mount wins.
  const char* binds =
      "50 40 0:32 /docker/abc /mnt/memory rw - cgroup cgroup rw,memory\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
  auto l = cg::parse_layout(binds);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(l->v1_mounts.at("memory") == "/sys/fs/cgroup/memory");
  // cgroup2 with only a named v1 hierarchy beside it is a v2 host.
  const char* v2named =
      "30 22 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
      "31 22 0:27 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n";
  auto l2 = cg::parse_layout(v2named);
  BOOST_TEST_REQUIRE(l2.has_value());
  BOOST_TEST(cg::mode_name(l2->mode) == "v2");
  BOOST_TEST(!cg::parse_layout("22 1 8:1 / / rw - ext4 /dev/sda1 rw\ngarbage\n\n").has_value());
}

BOOST_AUTO_TEST_CASE(unified_refused_off_v2_before_touching_anything) {
  auto l = cg::parse_layout(kHybrid, "hugetlb");
  BOOST_TEST_REQUIRE(l.has_value());
  sh::oci::Resources res;
  res.unified["memory.high"] = "1000000";
  // A path nobody can create: the error must come before any mkdir.
  cg::Cgroup c(*l, "/sharness-never-created/x");
  auto r = c.create(&res);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().what() == "linux.resources.unified: requires cgroup v2");
  BOOST_TEST(!fs::exists("/sys/fs/cgroup/memory/sharness-never-created"));
}

// ---- translation on fake hierarchies (tmpfs, no root) -------------------------------------------
namespace {

struct FakeTree {
  std::string root;
  FakeTree() {
    char tmpl[] = "/tmp/sharness-cgtest-XXXXXX";
    root = mkdtemp(tmpl);
    cg::detail::allow_any_fs_for_tests(true);
  }
  ~FakeTree() {
    cg::detail::allow_any_fs_for_tests(false);
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  // Create dir `rel` under `mount` holding empty `files`.
  void dir(const std::string& rel, std::initializer_list<const char*> files) {
    fs::create_directories(root + rel);
    for (auto f : files) put(root + rel + "/" + f, "");
  }
  std::string at(const std::string& rel) const { return slurp(root + rel); }
};

}  // namespace

// A daemon that closes every fd it inherited (the KMS gate does) must not leave the kept root
// of a hierarchy pointing at whatever reuses the number: the next operation opens it again and
// never closes the stranger's fd.
BOOST_AUTO_TEST_CASE(kept_root_closed_under_us_is_reopened_not_reused) {
  FakeTree t;
  t.dir("", {"cgroup.subtree_control"});
  t.dir("/a", {"cgroup.subtree_control", "pids.max", "cgroup.procs"});
  cg::Layout l;
  l.mode = cg::Mode::v2;
  l.unified_mount = t.root;
  l.v2_controllers = {"pids"};
  sh::oci::Resources res;
  res.pids = sh::oci::PidsResources{7};
  BOOST_REQUIRE(cg::Cgroup(l, "/a").update(res));
  auto kept = cg::kept_root_fds();
  BOOST_REQUIRE_EQUAL(kept.size(), 1u);
  ::close(kept[0]);
  int stranger = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // takes the lowest free number
  BOOST_REQUIRE_EQUAL(stranger, kept[0]);
  res.pids = sh::oci::PidsResources{9};
  auto again = cg::Cgroup(l, "/a").update(res);
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(t.at("/a/pids.max") == "9");
  BOOST_TEST(::fcntl(stranger, F_GETFD) >= 0);  // still open: not closed as if it were ours
  ::close(stranger);
  cg::close_kept_roots();
}

BOOST_AUTO_TEST_CASE(v2_translation_on_fake_tree) {
  FakeTree t;
  t.dir("", {"cgroup.subtree_control"});
  t.dir("/a", {"cgroup.subtree_control"});
  t.dir("/a/b", {"memory.max", "memory.low", "memory.swap.max", "cpu.max", "cpu.weight", "cpu.max.burst",
                 "pids.max", "io.weight", "io.max", "hugetlb.2MB.max", "cpuset.cpus", "cpuset.mems",
                 "memory.high"});
  put(t.root + "/a/b/cpu.max", "max 100000\n");
  cg::Layout l;
  l.mode = cg::Mode::v2;
  l.unified_mount = t.root;
  l.v2_controllers = {"cpuset", "cpu", "io", "memory", "hugetlb", "pids"};
  cg::Cgroup c(l, "/a/b");

  sh::oci::Resources res;
  res.memory.emplace();
  res.memory->limit = 64 << 20;
  res.memory->swap = 96 << 20;  // memory+swap: v2 gets the swap part alone
  res.memory->reservation = 32 << 20;
  res.cpu.emplace();
  res.cpu->shares = 1024;
  res.cpu->quota = 50000;
  res.cpu->burst = 1000;
  res.cpu->cpus = "0";
  res.cpu->mems = "0";
  res.pids.emplace();
  res.pids->limit = 0;
  res.block_io.emplace();
  res.block_io->weight = 500;
  res.block_io->throttle_read_bps.push_back({8, 0, {}, {}, 1048576});
  res.block_io->throttle_write_iops.push_back({8, 0, {}, {}, 0});
  res.hugepage_limits.push_back({"2MB", 4 << 20});
  res.unified["memory.high"] = "50000000";
  auto r = c.update(res);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().what()));
  BOOST_TEST(t.at("/a/b/memory.max") == "67108864");
  BOOST_TEST(t.at("/a/b/memory.swap.max") == "33554432");
  BOOST_TEST(t.at("/a/b/memory.low") == "33554432");
  BOOST_TEST(t.at("/a/b/cpu.weight") == "39");
  BOOST_TEST(t.at("/a/b/cpu.max") == "50000");  // the kernel keeps the period
  BOOST_TEST(t.at("/a/b/cpu.max.burst") == "1000");
  BOOST_TEST(t.at("/a/b/cpuset.cpus") == "0");
  BOOST_TEST(t.at("/a/b/pids.max") == "max");
  BOOST_TEST(t.at("/a/b/io.weight") == "4950");
  BOOST_TEST(t.at("/a/b/io.max") == "8:0 rbps=1048576 wiops=max");
  BOOST_TEST(t.at("/a/b/hugetlb.2MB.max") == "4194304");
  BOOST_TEST(t.at("/a/b/memory.high") == "50000000");
  // Controllers were delegated by both ancestors (a fake file keeps only the last write).
  BOOST_TEST(t.at("/cgroup.subtree_control").starts_with("+"));
  BOOST_TEST(t.at("/a/cgroup.subtree_control").starts_with("+"));

  // A period alone keeps the quota that is there.
  put(t.root + "/a/b/cpu.max", "50000 100000\n");
  sh::oci::Resources per;
  per.cpu.emplace();
  per.cpu->period = 200000;
  BOOST_TEST_REQUIRE(c.update(per).has_value());
  BOOST_TEST(t.at("/a/b/cpu.max") == "50000 200000");

  // Swap without a memory limit cannot be translated; swap below the limit is nonsense.
  sh::oci::Resources bad;
  bad.memory.emplace();
  bad.memory->swap = 1 << 20;
  BOOST_TEST(!c.update(bad).has_value());
  bad.memory->limit = 2 << 20;
  BOOST_TEST(!c.update(bad).has_value());
  // A unified key that walks out of the directory is refused.
  sh::oci::Resources esc;
  esc.unified["../memory.max"] = "1";
  BOOST_TEST(!c.update(esc).has_value());
  // A controller the host lacks is an error naming the resource.
  cg::Layout nol = l;
  nol.v2_controllers = {"cpu"};
  sh::oci::Resources mem;
  mem.memory.emplace();
  mem.memory->limit = 1 << 20;
  auto m = cg::Cgroup(nol, "/a/b").update(mem);
  BOOST_TEST_REQUIRE(!m.has_value());
  BOOST_TEST(m.error().what().starts_with("linux.resources.memory: no memory cgroup controller"));
}

// Docker sends "blockIO": {"weight": 0}: 0 means "not set" (runc and crun skip it); the kernel
// refuses 0 (ERANGE), so writing it would fail every docker run.
BOOST_AUTO_TEST_CASE(blkio_weight_zero_is_unset) {
  FakeTree t;
  t.dir("/blkio/c", {"blkio.bfq.weight", "blkio.leaf_weight", "blkio.bfq.weight_device"});
  t.dir("/v2", {"cgroup.subtree_control"});
  t.dir("/v2/c", {"io.weight"});
  put(t.root + "/blkio/c/blkio.bfq.weight", "untouched");
  put(t.root + "/blkio/c/blkio.leaf_weight", "untouched");
  put(t.root + "/blkio/c/blkio.bfq.weight_device", "untouched");
  put(t.root + "/v2/c/io.weight", "untouched");
  sh::oci::Resources res;
  res.block_io.emplace();
  res.block_io->weight = 0;
  res.block_io->leaf_weight = 0;
  res.block_io->weight_device.push_back({8, 0, 0, 0, {}});
  cg::Layout l1;
  l1.mode = cg::Mode::v1;
  l1.v1_mounts["blkio"] = t.root + "/blkio";
  auto r1 = cg::Cgroup(l1, "/c").update(res);
  BOOST_TEST_REQUIRE(r1.has_value(), (r1 ? "" : r1.error().what()));
  BOOST_TEST(t.at("/blkio/c/blkio.bfq.weight") == "untouched");
  BOOST_TEST(t.at("/blkio/c/blkio.leaf_weight") == "untouched");
  BOOST_TEST(t.at("/blkio/c/blkio.bfq.weight_device") == "untouched");
  cg::Layout l2;
  l2.mode = cg::Mode::v2;
  l2.unified_mount = t.root + "/v2";
  l2.v2_controllers = {"io"};
  auto r2 = cg::Cgroup(l2, "/c").update(res);
  BOOST_TEST_REQUIRE(r2.has_value(), (r2 ? "" : r2.error().what()));
  BOOST_TEST(t.at("/v2/c/io.weight") == "untouched");
  // and a real weight is still written
  res.block_io->weight = 300;
  BOOST_TEST_REQUIRE(cg::Cgroup(l1, "/c").update(res).has_value());
  BOOST_TEST(t.at("/blkio/c/blkio.bfq.weight") == "300");
}

BOOST_AUTO_TEST_CASE(v1_translation_on_fake_tree) {
  FakeTree t;
  t.dir("/memory/c", {"memory.limit_in_bytes", "memory.soft_limit_in_bytes", "memory.swappiness",
                      "memory.oom_control"});  // no memsw: swap accounting off
  t.dir("/cpu/c", {"cpu.shares", "cpu.cfs_quota_us", "cpu.cfs_period_us"});
  t.dir("/pids/c", {"pids.max"});
  t.dir("/blkio/c", {"blkio.bfq.weight", "blkio.throttle.read_bps_device"});
  t.dir("/devices/c", {"devices.allow", "devices.deny"});
  cg::Layout l;
  l.mode = cg::Mode::v1;
  for (auto c : {"memory", "cpu", "pids", "blkio", "devices"}) l.v1_mounts[c] = t.root + "/" + c;
  cg::Cgroup c(l, "/c");

  sh::oci::Resources res;
  res.memory.emplace();
  res.memory->limit = 64 << 20;
  res.memory->swap = 128 << 20;  // warned about, not applied
  res.memory->kernel = 1 << 20;  // deprecated: ignored
  res.memory->reservation = 32 << 20;
  res.memory->swappiness = 10;
  res.memory->disable_oom_killer = true;
  res.cpu.emplace();
  res.cpu->shares = 512;
  res.cpu->quota = -1;
  res.cpu->period = 100000;
  res.pids.emplace();
  res.pids->limit = 7;
  res.block_io.emplace();
  res.block_io->weight = 300;
  res.block_io->throttle_read_bps.push_back({8, 16, {}, {}, 4096});
  res.devices.push_back({false, "a", std::nullopt, std::nullopt, "rwm"});
  res.devices.push_back({true, "c", 1, 3, "rwm"});
  auto r = c.update(res);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().what()));
  BOOST_TEST(t.at("/memory/c/memory.limit_in_bytes") == "67108864");
  BOOST_TEST(t.at("/memory/c/memory.soft_limit_in_bytes") == "33554432");
  BOOST_TEST(t.at("/memory/c/memory.swappiness") == "10");
  BOOST_TEST(t.at("/memory/c/memory.oom_control") == "1");
  BOOST_TEST(!fs::exists(t.root + "/memory/c/memory.memsw.limit_in_bytes"));
  BOOST_TEST(t.at("/cpu/c/cpu.shares") == "512");
  BOOST_TEST(t.at("/cpu/c/cpu.cfs_quota_us") == "-1");
  BOOST_TEST(t.at("/cpu/c/cpu.cfs_period_us") == "100000");
  BOOST_TEST(t.at("/pids/c/pids.max") == "7");
  BOOST_TEST(t.at("/blkio/c/blkio.bfq.weight") == "300");
  BOOST_TEST(t.at("/blkio/c/blkio.throttle.read_bps_device") == "8:16 4096");
  BOOST_TEST(t.at("/devices/c/devices.deny") == "a");
  BOOST_TEST(t.at("/devices/c/devices.allow") == "c 1:3 rwm");

  // Errors name the file.
  sh::oci::Resources huge;
  huge.hugepage_limits.push_back({"2MB", 1});
  auto h = c.update(huge);
  BOOST_TEST_REQUIRE(!h.has_value());
  BOOST_TEST(h.error().what().find("hugepageLimits") != std::string::npos);
  fs::remove(t.root + "/pids/c/pids.max");
  sh::oci::Resources p;
  p.pids.emplace();
  auto e = c.update(p);
  BOOST_TEST_REQUIRE(!e.has_value());
  BOOST_TEST(e.error().what() == "open " + t.root + "/pids/c/pids.max: ENOENT (No such file or directory)");
  // A symlink inside the tree is never followed.
  fs::create_directory_symlink(t.root + "/memory/c", t.root + "/pids/link");
  BOOST_TEST(!cg::Cgroup(l, "/link").update(p).has_value());
  // The hierarchy root is never a container's cgroup.
  BOOST_TEST(!cg::Cgroup(l, "/").destroy().has_value());
  BOOST_TEST(!cg::Cgroup(l, "").add_pid(1).has_value());
}

// ---- the real kernel (root) ---------------------------------------------------------------------
namespace {

bool can_use_kernel() {
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root");
    return false;
  }
  if (!cg::detect_layout()) {
    BOOST_TEST_MESSAGE("skipped: no cgroup layout");
    return false;
  }
  return true;
}

// Everything the kernel tests create sits under this parent; the destructor sweeps it.
struct KernelScope {
  cg::Layout layout;
  std::string parent = "/sharness-unit-" + std::to_string(getpid());
  std::vector<pid_t> children;

  std::string unified_sc;  // the unified root's delegation, which create() may extend

  KernelScope() : layout(*cg::detect_layout()) {
    if (!layout.unified_mount.empty()) unified_sc = slurp(layout.unified_mount + "/cgroup.subtree_control");
  }
  ~KernelScope() {
    for (pid_t p : children) {
      kill(p, SIGKILL);
      waitpid(p, nullptr, 0);
    }
    for (const auto& h : cg::detail::hierarchies(layout)) {
      std::error_code ec;
      if (!fs::exists(h.mount + parent, ec)) continue;
      // Deepest first; cgroupfs refuses remove_all's unlink of control files.
      std::vector<fs::path> dirs;
      for (auto& e : fs::recursive_directory_iterator(h.mount + parent, ec))
        if (e.is_directory() && !e.is_symlink()) dirs.push_back(e.path());
      std::sort(dirs.rbegin(), dirs.rend());
      for (auto& d : dirs) rmdir(d.c_str());
      rmdir((h.mount + parent).c_str());
    }
    // Give back any controller the tests delegated from the unified root.
    if (!layout.unified_mount.empty()) {
      std::istringstream now(slurp(layout.unified_mount + "/cgroup.subtree_control"));
      for (std::string c; now >> c;)
        if (!has_word(unified_sc, c)) put(layout.unified_mount + "/cgroup.subtree_control", "-" + c);
    }
  }
  cg::Cgroup cgroup(const std::string& leaf) { return cg::Cgroup(layout, parent + "/" + leaf); }
  // Nothing at all under the hierarchies: a failed create removes the levels it made.
  bool nothing_left() const {
    for (const auto& h : cg::detail::hierarchies(layout))
      if (fs::exists(h.mount + parent)) {
        BOOST_TEST_MESSAGE("left behind: " << h.mount + parent);
        return false;
      }
    return true;
  }
  // After destroy(): the containers' own directories are gone and the parent stays (as with
  // runc and crun: it may be a client's, e.g. a Kubernetes pod's, with the pod's limits).
  bool only_parent_left() const { return only_parent_left(layout); }
  bool only_parent_left(const cg::Layout& used) const {
    for (const auto& h : cg::detail::hierarchies(used)) {
      std::error_code ec;
      if (!fs::is_directory(h.mount + parent, ec)) {
        BOOST_TEST_MESSAGE("parent removed: " << h.mount + parent);
        return false;
      }
      for (auto& e : fs::directory_iterator(h.mount + parent, ec))
        if (e.is_directory()) {
          BOOST_TEST_MESSAGE("left behind: " << e.path());
          return false;
        }
    }
    return true;
  }
};

// A child that ticks a shared counter every millisecond, so freezing is observable.
pid_t ticking_child(std::atomic<uint64_t>* counter) {
  pid_t p = fork();
  if (p == 0) {
    for (;;) {
      counter->fetch_add(1);
      usleep(1000);
    }
  }
  return p;
}

std::string proc_state(pid_t p) {
  std::ifstream in("/proc/" + std::to_string(p) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("State:")) return line;
  return "";
}

}  // namespace

namespace {

bool has_ctrl(const cg::Layout& l, const char* name) {
  return cg::detail::hierarchy_for(l, name, name).has_value();
}

// The same hierarchies seen as pure v1 (the v1 mounts alone) or pure v2 (the unified mount
// alone): on a hybrid host this runs the v1-only and v2-only code paths for real.
std::optional<cg::Layout> view(const cg::Layout& l, cg::Mode m) {
  if (l.mode == m) return l;
  if (l.mode != cg::Mode::hybrid) return std::nullopt;
  cg::Layout v = l;
  v.mode = m;
  if (m == cg::Mode::v1) {
    v.unified_mount.clear();
    v.v2_controllers.clear();
  } else {
    v.v1_mounts.clear();
  }
  return v;
}

// create -> add a child -> read back -> freeze/thaw -> pids -> stats -> destroy while frozen.
void lifecycle(KernelScope& k, const cg::Layout& l, const std::string& leaf) {
  BOOST_TEST_MESSAGE("lifecycle on cgroup " << cg::mode_name(l.mode));
  cg::Cgroup c(l, k.parent + "/" + leaf);
  bool v2 = l.mode == cg::Mode::v2;
  sh::oci::Resources res;
  if (has_ctrl(l, "memory")) res.memory.emplace().limit = 64 << 20;
  if (has_ctrl(l, "pids")) res.pids.emplace().limit = 7;
  if (has_ctrl(l, "cpu")) {
    res.cpu.emplace().quota = 50000;
    res.cpu->period = 100000;
  }
  if (!v2 && l.v1_mounts.contains("devices")) {
    res.devices.push_back({false, "a", std::nullopt, std::nullopt, "rwm"});
    res.devices.push_back({true, "c", 1, 3, "rwm"});
  }
  auto cr = c.create(&res);
  BOOST_TEST_REQUIRE(cr.has_value(), (cr ? "" : cr.error().what()));

  void* shared = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  BOOST_TEST_REQUIRE(shared != MAP_FAILED);
  auto* counter = new (shared) std::atomic<uint64_t>(0);
  pid_t child = ticking_child(counter);
  BOOST_TEST_REQUIRE(child > 0);
  k.children.push_back(child);
  auto ar = c.add_pid(child);
  BOOST_TEST_REQUIRE(ar.has_value(), (ar ? "" : ar.error().what()));

  // The kernel holds what we asked for.
  if (res.memory)
    BOOST_TEST(slurp(c.dir_for("memory") + (v2 ? "/memory.max" : "/memory.limit_in_bytes")) == "67108864");
  if (res.cpu && v2) BOOST_TEST(slurp(c.dir_for("cpu") + "/cpu.max") == "50000 100000");
  if (res.cpu && !v2) {
    BOOST_TEST(slurp(c.dir_for("cpu") + "/cpu.cfs_quota_us") == "50000");
    BOOST_TEST(slurp(c.dir_for("cpu") + "/cpu.cfs_period_us") == "100000");
  }
  if (res.pids) BOOST_TEST(slurp(c.dir_for("pids") + "/pids.max") == "7");
  if (!res.devices.empty()) BOOST_TEST(slurp(c.dir_for("devices") + "/devices.list") == "c 1:3 rwm");
  std::string proc_cg = slurp("/proc/" + std::to_string(child) + "/cgroup") + "\n";
  BOOST_TEST(proc_cg.find(":" + c.path() + "\n") != std::string::npos);
  if (l.mode != cg::Mode::v1)  // hybrid too: the unified hierarchy holds the process
    BOOST_TEST(proc_cg.find("0::" + c.path()) != std::string::npos);

  // Freeze: the counter stops; thaw: it moves again.
  struct timespec t0, t1, t2;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  auto fr = c.freeze(true);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  BOOST_TEST_REQUIRE(fr.has_value(), (fr ? "" : fr.error().what()));
  BOOST_TEST(*c.is_frozen());
  if (!v2 && l.v1_mounts.contains("freezer"))
    BOOST_TEST(slurp(c.dir_for("freezer") + "/freezer.state") == "FROZEN");
  BOOST_TEST_MESSAGE("frozen child " << proc_state(child));
  uint64_t before = counter->load();
  usleep(50'000);
  BOOST_TEST(counter->load() == before);
  clock_gettime(CLOCK_MONOTONIC, &t2);
  BOOST_TEST_REQUIRE(c.freeze(false).has_value());
  struct timespec t3;
  clock_gettime(CLOCK_MONOTONIC, &t3);
  BOOST_TEST_MESSAGE("freeze " << ((t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3)
                               << " us, thaw " << ((t3.tv_sec - t2.tv_sec) * 1e6 + (t3.tv_nsec - t2.tv_nsec) / 1e3)
                               << " us");
  BOOST_TEST(!*c.is_frozen());
  usleep(50'000);
  BOOST_TEST(counter->load() > before);

  auto ps = c.pids();
  BOOST_TEST_REQUIRE(ps.has_value());
  BOOST_TEST((*ps == std::vector<pid_t>{child}));

  auto st = c.stats();
  BOOST_TEST_REQUIRE(st.has_value(), (st ? "" : st.error().what()));
  if (res.memory) BOOST_TEST(st->memory_limit == uint64_t(64 << 20));
  if (res.pids) {
    BOOST_TEST(st->pids_current == 1u);
    BOOST_TEST(st->pids_limit == 7u);
  }
  BOOST_TEST(st->cpu_usage_ns > 0u);
  BOOST_TEST_MESSAGE("memory usage " << st->memory_usage << ", cpu " << st->cpu_usage_ns << " ns");

  // Destroy a frozen cgroup: thawed, killed, removed, and the shared parent with it.
  BOOST_TEST_REQUIRE(c.freeze(true).has_value());
  auto dr = c.destroy();
  BOOST_TEST_REQUIRE(dr.has_value(), (dr ? "" : dr.error().what()));
  int status = 0;
  BOOST_TEST(waitpid(child, &status, 0) == child);
  k.children.clear();
  BOOST_TEST((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  BOOST_TEST(k.only_parent_left(l));
  BOOST_TEST(c.destroy().has_value());  // gone already: still fine
  munmap(shared, 4096);
}

}  // namespace

BOOST_AUTO_TEST_CASE(kernel_lifecycle) {
  if (!can_use_kernel()) return;
  KernelScope k;
  lifecycle(k, k.layout, "c1");
}

BOOST_AUTO_TEST_CASE(kernel_lifecycle_v1_view) {
  if (!can_use_kernel()) return;
  KernelScope k;
  auto v = view(k.layout, cg::Mode::v1);
  if (!v) {
    BOOST_TEST_MESSAGE("skipped: no v1 hierarchies");
    return;
  }
  lifecycle(k, *v, "c1");
}

BOOST_AUTO_TEST_CASE(kernel_lifecycle_v2_view) {
  if (!can_use_kernel()) return;
  KernelScope k;
  auto v = view(k.layout, cg::Mode::v2);
  if (!v) {
    BOOST_TEST_MESSAGE("skipped: no cgroup2 hierarchy");
    return;
  }
  lifecycle(k, *v, "c1");
}

BOOST_AUTO_TEST_CASE(kernel_v2_clone_into_cgroup) {
  if (!can_use_kernel()) return;
  KernelScope k;
  auto v = view(k.layout, cg::Mode::v2);
  if (!v) {
    BOOST_TEST_MESSAGE("skipped: no cgroup2 hierarchy");
    return;
  }
  cg::Cgroup c(*v, k.parent + "/born");
  BOOST_TEST_REQUIRE(c.create(nullptr).has_value());
  auto fd = c.open_v2_dir();
  BOOST_TEST_REQUIRE(fd.has_value());
  BOOST_TEST_REQUIRE(*fd >= 0);
  struct clone_args args = {};
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = uint64_t(*fd);
  long child = syscall(SYS_clone3, &args, sizeof args);
  if (child == 0)
    for (;;) pause();
  close(*fd);
  BOOST_TEST_REQUIRE(child > 0);
  k.children.push_back(pid_t(child));
  BOOST_TEST((*c.pids() == std::vector<pid_t>{pid_t(child)}));  // born inside, no add_pid
  BOOST_TEST_REQUIRE(c.destroy().has_value());
  int status = 0;
  BOOST_TEST(waitpid(pid_t(child), &status, 0) == child);
  k.children.clear();
  BOOST_TEST((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  BOOST_TEST(k.only_parent_left(*v));
}

// Cgroups a container made below its own (cgroup namespace, writable cgroupfs): pids() lists
// their processes, signal_all and destroy kill them, destroy removes them deepest first.
BOOST_AUTO_TEST_CASE(kernel_v2_nested_cgroups_are_the_containers) {
  if (!can_use_kernel()) return;
  KernelScope k;
  auto v = view(k.layout, cg::Mode::v2);
  if (!v) {
    BOOST_TEST_MESSAGE("skipped: no cgroup2 hierarchy");
    return;
  }
  for (bool via_signal : {true, false}) {
    cg::Cgroup c(*v, k.parent + (via_signal ? "/sig" : "/del"));
    BOOST_TEST_REQUIRE(c.create(nullptr).has_value());
    std::string leaf = c.dir_for("");
    BOOST_TEST_REQUIRE(mkdir((leaf + "/a").c_str(), 0755) == 0);
    BOOST_TEST_REQUIRE(mkdir((leaf + "/a/b").c_str(), 0755) == 0);
    pid_t top = fork();
    if (top == 0)
      for (;;) pause();
    pid_t deep = fork();
    if (deep == 0)
      for (;;) pause();
    k.children = {top, deep};
    BOOST_TEST_REQUIRE(c.add_pid(top).has_value());
    put(leaf + "/a/b/cgroup.procs", std::to_string(deep));
    auto ps = c.pids();
    BOOST_TEST_REQUIRE(ps.has_value());
    std::vector<pid_t> got = *ps, want = {top, deep};
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    BOOST_TEST(got == want);
    if (via_signal) BOOST_TEST_REQUIRE(c.signal_all(SIGKILL).has_value());
    auto dr = c.destroy();
    BOOST_TEST_REQUIRE(dr.has_value(), (dr ? "" : dr.error().what()));
    for (pid_t p : {top, deep}) {
      int status = 0;
      BOOST_TEST(waitpid(p, &status, 0) == p);
      BOOST_TEST((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
    }
    k.children.clear();
    BOOST_TEST(!fs::exists(leaf));
  }
  BOOST_TEST(k.only_parent_left(*v));
}

BOOST_AUTO_TEST_CASE(kernel_shared_parent_survives_sibling) {
  if (!can_use_kernel()) return;
  KernelScope k;
  cg::Cgroup a = k.cgroup("a"), b = k.cgroup("b");
  BOOST_TEST_REQUIRE(a.create(nullptr).has_value());
  BOOST_TEST_REQUIRE(b.create(nullptr).has_value());
  BOOST_TEST_REQUIRE(a.destroy().has_value());
  BOOST_TEST(fs::exists(b.dir_for("memory")));
  BOOST_TEST(!fs::exists(a.dir_for("memory")));
  BOOST_TEST_REQUIRE(b.destroy().has_value());
  BOOST_TEST(k.only_parent_left());
}

// A cpuset parent this runtime makes clones its cpus and mems into each new child at mkdir
// (cgroup.clone_children), which spares every later create a write of cpuset.cpus that the
// kernel checks against all siblings; the leaf and a parent someone else made are left as they are.
BOOST_AUTO_TEST_CASE(kernel_v1_cpuset_parent_made_here_clones_children) {
  if (!can_use_kernel()) return;
  KernelScope k;
  auto h = cg::detail::hierarchy_for(k.layout, "cpuset", "");
  if (!h || h->v2) {
    BOOST_TEST_MESSAGE("skipped: no v1 cpuset hierarchy on this host");
    return;
  }
  const std::string parent = h->mount + k.parent;
  cg::Cgroup a = k.cgroup("a");
  BOOST_TEST_REQUIRE(a.create(nullptr).has_value());  // makes the parent too
  BOOST_TEST(slurp(parent + "/cgroup.clone_children") == "1");
  BOOST_TEST(slurp(a.dir_for("cpuset") + "/cgroup.clone_children") == "0");
  BOOST_TEST(!slurp(a.dir_for("cpuset") + "/cpuset.cpus").empty());
  BOOST_TEST(slurp(a.dir_for("cpuset") + "/cpuset.cpus") == slurp(parent + "/cpuset.cpus"));
  BOOST_TEST(slurp(a.dir_for("cpuset") + "/cpuset.mems") == slurp(parent + "/cpuset.mems"));
  // Control: a parent that already exists (made by someone else, clone_children 0) stays so,
  // and its new child is filled by writes.
  BOOST_TEST_REQUIRE(::mkdir((parent + "/other").c_str(), 0755) == 0);
  put(parent + "/other/cpuset.cpus", slurp(parent + "/cpuset.cpus"));
  put(parent + "/other/cpuset.mems", slurp(parent + "/cpuset.mems"));
  put(parent + "/other/cgroup.clone_children", "0");
  cg::Cgroup b = k.cgroup("other/b");
  auto r = b.create(nullptr);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().what()));
  BOOST_TEST(slurp(parent + "/other/cgroup.clone_children") == "0");
  BOOST_TEST(slurp(b.dir_for("cpuset") + "/cpuset.cpus") == slurp(parent + "/cpuset.cpus"));
  BOOST_TEST_REQUIRE(b.destroy().has_value());
  for (const auto& hh : cg::detail::hierarchies(k.layout)) ::rmdir((hh.mount + k.parent + "/other").c_str());
  BOOST_TEST_REQUIRE(a.destroy().has_value());
  BOOST_TEST(k.only_parent_left());
}

BOOST_AUTO_TEST_CASE(kernel_failed_create_leaves_nothing) {
  if (!can_use_kernel()) return;
  KernelScope k;
  cg::Cgroup c = k.cgroup("bad");
  sh::oci::Resources res;
  res.memory.emplace();
  res.memory->limit = 64 << 20;
  res.cpu.emplace();
  res.cpu->cpus = "4095";  // no such CPU
  auto r = c.create(&res);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST_MESSAGE("error: " << r.error().what());
  BOOST_TEST(r.error().what().starts_with("write " + c.dir_for("cpuset") + "/cpuset.cpus: "));
  BOOST_TEST(k.nothing_left());
}

BOOST_AUTO_TEST_CASE(kernel_v1_memory_and_swap_order) {
  if (!can_use_kernel()) return;
  KernelScope k;
  cg::Cgroup c = k.cgroup("mem");
  std::string dir = c.dir_for("memory");
  if (k.layout.mode == cg::Mode::v2 || !fs::exists(k.layout.v1_mounts["memory"] + "/memory.memsw.limit_in_bytes")) {
    BOOST_TEST_MESSAGE("skipped: needs v1 memory with swap accounting");
    return;
  }
  sh::oci::Resources res;
  res.memory.emplace();
  res.memory->limit = 64 << 20;
  res.memory->swap = 64 << 20;
  BOOST_TEST_REQUIRE(c.create(&res).has_value());
  // Raising both needs memsw first; lowering both needs the limit first.
  res.memory->limit = 256 << 20;
  res.memory->swap = 512 << 20;
  auto up = c.update(*&res);
  BOOST_TEST_REQUIRE(up.has_value(), (up ? "" : up.error().what()));
  BOOST_TEST(slurp(dir + "/memory.limit_in_bytes") == "268435456");
  BOOST_TEST(slurp(dir + "/memory.memsw.limit_in_bytes") == "536870912");
  res.memory->limit = 32 << 20;
  res.memory->swap = 32 << 20;
  BOOST_TEST_REQUIRE(c.update(res).has_value());
  BOOST_TEST(slurp(dir + "/memory.memsw.limit_in_bytes") == "33554432");
  // Unlimited memory lifts memsw with it.
  res.memory->limit = -1;
  res.memory->swap.reset();
  auto un = c.update(res);
  BOOST_TEST_REQUIRE(un.has_value(), (un ? "" : un.error().what()));
  // Swap below the limit is the kernel's EINVAL, naming the file.
  res.memory->limit = 64 << 20;
  res.memory->swap = 32 << 20;
  auto bad = c.update(res);
  BOOST_TEST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().what().find(dir + "/memory.") != std::string::npos);
  BOOST_TEST(bad.error().what().find("EINVAL") != std::string::npos);
  BOOST_TEST_REQUIRE(c.destroy().has_value());
  BOOST_TEST(k.only_parent_left());
}

BOOST_AUTO_TEST_CASE(kernel_hybrid_hugetlb_on_unified) {
  if (!can_use_kernel()) return;
  KernelScope k;
  auto& l = k.layout;
  bool v2_only = l.mode == cg::Mode::hybrid && !l.v1_mounts.contains("hugetlb") &&
                 std::find(l.v2_controllers.begin(), l.v2_controllers.end(), "hugetlb") != l.v2_controllers.end();
  if (!v2_only) {
    BOOST_TEST_MESSAGE("skipped: needs hybrid mode with hugetlb only on cgroup2");
    return;
  }
  // Enabling hugetlb in the unified root is a host change: KernelScope undoes it.
  cg::Cgroup c = k.cgroup("huge");
  sh::oci::Resources res;
  res.hugepage_limits.push_back({"2MB", 4 << 20});
  auto r = c.create(&res);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().what()));
  BOOST_TEST(slurp(c.dir_for("hugetlb") + "/hugetlb.2MB.max") == "4194304");
  BOOST_TEST(c.dir_for("hugetlb").starts_with(l.unified_mount));
  BOOST_TEST_REQUIRE(c.destroy().has_value());
  BOOST_TEST(k.only_parent_left());
  BOOST_TEST(has_word(slurp(l.unified_mount + "/cgroup.subtree_control"), "hugetlb"));
}

namespace {
std::vector<std::string> rule_strings(const std::vector<sh::oci::DeviceRule>& rules) {
  std::vector<std::string> out;
  for (const auto& r : rules) out.push_back(std::string(r.allow ? "allow " : "deny ") + sh::cgroups::device_rule_string(r));
  return out;
}
}  // namespace

// runc's list: deny-all first whatever the config says, the config's rules, then the defaults
// (no c 5:1 console, no c 10:200 tun) and the nodes linux.devices makes.
BOOST_AUTO_TEST_CASE(container_device_rules_as_runc) {
  const std::vector<std::string> defaults = {"allow c *:* m",   "allow b *:* m",   "allow c 1:3 rwm", "allow c 1:5 rwm",
                                             "allow c 1:7 rwm", "allow c 1:8 rwm", "allow c 1:9 rwm", "allow c 5:0 rwm",
                                             "allow c 5:2 rwm", "allow c 136:* rwm"};
  // No rules in the config: deny-all and the defaults, never an open a *:* rwm.
  auto none = rule_strings(sh::cgroups::container_device_rules({}, {}, false));
  std::vector<std::string> want = {"deny a *:* rwm"};
  want.insert(want.end(), defaults.begin(), defaults.end());
  BOOST_TEST(none == want, boost::test_tools::per_element());
  // An allow-only list still starts from deny-all; a created node is allowed after the defaults.
  sh::oci::DeviceRule fuse;
  fuse.allow = true;
  fuse.type = "c";
  fuse.major = 10;
  fuse.minor = 229;
  fuse.access = "rw";
  sh::oci::Device dev;
  dev.type = "u";
  dev.major = 4;
  dev.minor = 64;
  auto some = rule_strings(sh::cgroups::container_device_rules({fuse}, {dev}, false));
  want = {"deny a *:* rwm", "allow c 10:229 rw"};
  want.insert(want.end(), defaults.begin(), defaults.end());
  want.push_back("allow c 4:64 rwm");
  BOOST_TEST(some == want, boost::test_tools::per_element());
  // A policy's list is exact: nothing added after it.
  auto exact = rule_strings(sh::cgroups::container_device_rules({fuse}, {dev}, true));
  BOOST_TEST((exact == std::vector<std::string>{"deny a *:* rwm", "allow c 10:229 rw"}));
}
