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

// The id of the mount an fd lives on, from its fdinfo.
Result<int> mount_id(int fd) {
  std::string info = TRY(read_file("/proc/thread-self/fdinfo/" + std::to_string(fd)));
  size_t at = info.find("mnt_id:");
  if (at == std::string::npos) return fail("no mnt_id in fdinfo");
  return std::atoi(info.c_str() + at + 7);
}

// pivot_root refuses a new root whose parent mount is shared (and a shared parent would
// carry our rootfs bind back to the host); an unbindable one cannot be bound at all.
// Make the mount the rootfs lives on private in either case.
Result<void> make_parent_private(const std::string& rootfs) {
  Fd fd = TRY(open_file(rootfs, O_PATH | O_DIRECTORY));
  int id = TRY(mount_id(fd.get()));
  for (const auto& mi : TRY(detail::read_mountinfo())) {
    if (mi.id != id) continue;
    if (mi.optional.find("shared:") == std::string::npos && mi.optional.find("unbindable") == std::string::npos) break;
    if (::mount(nullptr, mi.mount_point.c_str(), nullptr, MS_PRIVATE, nullptr) < 0)
      return sys_error("make " + mi.mount_point + " (parent of the rootfs) private");
  }
  return {};
}

// Everything prepare() reads from /proc (mountinfo, cgroups, fdinfo, uid_map) reads the
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
  // A recursive slave or private "/" (the default is rslave) leaves no mount below it shared
  // or unbindable (the kernel clears both with the new type): make_parent_private would read
  // and parse the whole mountinfo to find nothing.
  const bool none_shared = (prop & MS_REC) && (prop & (MS_SLAVE | MS_PRIVATE));
  if (!none_shared) TRYV(make_parent_private(o.rootfs));
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
  // Only MOUNT_ATTR_RDONLY changes: nosuid/nodev/noexec (locked in a user namespace or
  // not) stay as they are, which the remount-with-statvfs-flags dance achieves in runc.
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
