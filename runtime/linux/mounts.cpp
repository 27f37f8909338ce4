// One configured mount, done by fd with the new mount API (§6.1): the destination is
// resolved inside the rootfs, the filesystem is built detached (fsopen/fsmount or
// open_tree), its attributes set with mount_setattr, and only then attached with
// move_mount onto the verified destination fd.
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string_view>

#include "base/file.hpp"
#include "base/log.hpp"
#include "runtime/linux/rootfs_impl.hpp"

namespace sh::rootfs::detail {
namespace {

// The kernel queues fs_context messages ("e tmpfs: Bad value for 'size'") on the fsfd;
// they say much more than EINVAL.
std::string fs_log(int fsfd) {
  std::string out;
  char buf[512];
  for (int i = 0; i < 8; ++i) {
    ssize_t n = ::read(fsfd, buf, sizeof buf);
    if (n <= 0) break;
    std::string_view msg(buf, size_t(n));
    while (!msg.empty() && msg.back() == '\n') msg.remove_suffix(1);
    if (msg.size() > 2 && msg[1] == ' ') msg.remove_prefix(2);  // "e ", "w ", "i ": the level
    if (!out.empty()) out += "; ";
    out += msg;
  }
  return out;
}

Result<void> fs_config(int fsfd, unsigned cmd, const char* key, const char* value, const std::string& what) {
  if (::fsconfig(fsfd, cmd, key, value, 0) == 0) return {};
  int e = errno;
  std::string log = fs_log(fsfd);
  return sys_error(what + (log.empty() ? "" : " [" + log + "]"), e);
}

// Superblock flags mount(2) takes as MS_* but the new API takes as fsconfig flags.
constexpr std::pair<unsigned long, const char*> kSbFlags[] = {
    {MS_SYNCHRONOUS, "sync"}, {MS_DIRSYNC, "dirsync"}, {MS_MANDLOCK, "mand"}, {MS_LAZYTIME, "lazytime"}};

// Kills and reaps a helper child on every exit path.
struct ChildGuard {
  pid_t pid = -1;
  ~ChildGuard() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
};

std::string id_map_text(const std::vector<oci::IdMapping>& maps) {
  std::string out;
  for (const auto& m : maps)
    out += std::to_string(m.container_id) + " " + std::to_string(m.host_id) + " " + std::to_string(m.size) + "\n";
  return out;
}

// A user namespace holding the mount's mappings, for MOUNT_ATTR_IDMAP: a child unshares
// it and waits while we write its maps and take an fd of it, then it exits. The child
// names itself by reading /proc/self: fork() returned its pid in *our* pid namespace,
// which need not be the one the mounted /proc shows (init may be pid 1 of a new one).
Result<Fd> make_userns(const std::vector<oci::IdMapping>& uids, const std::vector<oci::IdMapping>& gids) {
  int ready[2], hold[2];
  if (::pipe2(ready, O_CLOEXEC) < 0) return sys_error("pipe");
  Fd ready_r(ready[0]), ready_w(ready[1]);
  if (::pipe2(hold, O_CLOEXEC) < 0) return sys_error("pipe");
  Fd hold_r(hold[0]), hold_w(hold[1]);

  ChildGuard child;
  child.pid = ::fork();
  if (child.pid < 0) return sys_error("fork user namespace helper");
  if (child.pid == 0) {  // plain syscalls only from here
    char self[32];
    ssize_t n = ::readlink("/proc/self", self, sizeof self);
    if (n <= 0 || n >= ssize_t(sizeof self)) ::_exit(1);
    if (::unshare(CLONE_NEWUSER) < 0) ::_exit(1);
    if (::write(ready[1], self, size_t(n)) != n) ::_exit(1);
    char c;
    while (::read(hold[0], &c, 1) < 0 && errno == EINTR) {
    }
    ::_exit(0);
  }
  ready_w.reset();
  hold_r.reset();
  char self[32];
  ssize_t n = ::read(ready_r.get(), self, sizeof self);
  if (n <= 0) return fail("user namespace helper failed to unshare(CLONE_NEWUSER)");
  std::string proc = "/proc/" + std::string(self, size_t(n));
  if (proc.find_first_not_of("0123456789", 6) != std::string::npos) return fail("bad pid from helper: " + proc);

  TRYV(write_file(proc + "/uid_map", id_map_text(uids)));
  TRYV(write_file(proc + "/gid_map", id_map_text(gids)));
  Fd ns = TRY(open_file(proc + "/ns/user", O_RDONLY));
  hold_w.reset();  // lets the child exit; the guard reaps it
  return ns;
}

bool wants_idmap(const oci::Mount& m, const MountFlags& mf) {
  return mf.idmap || mf.ridmap || !m.uid_mappings.empty() || !m.gid_mappings.empty();
}

Result<void> apply_idmap(const oci::Config& c, const oci::Mount& m, const MountFlags& mf, int mnt_fd) {
  // Without mount-specific mappings, "idmap" means the container's own.
  const auto& uids = m.uid_mappings.empty() ? c.linux.uid_mappings : m.uid_mappings;
  const auto& gids = m.gid_mappings.empty() ? c.linux.gid_mappings : m.gid_mappings;
  if (uids.empty() || gids.empty()) return fail("idmapped mount: no uidMappings/gidMappings to map with");
  Fd ns = TRYC("idmapped mount: user namespace", make_userns(uids, gids));
  TRYVC("idmapped mount", set_attr(mnt_fd, mf.ridmap, MOUNT_ATTR_IDMAP, 0, 0, ns.get()));
  return {};
}

// runc's rule (CVE-2019-16884 class): nothing may be mounted inside /proc except the few
// files lxcfs emulates, and only a procfs may be bound onto /proc itself.
Result<void> check_proc_destination(const std::string& rel, bool bind, int mnt_fd) {
  if (rel == "proc") {
    if (bind && TRY(fs_magic(mnt_fd, "bind source")) != PROC_SUPER_MAGIC)
      return fail("only a procfs may be bound onto /proc");
    return {};
  }
  if (!rel.starts_with("proc/")) return {};
  static constexpr std::string_view kAllowed[] = {
      "proc/cpuinfo", "proc/diskstats", "proc/meminfo", "proc/stat",    "proc/swaps",
      "proc/uptime",  "proc/loadavg",   "proc/slabinfo", "proc/net/dev", "proc/sys/kernel/ns_last_pid"};
  for (auto a : kAllowed)
    if (rel == a) return {};
  return fail("/" + rel + " is inside /proc: only files lxcfs emulates may be mounted there");
}

// What the rest of prepare() needs to know about /dev, /dev/pts and /proc.
void record(Context& ctx, const std::string& rel, const std::string& fstype, bool bind, int mnt_fd) {
  struct stat st;
  if (rel == "dev") {
    ctx.dev_bind = bind;
    ctx.dev_tmpfs = !bind && fstype == "tmpfs" && ::fstat(mnt_fd, &st) == 0;
    if (ctx.dev_tmpfs) ctx.dev_tmpfs_dev = st.st_dev;
  } else if (rel == "dev/pts") {
    ctx.devpts_mounted = !bind && fstype == "devpts";
  } else if (rel == "proc") {
    ctx.proc_mounted = !bind && fstype == "proc";
  }
}

// The "remount" option: change the attributes of what is already on the destination.
Result<void> remount(const MountFlags& mf, const Resolved& dest) {
  if (!mf.data.empty()) return fail("remount with filesystem data (" + mf.data + ") is not supported");
  TRYV(set_attr(dest.fd.get(), false, attrs_from_flags(mf.flags), attrs_cleared(mf)));
  if (mf.recursive_attrs) TRYV(set_attr(dest.fd.get(), true, mf.attr_set, mf.attr_clr));
  return {};
}

// Verify a fresh proc/sysfs is what it claims, before and after it is attached.
Result<void> verify_magic(const std::string& fstype, int fd, const std::string& what) {
  long want = fstype == "proc" ? long(PROC_SUPER_MAGIC) : fstype == "sysfs" ? long(SYSFS_MAGIC) : 0;
  if (want == 0) return {};
  if (TRY(fs_magic(fd, what)) != want) return fail(what + " is not a " + fstype + " filesystem");
  return {};
}

Result<void> mount_one_impl(Context& ctx, const oci::Mount& m, MountFlags mf, int premade_fd) {
  const bool bind = mf.flags & MS_BIND;
  if (mf.tmpcopyup && (bind || m.type != "tmpfs"))
    return fail("option tmpcopyup: only for a tmpfs mount (type \"" + m.type + "\")");
  if (!bind && m.type.empty()) return fail("no filesystem type and not a bind mount");
  if (clean_path(m.destination) == "/") return fail("refusing to mount over the container's root");

  // A bind's source is cloned first: a missing source fails before anything is created,
  // and the clone's type says whether the mount point is a directory or a file.
  Fd mnt;
  MkdirOptions mk;
  const bool premade = bind && premade_fd >= 0;
  if (premade) {
    mnt = Fd(::fcntl(premade_fd, F_DUPFD_CLOEXEC, 3));
    if (!mnt) return sys_error("dup the runtime's idmapped mount of " + m.source);
    struct stat st;
    if (::fstat(mnt.get(), &st) < 0) return sys_error("stat " + m.source);
    mk.leaf = S_ISDIR(st.st_mode) ? Leaf::dir : Leaf::file;
  } else if (bind) {
    mnt = TRY(clone_tree(AT_FDCWD, m.source, mf.flags & MS_REC));
    struct stat st;
    if (::fstat(mnt.get(), &st) < 0) return sys_error("stat " + m.source);
    mk.leaf = S_ISDIR(st.st_mode) ? Leaf::dir : Leaf::file;
  }
  mk.refuse_symlinks = m.type == "proc" || m.type == "sysfs";  // CVE-2019-19921, CVE-2023-27561
  Resolved dest = TRY(mkdir_in_root(ctx.root.get(), m.destination, mk));

  if (m.type == "cgroup" && !bind) return mount_cgroup(ctx, mf, dest);
  if (mf.flags & MS_REMOUNT) return remount(mf, dest);

  bool sys_bound = false;
  if (!bind) {
    // As runc: a read-only fresh mount (sysfs, proc, ...) gets a read-only superblock, except a
    // tmpfs and /dev, which the runtime may still fill (runc delays their ro the same way).
    const bool ro_sb = m.type != "tmpfs" && dest.rel != "dev";
    // tmpcopyup fills the tmpfs before it is attached: writable until then, "ro" after.
    auto fresh = new_mount(m.type, m.source, mf.data, mf.tmpcopyup ? mf.flags & ~MS_RDONLY : mf.flags, ro_sb);
    if (!fresh && fresh.error().err == EPERM && m.type == "sysfs" && ctx.opts.in_user_namespace) {
      // A user namespace without its own network namespace may not mount sysfs: show
      // the host's, as runc does, with the mount's flags on every submount.
      log::debug("sysfs on " + m.destination + ": " + fresh.error().what() + "; binding the host's /sys");
      mnt = TRY(clone_tree(AT_FDCWD, "/sys", true));
      TRYV(set_attr(mnt.get(), true, attrs_from_flags(mf.flags), 0));
      sys_bound = true;
    } else {
      mnt = TRY(std::move(fresh));
    }
  }
  TRYV(check_proc_destination(dest.rel, bind, mnt.get()));
  if (!bind) TRYV(verify_magic(m.type, mnt.get(), sys_bound ? "host /sys" : "new mount"));
  if (mf.tmpcopyup) {
    TRYVC("tmpcopyup " + m.destination, copy_up(dest.fd.get(), mnt.get(), "/" + dest.rel));
    if (mf.flags & MS_RDONLY) TRYV(set_attr(mnt.get(), false, MOUNT_ATTR_RDONLY, 0));
  }

  // A fresh mount got its attributes from fsmount; a bind keeps its source's, changed
  // only where an option asked (the kernel refuses to clear locked flags anyway). A premade
  // mount belongs to the runtime's user namespace until it is attached into ours: set its
  // attributes after.
  auto set_attrs = [&]() -> Result<void> {
    if (bind) TRYV(set_attr(mnt.get(), false, attrs_from_flags(mf.flags), attrs_cleared(mf)));
    if (mf.recursive_attrs) TRYV(set_attr(mnt.get(), true, mf.attr_set, mf.attr_clr));
    return {};
  };
  if (!premade) {
    TRYV(set_attrs());
    if (wants_idmap(m, mf)) TRYV(apply_idmap(ctx.config, m, mf, mnt.get()));
  }

  TRYV(attach(mnt.get(), dest.fd.get()));
  if (premade) TRYV(set_attrs());

  if (!bind && (m.type == "proc" || m.type == "sysfs")) {
    // Look again through the root: what now sits on the destination must be our mount.
    Fd again = TRY(open_in_root(ctx.root.get(), dest.rel, O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS));
    TRYV(verify_magic(m.type, again.get(), "/" + dest.rel + " after mounting"));
  }
  if (mf.propagation)
    TRYV(set_attr(mnt.get(), mf.propagation & MS_REC, 0, 0, mf.propagation & ~MS_REC));
  record(ctx, dest.rel, m.type, bind, mnt.get());
  return {};
}

}  // namespace

uint64_t attrs_from_flags(unsigned long f) {
  uint64_t a = 0;
  if (f & MS_RDONLY) a |= MOUNT_ATTR_RDONLY;
  if (f & MS_NOSUID) a |= MOUNT_ATTR_NOSUID;
  if (f & MS_NODEV) a |= MOUNT_ATTR_NODEV;
  if (f & MS_NOEXEC) a |= MOUNT_ATTR_NOEXEC;
  if (f & MS_NODIRATIME) a |= MOUNT_ATTR_NODIRATIME;
  if (f & MS_NOSYMFOLLOW) a |= MOUNT_ATTR_NOSYMFOLLOW;
  if (f & MS_STRICTATIME)
    a |= MOUNT_ATTR_STRICTATIME;
  else if (f & MS_NOATIME)
    a |= MOUNT_ATTR_NOATIME;
  return a;
}

uint64_t attrs_cleared(const MountFlags& mf) {
  uint64_t c = 0;
  if (mf.clear_flags & MS_RDONLY) c |= MOUNT_ATTR_RDONLY;
  if (mf.clear_flags & MS_NOSUID) c |= MOUNT_ATTR_NOSUID;
  if (mf.clear_flags & MS_NODEV) c |= MOUNT_ATTR_NODEV;
  if (mf.clear_flags & MS_NOEXEC) c |= MOUNT_ATTR_NOEXEC;
  if (mf.clear_flags & MS_NODIRATIME) c |= MOUNT_ATTR_NODIRATIME;
  if (mf.clear_flags & MS_NOSYMFOLLOW) c |= MOUNT_ATTR_NOSYMFOLLOW;
  if ((mf.flags | mf.clear_flags) & (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)) c |= MOUNT_ATTR__ATIME;
  return c;
}

Result<long> fs_magic(int fd, const std::string& what) {
  struct statfs sf;
  if (::fstatfs(fd, &sf) < 0) return sys_error("statfs " + what);
  return long(sf.f_type);
}

Result<Fd> new_mount(const std::string& fstype, const std::string& source, const std::string& data,
                     unsigned long flags, bool ro_superblock) {
  int fsfd = ::fsopen(fstype.c_str(), FSOPEN_CLOEXEC);
  if (fsfd < 0) return sys_error("fsopen " + fstype);
  Fd fs(fsfd);
  if (!source.empty()) TRYV(fs_config(fsfd, FSCONFIG_SET_STRING, "source", source.c_str(), "source=" + source));
  if (ro_superblock && (flags & MS_RDONLY)) TRYV(fs_config(fsfd, FSCONFIG_SET_FLAG, "ro", nullptr, "ro"));
  for (auto [flag, key] : kSbFlags)
    if (flags & flag) TRYV(fs_config(fsfd, FSCONFIG_SET_FLAG, key, nullptr, key));
  for (const std::string& opt : split_list(data, ',')) {
    size_t eq = opt.find('=');
    if (eq == std::string::npos) {
      TRYV(fs_config(fsfd, FSCONFIG_SET_FLAG, opt.c_str(), nullptr, "option " + opt));
    } else {
      std::string key = opt.substr(0, eq), value = opt.substr(eq + 1);
      TRYV(fs_config(fsfd, FSCONFIG_SET_STRING, key.c_str(), value.c_str(), "option " + opt));
    }
  }
  TRYV(fs_config(fsfd, FSCONFIG_CMD_CREATE, nullptr, nullptr, "create " + fstype + " superblock"));
  int mfd = ::fsmount(fsfd, FSMOUNT_CLOEXEC, unsigned(attrs_from_flags(flags)));
  if (mfd < 0) {
    int e = errno;
    return sys_error("fsmount " + fstype, e);
  }
  return Fd(mfd);
}

Result<Fd> clone_tree(int dirfd, const std::string& path, bool recursive) {
  unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0);
  if (path.empty()) flags |= AT_EMPTY_PATH;
  int fd = ::open_tree(dirfd, path.c_str(), flags);
  if (fd < 0) return sys_error("open_tree " + (path.empty() ? std::string("fd") : path));
  return Fd(fd);
}

Result<void> attach(int mnt_fd, int target_fd) {
  if (::move_mount(mnt_fd, "", target_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return sys_error("move_mount");
  return {};
}

Result<void> set_attr(int fd, bool recursive, uint64_t set, uint64_t clr, uint64_t propagation, int userns_fd) {
  if (set == 0 && clr == 0 && propagation == 0) return {};
  struct mount_attr a = {};
  a.attr_set = set;
  a.attr_clr = clr;
  a.propagation = propagation;
  a.userns_fd = userns_fd < 0 ? 0 : uint64_t(userns_fd);
  if (::mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a, sizeof a) < 0)
    return sys_error(std::string("mount_setattr") + (recursive ? " (recursive)" : ""));
  return {};
}

Result<void> mount_one(Context& ctx, const oci::Mount& m, int premade_fd) {
  MountFlags mf = parse_mount_options(m.options);
  if (m.type == "bind" || m.type == "rbind") mf.flags |= MS_BIND | (m.type == "rbind" ? MS_REC : 0);
  std::string what = "mount " + (m.type.empty() ? std::string("bind") : m.type) + " on " + m.destination + " " +
                     ctx.where();
  auto r = mount_one_impl(ctx, m, std::move(mf), premade_fd);
  if (!r) return std::unexpected(std::move(r.error()).context(what));
  log::debug(what + ": done");
  return {};
}

}  // namespace sh::rootfs::detail

namespace sh::rootfs {

Result<std::vector<std::pair<size_t, Fd>>> premake_idmapped_mounts(const oci::Config& c) {
  std::vector<std::pair<size_t, Fd>> out;
  for (size_t i = 0; i < c.mounts.size(); ++i) {
    const oci::Mount& m = c.mounts[i];
    MountFlags mf = parse_mount_options(m.options);
    if (m.type == "bind" || m.type == "rbind") mf.flags |= MS_BIND | (m.type == "rbind" ? MS_REC : 0);
    if (!(mf.flags & MS_BIND) || !detail::wants_idmap(m, mf)) continue;
    std::string what = "idmapped mount of " + m.source + " on " + m.destination;
    Fd mnt = TRYC(what, detail::clone_tree(AT_FDCWD, m.source, mf.flags & MS_REC));
    TRYVC(what, detail::apply_idmap(c, m, mf, mnt.get()));
    out.emplace_back(i, std::move(mnt));
  }
  return out;
}

}  // namespace sh::rootfs
