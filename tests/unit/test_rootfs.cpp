// rootfs::prepare/pivot/finalize against the real kernel, as root. Each case builds a
// busybox rootfs in a temp dir and runs the container side in a child that is in its
// own mount (and pid) namespace, so nothing it mounts can outlive it or reach the host.
// The child reports "FAIL: ..." lines through a pipe and its exit status.
#define BOOST_TEST_MODULE rootfs
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "base/file.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/rootfs_impl.hpp"

namespace fs = std::filesystem;
using namespace sh;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/sharness-rootfs-XXXXXX";
    if (!::mkdtemp(t)) throw std::runtime_error("mkdtemp");
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_text(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }

// A tiny rootfs: busybox, a few applets, the usual empty top-level dirs.
void build_rootfs(const fs::path& root) {
  for (auto d : {"bin", "proc", "sys", "dev", "tmp", "etc", "data"}) fs::create_directories(root / d);
  fs::copy_file("/bin/busybox", root / "bin/busybox");
  for (auto a : {"sh", "cat", "ls", "touch", "readlink", "mkdir", "stat"})
    fs::create_symlink("busybox", root / "bin" / a);
  write_text(root / "etc/hostname", "container\n");
}

oci::Mount mnt(std::string dest, std::string type, std::string source, std::vector<std::string> opts) {
  oci::Mount m;
  m.destination = std::move(dest);
  m.type = std::move(type);
  m.source = std::move(source);
  m.options = std::move(opts);
  return m;
}

// The mounts of runc's default spec.
std::vector<oci::Mount> default_mounts() {
  return {
      mnt("/proc", "proc", "proc", {"nosuid", "noexec", "nodev"}),
      mnt("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}),
      mnt("/dev/pts", "devpts", "devpts", {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}),
      mnt("/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}),
      mnt("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}),
      mnt("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"}),
  };
}

// Reporting from inside the child.
struct Report {
  int fd;
  int failures = 0;
  void line(const std::string& s) {
    std::string l = s + "\n";
    (void)!::write(fd, l.data(), l.size());
  }
  void check(bool ok, const std::string& what) {
    if (ok) return;
    ++failures;
    line("FAIL: " + what + " (errno " + std::to_string(errno) + " " + strerror(errno) + ")");
  }
};

struct Outcome {
  int status = -1;  // exit status of the container side
  std::string out;
};

using Checks = std::function<void(Report&)>;

// Fork; the child unshares a mount + pid namespace (plus `extra`), forks again so the
// grandchild is pid 1 of the new pid namespace, and runs the three stages and `checks`.
Outcome run_container(const oci::Config& cfg, const rootfs::Options& opts, const Checks& checks, int extra = 0) {
  int p[2];
  BOOST_REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  pid_t pid = ::fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(p[0]);
    Report r{p[1]};
    if (::unshare(CLONE_NEWNS | CLONE_NEWPID | extra) < 0) {
      r.line(std::string("ERROR unshare: ") + strerror(errno));
      ::_exit(10);
    }
    pid_t init = ::fork();
    if (init == 0) {
      auto fd = rootfs::prepare(cfg, opts);
      if (!fd) {
        r.line("ERROR prepare: " + fd.error().what());
        ::_exit(2);
      }
      if (auto v = rootfs::pivot(cfg, opts, fd->get()); !v) {
        r.line("ERROR pivot: " + v.error().what());
        ::_exit(3);
      }
      if (auto v = rootfs::finalize(cfg, opts); !v) {
        r.line("ERROR finalize: " + v.error().what());
        ::_exit(4);
      }
      checks(r);
      ::_exit(r.failures ? 1 : 0);
    }
    int st = 0;
    while (::waitpid(init, &st, 0) < 0 && errno == EINTR) {
    }
    ::_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  }
  ::close(p[1]);
  Outcome o;
  char buf[4096];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) o.out.append(buf, size_t(n));
  ::close(p[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return o;
}

// The topmost mount at `mp` in this process's mountinfo.
std::optional<rootfs::detail::MountInfo> mount_at(const std::string& mp) {
  auto all = rootfs::detail::read_mountinfo();
  if (!all) return std::nullopt;
  std::optional<rootfs::detail::MountInfo> found;
  for (auto& m : *all)
    if (m.mount_point == mp) found = m;
  return found;
}

bool has_opt(const std::string& list, const std::string& opt) {
  for (auto& o : rootfs::detail::split_list(list, ','))
    if (o == opt) return true;
  return false;
}

long magic_of(const char* path) {
  struct statfs sf;
  return ::statfs(path, &sf) == 0 ? long(sf.f_type) : -1;
}

bool write_fails_with(const char* path, int flags, int want) {
  int fd = ::open(path, flags | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::close(fd);
    return false;
  }
  return errno == want;
}

std::string read_all(const char* path) {
  auto s = read_file(path);
  return s ? *s : "<unreadable>";
}

bool need_root() {
  if (::geteuid() == 0) return true;
  BOOST_TEST_MESSAGE("skipped: these tests mount filesystems and need root");
  return false;
}

rootfs::Options options_for(const fs::path& root) {
  rootfs::Options o;
  o.rootfs = root.string();
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(full_container_filesystem) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  fs::create_directories(t.path / "hostdata");
  write_text(t.path / "hostdata/hello", "hi");
  write_text(t.path / "hostfile", "host file");
  write_text(t.path / "marker", "host only");

  oci::Config cfg;
  cfg.root.path = root.string();
  cfg.root.readonly = true;
  cfg.mounts = default_mounts();
  cfg.mounts.push_back(mnt("/tmp", "tmpfs", "tmpfs", {"nosuid", "nodev", "mode=1777", "size=1m"}));
  cfg.mounts.push_back(mnt("/data", "bind", (t.path / "hostdata").string(), {"rbind", "ro", "nosuid"}));
  cfg.mounts.push_back(mnt("/etc/hostfile", "bind", (t.path / "hostfile").string(), {"bind", "ro"}));
  cfg.mounts.push_back(mnt("/sys/fs/cgroup", "cgroup", "cgroup", {"nosuid", "noexec", "nodev", "relatime", "ro"}));
  oci::Device tun;
  tun.type = "c";
  tun.path = "/dev/net/tun";
  tun.major = 10;
  tun.minor = 200;
  tun.file_mode = 0660;
  tun.uid = 1000;
  tun.gid = 100;
  cfg.linux.devices.push_back(tun);
  cfg.linux.masked_paths = {"/proc/kcore", "/proc/acpi", "/proc/keys", "/proc/timer_list", "/sys/firmware",
                            "/proc/does-not-exist"};
  cfg.linux.readonly_paths = {"/proc/sys", "/proc/sysrq-trigger", "/proc/bus"};
  const std::string marker = (t.path / "marker").string();

  auto o = run_container(cfg, options_for(root), [&](Report& r) {
    r.check(::getpid() == 1, "pid 1 in the new pid namespace");
    // devices
    struct stat st{};
    r.check(::lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
                minor(st.st_rdev) == 3 && (st.st_mode & 07777) == 0666,
            "/dev/null is char 1:3 mode 0666");
    for (auto d : {"/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"})
      r.check(::lstat(d, &st) == 0 && S_ISCHR(st.st_mode), std::string(d) + " is a char device");
    r.check(::lstat("/dev/net/tun", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 10 &&
                minor(st.st_rdev) == 200 && (st.st_mode & 07777) == 0660 && st.st_uid == 1000 && st.st_gid == 100,
            "/dev/net/tun is char 10:200 0660 1000:100");
    char link[64] = {};
    r.check(::readlink("/dev/ptmx", link, sizeof link - 1) > 0 && std::string(link) == "pts/ptmx",
            "/dev/ptmx -> pts/ptmx");
    std::memset(link, 0, sizeof link);
    r.check(::readlink("/dev/fd", link, sizeof link - 1) > 0 && std::string(link) == "/proc/self/fd", "/dev/fd");
    std::memset(link, 0, sizeof link);
    r.check(::readlink("/dev/stderr", link, sizeof link - 1) > 0 && std::string(link) == "/proc/self/fd/2",
            "/dev/stderr");
    r.check(::lstat("/dev/core", &st) == 0 && S_ISLNK(st.st_mode), "/dev/core symlink");
    int ptmx = ::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    r.check(ptmx >= 0, "open /dev/ptmx");
    if (ptmx >= 0) ::close(ptmx);

    // mounts and their flags
    auto m = mount_at("/");
    r.check(m && has_opt(m->options, "ro"), "/ is mounted read-only");
    m = mount_at("/proc");
    r.check(m && m->fstype == "proc" && has_opt(m->options, "nosuid") && has_opt(m->options, "nodev") &&
                has_opt(m->options, "noexec"),
            "/proc is proc,nosuid,nodev,noexec");
    m = mount_at("/dev");
    r.check(m && m->fstype == "tmpfs" && has_opt(m->options, "nosuid") && !has_opt(m->options, "relatime") &&
                !has_opt(m->options, "noatime"),
            "/dev is tmpfs,nosuid,strictatime");
    m = mount_at("/dev/pts");
    r.check(m && m->fstype == "devpts" && has_opt(m->super_options, "ptmxmode=666"), "/dev/pts is a devpts");
    m = mount_at("/dev/mqueue");
    r.check(m && m->fstype == "mqueue", "/dev/mqueue is mqueue");
    m = mount_at("/tmp");
    r.check(m && m->fstype == "tmpfs" && has_opt(m->super_options, "size=1024k") && has_opt(m->options, "nodev") &&
                !has_opt(m->options, "noexec"),
            "/tmp is tmpfs size=1024k nodev");
    r.check(::stat("/tmp", &st) == 0 && (st.st_mode & 07777) == 01777, "/tmp has mode 1777");
    m = mount_at("/data");
    r.check(m && has_opt(m->options, "ro") && has_opt(m->options, "nosuid"), "/data is a ro,nosuid bind");
    m = mount_at("/sys");
    r.check(m && m->fstype == "sysfs" && has_opt(m->options, "ro"), "/sys is ro sysfs");
    m = mount_at("/proc/sys");
    r.check(m && has_opt(m->options, "ro"), "/proc/sys is read-only");
    m = mount_at("/proc/acpi");
    r.check(m && m->fstype == "tmpfs" && has_opt(m->options, "ro"), "/proc/acpi is masked by a ro tmpfs");
    r.check(mount_at("/proc/keys").has_value(), "/proc/keys has /dev/null on it");
    r.check(!mount_at("/proc/does-not-exist").has_value(), "absent masked path skipped");

    // behaviour
    r.check(read_all("/data/hello") == "hi", "the bind shows the host dir");
    r.check(write_fails_with("/data/new", O_WRONLY | O_CREAT, EROFS), "writing under the ro bind: EROFS");
    r.check(write_fails_with("/etc/hostfile", O_WRONLY, EROFS), "writing the ro file bind: EROFS");
    r.check(read_all("/etc/hostfile") == "host file", "the file bind shows the host file");
    r.check(read_all("/proc/keys").empty(), "masked /proc/keys reads empty");
    r.check(::access("/proc/kcore", F_OK) < 0 || read_all("/proc/kcore").empty(), "/proc/kcore absent or empty");
    r.check(write_fails_with("/proc/acpi/x", O_WRONLY | O_CREAT, EROFS), "masked dir is read-only");
    r.check(write_fails_with("/proc/sys/kernel/domainname", O_WRONLY, EROFS), "/proc/sys is read-only");
    r.check(::mkdir("/newdir", 0755) < 0 && errno == EROFS, "/ is read-only (mkdir: EROFS)");
    int fd = ::open("/tmp/scratch", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    r.check(fd >= 0, "/tmp (tmpfs) is writable");
    if (fd >= 0) ::close(fd);
    r.check(::access(marker.c_str(), F_OK) < 0 && errno == ENOENT, "the host's marker file is not reachable");
    r.check(::access("/bin/busybox", X_OK) == 0, "the rootfs is /");

    // cgroups: this host is v1 (hybrid); each hierarchy shows up, read-only
    r.check(magic_of("/sys/fs/cgroup") == TMPFS_MAGIC, "/sys/fs/cgroup is a tmpfs");
    r.check(magic_of("/sys/fs/cgroup/memory") == CGROUP_SUPER_MAGIC, "/sys/fs/cgroup/memory is a cgroup mount");
    r.check(::access("/sys/fs/cgroup/memory/cgroup.procs", F_OK) == 0, "memory hierarchy has cgroup.procs");
    r.check(::mkdir("/sys/fs/cgroup/memory/x", 0755) < 0 && errno == EROFS, "cgroup hierarchy is read-only");
    r.check(::mkdir("/sys/fs/cgroup/x", 0755) < 0 && errno == EROFS, "cgroup tmpfs is read-only");

    // the rootfs is usable: busybox runs and sees the same things
    pid_t sh = ::fork();
    if (sh == 0) {
      const char* argv[] = {"sh", "-c",
                            "test -c /dev/null && test \"$(cat /data/hello)\" = hi && ! touch /data/x 2>/dev/null && "
                            "test \"$(readlink /dev/ptmx)\" = pts/ptmx && ls /proc/self/fd >/dev/null",
                            nullptr};
      const char* envp[] = {"PATH=/bin", nullptr};
      ::execve("/bin/sh", const_cast<char**>(argv), const_cast<char**>(envp));
      ::_exit(127);
    }
    int st2 = 0;
    ::waitpid(sh, &st2, 0);
    r.check(WIFEXITED(st2) && WEXITSTATUS(st2) == 0, "busybox sh checks inside the container");
  });
  BOOST_TEST(o.status == 0, "container side failed:\n" << o.out);
  // Nothing the container did is visible on the host.
  BOOST_TEST(!fs::exists(t.path / "hostdata/new"));
  BOOST_TEST(fs::exists(t.path / "marker"));
}

BOOST_AUTO_TEST_CASE(symlinked_destination_stays_inside_rootfs) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  fs::path hostdir = t.path / "hostmarkerdir";
  fs::create_directories(hostdir);
  write_text(hostdir / "orig", "untouched");
  // Absolute and ../-escaping symlinks to the host dir, as a hostile image would ship.
  fs::create_symlink(hostdir, root / "mnt");
  fs::create_symlink("../../../../../../../../.." + hostdir.string(), root / "escape");
  // What many images ship: a dangling relative symlink where Docker binds a file.
  fs::create_symlink("../run/resolve/stub-resolv.conf", root / "etc/resolv.conf");
  write_text(t.path / "resolv.conf", "nameserver 192.0.2.1\n");

  oci::Config cfg;
  cfg.root.path = root.string();
  cfg.mounts = {mnt("/proc", "proc", "proc", {}), mnt("/mnt", "tmpfs", "tmpfs", {"size=1m"}),
                mnt("/escape/sub", "tmpfs", "tmpfs", {"size=1m"}),
                mnt("/etc/resolv.conf", "bind", (t.path / "resolv.conf").string(), {"rbind", "ro"})};
  const std::string host = hostdir.string();

  auto o = run_container(cfg, options_for(root), [&](Report& r) {
    auto m = mount_at(host);
    r.check(m && m->fstype == "tmpfs", "the tmpfs landed on <rootfs>" + host);
    r.check(mount_at(host + "/sub").has_value(), "the ../ symlink resolved inside the rootfs too");
    r.check(magic_of("/mnt") == TMPFS_MAGIC, "/mnt (through the symlink) is the tmpfs");
    int fd = ::open("/mnt/created", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    r.check(fd >= 0, "write into the tmpfs");
    if (fd >= 0) ::close(fd);
    r.check(read_all("/etc/resolv.conf") == "nameserver 192.0.2.1\n", "file bind through a dangling symlink");
    r.check(mount_at("/run/resolve/stub-resolv.conf").has_value(), "the file bind sits on the symlink's target");
  });
  BOOST_TEST(o.status == 0, "container side failed:\n" << o.out);
  // The host dir is untouched: nothing created in it, nothing mounted on it.
  BOOST_TEST(fs::exists(hostdir / "orig"));
  BOOST_TEST(!fs::exists(hostdir / "created"));
  BOOST_TEST(!fs::exists(hostdir / "sub"));
  BOOST_TEST(fs::is_directory(root / hostdir.relative_path()), "mount point created inside the rootfs");
  BOOST_TEST(fs::is_regular_file(root / "run/resolve/stub-resolv.conf"), "file mount point created inside the rootfs");
  auto host_mounts = read_file("/proc/self/mountinfo");
  BOOST_REQUIRE(host_mounts);
  BOOST_TEST(host_mounts->find(t.path.string()) == std::string::npos, "no mount under the temp dir on the host");
}

BOOST_AUTO_TEST_CASE(symlinked_proc_is_refused) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  fs::remove(root / "proc");
  fs::create_directories(t.path / "hostproc");
  fs::create_symlink(t.path / "hostproc", root / "proc");

  oci::Config cfg;
  cfg.root.path = root.string();
  cfg.mounts = {mnt("/proc", "proc", "proc", {"nosuid", "noexec", "nodev"})};
  auto o = run_container(cfg, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 2, "prepare must fail:\n" << o.out);
  BOOST_TEST(o.out.find("mount proc on /proc") != std::string::npos, o.out);
  BOOST_TEST(o.out.find("destination is a symlink") != std::string::npos, o.out);
  BOOST_TEST(fs::is_empty(t.path / "hostproc"));

  // A symlink anywhere on the way to a sysfs is refused too.
  fs::create_directories(root / "realsys");
  fs::remove(root / "sys");
  fs::create_symlink("realsys", root / "sys");
  cfg.mounts = {mnt("/sys/kernel", "sysfs", "sysfs", {})};
  o = run_container(cfg, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 2, "prepare must fail:\n" << o.out);
  BOOST_TEST(o.out.find("is a symlink") != std::string::npos, o.out);
}

BOOST_AUTO_TEST_CASE(rootfs_dev_null_symlink_is_not_followed) {
  // CVE-2025-31133: the image ships /dev/null -> a host file. With no /dev tmpfs the
  // rootfs's own /dev is used: the symlink is left alone and never used as a mask.
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  write_text(t.path / "hostsecret", "secret");
  fs::create_symlink(t.path / "hostsecret", root / "dev/null");

  oci::Config cfg;
  cfg.root.path = root.string();
  cfg.mounts = {mnt("/proc", "proc", "proc", {})};
  cfg.linux.masked_paths = {"/proc/keys"};
  auto o = run_container(cfg, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 4, "finalize must refuse the fake /dev/null:\n" << o.out);
  BOOST_TEST(o.out.find("/dev/null is not the null device") != std::string::npos, o.out);
  BOOST_TEST(read_all((t.path / "hostsecret").c_str()) == "secret");
  BOOST_TEST(fs::is_symlink(root / "dev/null"));
  // The devices that were absent were created in the rootfs's /dev.
  BOOST_TEST(fs::is_character_file(root / "dev/zero"));
}

BOOST_AUTO_TEST_CASE(user_namespace_devices_are_binds) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  oci::Config cfg;
  cfg.root.path = root.string();
  cfg.mounts = {mnt("/proc", "proc", "proc", {}), mnt("/dev", "tmpfs", "tmpfs", {"mode=755"})};
  cfg.linux.masked_paths = {"/proc/keys"};
  auto opts = options_for(root);
  opts.in_user_namespace = true;
  auto o = run_container(cfg, opts, [](Report& r) {
    struct stat st{};
    r.check(::stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3), "/dev/null is 1:3");
    r.check(mount_at("/dev/null").has_value(), "/dev/null is a bind of the host's");
    r.check(mount_at("/dev/urandom").has_value(), "/dev/urandom is a bind of the host's");
    r.check(read_all("/proc/keys").empty(), "masked with the bound /dev/null");
  });
  BOOST_TEST(o.status == 0, "container side failed:\n" << o.out);
}

BOOST_AUTO_TEST_CASE(cgroup_namespace_and_no_pivot) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  write_text(t.path / "marker", "host only");
  oci::Config cfg;
  cfg.root.path = root.string();
  cfg.mounts = default_mounts();
  cfg.mounts.push_back(mnt("/sys/fs/cgroup", "cgroup", "cgroup", {"nosuid", "noexec", "nodev"}));
  cfg.linux.namespaces = {{"mount", ""}, {"pid", ""}, {"cgroup", ""}};
  auto opts = options_for(root);
  opts.no_pivot = true;
  const std::string marker = (t.path / "marker").string();
  auto o = run_container(cfg, opts, [&](Report& r) {
    r.check(magic_of("/sys/fs/cgroup/memory") == CGROUP_SUPER_MAGIC, "memory hierarchy mounted");
    r.check(magic_of("/sys/fs/cgroup/cpu") == CGROUP_SUPER_MAGIC, "cpu hierarchy mounted");
    auto m = mount_at("/sys/fs/cgroup/memory");
    r.check(m && m->fstype == "cgroup" && m->root == "/", "a fresh v1 mount rooted at the namespace's cgroup");
    r.check(::access("/sys/fs/cgroup/memory/cgroup.procs", F_OK) == 0, "cgroup.procs visible");
    r.check(::access(marker.c_str(), F_OK) < 0, "no-pivot: the host's files are out of reach by path");
    r.check(::access("/bin/busybox", X_OK) == 0, "no-pivot: the rootfs is /");
  }, CLONE_NEWCGROUP);
  BOOST_TEST(o.status == 0, "container side failed:\n" << o.out);
}

BOOST_AUTO_TEST_CASE(idmapped_bind_mount) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  fs::create_directories(t.path / "owned");
  write_text(t.path / "owned/file", "x");  // owned by 0:0 on disk
  oci::Config cfg;
  cfg.root.path = root.string();
  auto m = mnt("/data", "bind", (t.path / "owned").string(), {"rbind", "idmap"});
  m.uid_mappings = {{0, 1000, 1}};
  m.gid_mappings = {{0, 2000, 1}};
  cfg.mounts = {m};
  auto o = run_container(cfg, options_for(root), [](Report& r) {
    struct stat st{};
    r.check(::stat("/data/file", &st) == 0 && st.st_uid == 1000 && st.st_gid == 2000,
            "on-disk 0:0 shows as 1000:2000 through the idmapped mount (got " + std::to_string(st.st_uid) + ":" +
                std::to_string(st.st_gid) + ")");
  });
  BOOST_TEST(o.status == 0, "container side failed:\n" << o.out);
}

BOOST_AUTO_TEST_CASE(refusals) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  oci::Config cfg;
  cfg.root.path = root.string();
  // tmpcopyup fills a tmpfs: on anything else it is refused, not ignored.
  cfg.mounts = {mnt("/tmp", "mqueue", "mqueue", {"tmpcopyup"})};
  auto o = run_container(cfg, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 2);
  BOOST_TEST(o.out.find("mount mqueue on /tmp") != std::string::npos, o.out);
  BOOST_TEST(o.out.find("tmpcopyup: only for a tmpfs") != std::string::npos, o.out);

  cfg.mounts = {mnt("/proc", "proc", "proc", {}), mnt("/proc/self/attr", "tmpfs", "tmpfs", {})};
  o = run_container(cfg, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 2);
  BOOST_TEST(o.out.find("inside /proc") != std::string::npos, o.out);

  fs::create_symlink("loop", root / "loop");
  cfg.mounts = {mnt("/loop/x", "tmpfs", "tmpfs", {})};
  o = run_container(cfg, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 2);
  BOOST_TEST(o.out.find("ELOOP") != std::string::npos, o.out);

  cfg.mounts = {mnt("/tmp", "tmpfs", "tmpfs", {"size=lots"})};
  o = run_container(cfg, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 2);
  BOOST_TEST(o.out.find("size") != std::string::npos, o.out);  // the kernel's own words
  BOOST_TEST_MESSAGE("bad option error: " << o.out);
}

BOOST_AUTO_TEST_CASE(root_propagation) {
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  struct {
    const char* value;
    const char* tag;  // what mountinfo's optional fields show for "/" ("" = none)
  } cases[] = {{"rshared", "shared:"}, {"shared", "shared:"}, {"rprivate", ""}, {"private", ""},
               {"runbindable", "unbindable"}, {"rslave", ""}};
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.value) {
      oci::Config cfg;
      cfg.root.path = root.string();
      cfg.linux.rootfs_propagation = c.value;
      cfg.mounts = {mnt("/proc", "proc", "proc", {})};
      std::string tag = c.tag;
      auto o = run_container(cfg, options_for(root), [&](Report& r) {
        auto m = mount_at("/");
        r.check(m.has_value(), "/ in mountinfo");
        if (!m) return;
        if (tag.empty())
          r.check(m->optional.find("shared:") == std::string::npos &&
                      m->optional.find("unbindable") == std::string::npos,
                  "/ is not shared (optional fields: '" + m->optional + "')");
        else
          r.check(m->optional.find(tag) != std::string::npos,
                  "/ has " + tag + " (optional fields: '" + m->optional + "')");
      });
      BOOST_TEST(o.status == 0, "container side failed:\n" << o.out);
    }
  }

  oci::Config bad;
  bad.root.path = root.string();
  bad.linux.rootfs_propagation = "sideways";
  auto o = run_container(bad, options_for(root), [](Report&) {});
  BOOST_TEST(o.status == 2);
  BOOST_TEST(o.out.find("rootfsPropagation") != std::string::npos, o.out);
}

BOOST_AUTO_TEST_CASE(what_needs_a_mount_namespace_is_refused_without_one) {
  // Mounts are made in the runtime's own namespace when the config asks none (as runc does), but
  // masked and read-only paths, a read-only root and rootfsPropagation are refused first, before
  // anything is mounted there: so this runs in the test process itself.
  oci::Config cfg;
  cfg.mounts = {mnt("/proc", "proc", "proc", {})};
  rootfs::Options o;
  o.rootfs = "/nonexistent/rootfs";
  o.new_mount_ns = false;
  auto refused = [&](const char* what) {
    auto r = rootfs::prepare(cfg, o);
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().what().find("need a mount namespace") != std::string::npos, what << ": " << r.error().what());
  };
  cfg.linux.masked_paths = {"/proc/kcore"};
  refused("maskedPaths");
  cfg.linux.masked_paths.clear();
  cfg.linux.readonly_paths = {"/proc/sys"};
  refused("readonlyPaths");
  cfg.linux.readonly_paths.clear();
  cfg.root.readonly = true;
  refused("a read-only root");
  cfg.root.readonly = false;
  cfg.linux.rootfs_propagation = "rslave";
  refused("rootfsPropagation");
  cfg.linux.rootfs_propagation.clear();
  // Nothing else needs one: what fails now is the (missing) rootfs itself.
  auto r = rootfs::prepare(cfg, o);
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("need a mount namespace") == std::string::npos, r.error().what());
  o.rootfs = "relative/rootfs";
  o.new_mount_ns = true;
  r = rootfs::prepare(cfg, o);
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("not an absolute path") != std::string::npos, r.error().what());
}

BOOST_AUTO_TEST_CASE(sysfs_in_a_user_namespace_falls_back_to_a_bind) {
  // A new user namespace (no id maps: nothing can be created in the rootfs, so the
  // /dev entries are there already) without a network namespace of its own.
  if (!need_root()) return;
  TempDir t;
  fs::path root = t.path / "rootfs";
  build_rootfs(root);
  for (auto d : {"null", "zero", "full", "random", "urandom", "tty", "fd", "stdin", "stdout", "stderr", "core"})
    write_text(root / "dev" / d, "");
  oci::Config cfg;
  cfg.root.path = root.string();
  cfg.mounts = {mnt("/proc", "proc", "proc", {}), mnt("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"})};
  auto opts = options_for(root);
  opts.in_user_namespace = true;
  auto o = run_container(cfg, opts, [](Report& r) {
    r.check(magic_of("/sys") == SYSFS_MAGIC, "/sys is a sysfs");
    auto m = mount_at("/sys");
    r.check(m && has_opt(m->options, "ro") && has_opt(m->options, "nosuid"), "/sys is ro,nosuid");
    r.check(::access("/sys/kernel", F_OK) == 0, "/sys/kernel is there");
    // The host's submounts came along: it is the recursive bind, not a fresh sysfs.
    r.check(mount_at("/sys/fs/cgroup").has_value(), "/sys is the host's /sys, bound recursively");
    r.check(::mkdir("/sys/fs/cgroup/x", 0755) < 0 && errno == EROFS, "ro reaches the submounts");
  }, CLONE_NEWUSER);
  BOOST_TEST(o.status == 0, "container side failed:\n" << o.out);
}
