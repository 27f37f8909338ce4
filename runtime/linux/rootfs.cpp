// The three stages of the container's filesystem (see rootfs.hpp). The mount work
// itself lives in mounts.cpp, mount_cgroup.cpp, devices.cpp and paths_masked.cpp.
#include "runtime/linux/rootfs.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string_view>

#include "base/file.hpp"
#include "base/text.hpp"
#include "base/log.hpp"
#include "runtime/linux/rootfs_impl.hpp"

namespace sh::rootfs {
namespace detail {

std::vector<std::string> split_list(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(sep, i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

const oci::Namespace* find_namespace(const oci::Config& c, std::string_view type) {
  for (const auto& ns : c.linux.namespaces)
    if (ns.type == type) return &ns;
  return nullptr;
}

Result<std::vector<CgroupLine>> read_proc_cgroup(const std::string& path) {
  std::string text = TRY(read_file(path));
  std::vector<CgroupLine> out;
  for (const auto& line : split_list(text, '\n')) {
    size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) return fail(path + ": malformed line: " + line);
    out.push_back({line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return out;
}

}  // namespace detail

namespace {

using detail::Context;

// rootfsPropagation -> MS_* for "/" ("" = rslave: nothing we mount reaches the host).
Result<unsigned long> root_propagation(const std::string& p) {
  if (p.empty()) return MS_SLAVE | MS_REC;
  MountFlags f = parse_mount_options({p});
  if (f.propagation == 0 || !f.data.empty() || f.flags) return fail("rootfsPropagation: unknown value '" + p + "'");
  return f.propagation;
}

// The mount the rootfs lives on (the rootfs itself when it is a mount, else the nearest one
// above it) is made private, whatever "/" was made: pivot_root refuses a new root whose parent
// mount is shared, an unbindable one cannot be bound, and a shared or slave one would make the
// container's "/" a peer or a slave of the host's mount (host mount events under the bundle
// would reach the container). runc (1.1.15; 1.1.5 only when shared) and crun do the same, so
// the container's "/" starts private. Found by walking up by fd, no mountinfo read:
// mount_setattr is EINVAL on a directory that is not the root of a mount.
Result<void> make_parent_private(const std::string& rootfs) {
  Fd dir = TRY(open_file(rootfs, O_PATH | O_DIRECTORY));
  for (;;) {
    auto r = detail::set_attr(dir.get(), false, 0, 0, MS_PRIVATE);
    if (r) return {};
    if (r.error().err != EINVAL)
      return std::unexpected(std::move(r.error()).context("make the mount of " + rootfs + " private"));
    Fd up = TRY(openat_file(dir.get(), "..", O_PATH | O_DIRECTORY));
    struct stat a, b;
    if (::fstat(dir.get(), &a) < 0 || ::fstat(up.get(), &b) < 0) return sys_error("stat a parent of " + rootfs);
    if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
      return fail("no mount above " + rootfs + " could be made private");
    dir = std::move(up);
  }
}

// Everything prepare() reads from /proc (mountinfo, cgroups, uid_map) reads the
// runtime's own /proc, before pivot_root: check it is a procfs and not something else.
Result<void> check_host_proc() {
  struct statfs sf;
  if (::statfs("/proc", &sf) < 0) return sys_error("statfs /proc");
  if (sf.f_type != PROC_SUPER_MAGIC) return fail("/proc is not a procfs");
  return {};
}

Result<void> prepare_root(const oci::Config& c, const Options& o) {
  TRYV(check_host_proc());
  unsigned long prop = TRY(root_propagation(c.linux.rootfs_propagation));
  if (::mount(nullptr, "/", nullptr, prop, nullptr) < 0) return sys_error("set propagation of /");
  TRYV(make_parent_private(o.rootfs));
  // pivot_root needs the new root to be a mount point: bind the rootfs onto itself.
  if (::mount(o.rootfs.c_str(), o.rootfs.c_str(), nullptr, MS_BIND | MS_REC, nullptr) < 0)
    return sys_error("bind " + o.rootfs + " onto itself");
  return {};
}

Result<void> prepare_impl(Context& ctx) {
  const auto& c = ctx.config;
  const auto& o = ctx.opts;
  if (o.rootfs.empty() || o.rootfs.front() != '/') return fail("rootfs '" + o.rootfs + "' is not an absolute path");
  if (o.own_mount_ns()) {
    TRYVC("rootfs " + o.rootfs, prepare_root(c, o));
  } else {
    // The runtime's own mount namespace: its "/" keeps its propagation, the mounts land under
    // the rootfs there (resolved inside it as always), and init chroots, as runc and crun do.
    // Refused before anything is mounted there: runc refuses masked and read-only paths too; a
    // read-only root and rootfsPropagation (the runtime's own "/") it ignores, we refuse.
    const auto& l = c.linux;
    if (!l.masked_paths.empty() || !l.readonly_paths.empty() || c.root.readonly || !l.rootfs_propagation.empty())
      return fail("maskedPaths, readonlyPaths, a read-only root and rootfsPropagation need a mount namespace " +
                  ctx.where());
    TRYVC("rootfs " + o.rootfs, check_host_proc());
  }
  ctx.root = TRY(open_file(o.rootfs, O_PATH | O_DIRECTORY));
  for (size_t i = 0; i < c.mounts.size(); ++i) {
    int premade = -1;
    if (o.premade)
      for (const auto& [idx, fd] : *o.premade)
        if (idx == i) premade = fd.get();
    TRYV(detail::mount_one(ctx, c.mounts[i], premade));
  }
  TRYV(detail::setup_dev(ctx));
  return {};
}

Result<void> pivot_impl(const Options& o, int rootfs_fd) {
  if (::fchdir(rootfs_fd) < 0) return sys_error("chdir to the rootfs");
  if (!o.own_mount_ns()) {
    if (::chroot(".") < 0) return sys_error("chroot");
  } else if (o.no_pivot) {
    // --no-pivot: the rootfs mount moves over "/" and we chroot into it. The host's
    // mounts stay below it in this namespace (that is what --no-pivot trades away).
    if (::mount(".", "/", nullptr, MS_MOVE, nullptr) < 0) return sys_error("move the rootfs onto /");
    if (::chroot(".") < 0) return sys_error("chroot");
  } else {
    // pivot_root(".", "."): the old root ends up stacked on the new one at "."; make it
    // rslave so detaching it cannot propagate an unmount to the host, then detach it.
    if (::syscall(SYS_pivot_root, ".", ".") < 0) return sys_error("pivot_root");
    if (::mount(nullptr, ".", nullptr, MS_SLAVE | MS_REC, nullptr) < 0) return sys_error("make the old root rslave");
    if (::umount2(".", MNT_DETACH) < 0) return sys_error("detach the old root");
  }
  if (::chdir("/") < 0) return sys_error("chdir /");
  // CVE-2024-21626 class: the cwd must be the new root, not a leftover host directory.
  char cwd[8];
  if (!::getcwd(cwd, sizeof cwd) || std::string_view(cwd) != "/")
    return fail("working directory is not / after entering the rootfs");
  return {};
}

// A missing process.cwd is made (mkdir -p inside the root, root-owned 0755) before a read-only
// root applies, as runc and crun do; one that cannot be a directory fails create, naming it.
Result<void> make_cwd(const std::string& cwd) {
  if (cwd.empty()) return {};
  const std::string what = "process.cwd \"" + cwd + "\"";
  Fd root = TRY(open_file("/", O_PATH | O_DIRECTORY));
  auto dir = mkdir_in_root(root.get(), cwd);
  if (!dir) return std::unexpected(std::move(dir.error()).context(what));
  struct stat st;
  if (::fstat(dir->fd.get(), &st) < 0) return sys_error("stat " + what);
  if (!S_ISDIR(st.st_mode)) return sys_error(what, ENOTDIR);
  return {};
}

Result<void> finalize_impl(const oci::Config& c, const Options& o) {
  const auto& l = c.linux;
  if (c.process) TRYV(make_cwd(c.process->cwd));
  if (!o.own_mount_ns()) return {};  // nothing of the rest was asked (prepare refused it)
  Fd root = TRY(open_file("/", O_PATH | O_DIRECTORY));
  TRYV(detail::mask_paths(root.get(), l.masked_paths));
  TRYV(detail::readonly_paths(root.get(), l.readonly_paths));
  // Only MOUNT_ATTR_RDONLY changes: nosuid/nodev/noexec that the rootfs inherits from the mount
  // it sits on stay, as they do for a rw root. runc's remount (MS_BIND|MS_REMOUNT|MS_RDONLY,
  // statfs flags only on EPERM) clears them where they are not locked, so a read-only root
  // would get back the suid and device files its filesystem's owner turned off (stricter,
  // docs/intended-differences.md).
  if (c.root.readonly) TRYVC("make / read-only", detail::set_attr(root.get(), false, MOUNT_ATTR_RDONLY, 0));
  if (!l.rootfs_propagation.empty()) {
    unsigned long prop = TRY(root_propagation(l.rootfs_propagation));
    // private was already arranged in prepare(); shared/slave/unbindable apply now, to
    // the container's "/" rather than the host's.
    if (!(prop & MS_PRIVATE))
      TRYVC("set propagation of /", detail::set_attr(root.get(), prop & MS_REC, 0, 0, prop & ~MS_REC));
  }
  return {};
}

}  // namespace

Result<Fd> prepare(const oci::Config& c, const Options& o) {
  Context ctx(c, o);
  TRYV(prepare_impl(ctx));  // every step's error already names the rootfs
  // The rootfs bind mount's root (the one we set up), not whatever the path names now.
  int fd = ctx.root ? ::openat(ctx.root.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                    : ::open(o.rootfs.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return sys_error("open rootfs " + o.rootfs);
  return Fd(fd);
}

Result<void> pivot(const oci::Config& c, const Options& o, int rootfs_fd) {
  (void)c;
  auto r = pivot_impl(o, rootfs_fd);
  if (!r) return std::unexpected(std::move(r.error()).context("enter rootfs " + o.rootfs));
  return {};
}

Result<void> finalize(const oci::Config& c, const Options& o) {
  auto r = finalize_impl(c, o);
  if (!r) return std::unexpected(std::move(r.error()).context("finalize rootfs"));
  return {};
}

}  // namespace sh::rootfs
