// /dev inside the container: the default devices plus linux.devices, the /dev/fd and
// stdio symlinks, and /dev/ptmx -> pts/ptmx. Everything is created relative to
// directory fds resolved inside the rootfs (§6.2), never through a path:
//   - on a /dev tmpfs we mounted, whatever is in the way is ours and gets replaced;
//   - on the rootfs's own /dev, entries that exist (even symlinks) are left alone and
//     never followed;
//   - in a user namespace (or without CAP_MKNOD) a device is the host's node bind-mounted
//     onto an empty file, and its mode/owner are not touched (that would change the host's).
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/log.hpp"
#include "runtime/linux/rootfs_impl.hpp"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452  // Linux 6.6; Debian 12's headers predate it
#endif

namespace sh::rootfs::detail {
namespace {

struct DeviceSpec {
  std::string path;  // absolute, clean
  mode_t type = S_IFCHR;
  unsigned major = 0, minor = 0;
  mode_t mode = 0666;
  uid_t uid = 0;
  gid_t gid = 0;
};

const DeviceSpec kDefaultDevices[] = {
    {"/dev/null", S_IFCHR, 1, 3},    {"/dev/zero", S_IFCHR, 1, 5},    {"/dev/full", S_IFCHR, 1, 7},
    {"/dev/random", S_IFCHR, 1, 8},  {"/dev/urandom", S_IFCHR, 1, 9}, {"/dev/tty", S_IFCHR, 5, 0},
};

Result<DeviceSpec> from_config(const oci::Device& d) {
  DeviceSpec s;
  if (d.path.empty() || d.path.front() != '/') return fail("device path '" + d.path + "' is not absolute");
  s.path = clean_path(d.path);
  if (s.path == "/") return fail("device path '" + d.path + "' names the root");
  if (d.type == "c" || d.type == "u") {
    s.type = S_IFCHR;
  } else if (d.type == "b") {
    s.type = S_IFBLK;
  } else if (d.type == "p") {
    s.type = S_IFIFO;
  } else {
    return fail("device " + d.path + ": unknown type '" + d.type + "'");
  }
  if (d.major < 0 || d.minor < 0 || d.major > 0xfff || d.minor > 0xfffff)
    return fail("device " + d.path + ": major/minor out of range");
  s.major = unsigned(d.major);
  s.minor = unsigned(d.minor);
  if (d.file_mode) s.mode = *d.file_mode & 07777;
  s.uid = d.uid.value_or(0);
  s.gid = d.gid.value_or(0);
  return s;
}

Result<void> chmod_fd(int fd, mode_t mode, const std::string& what) {
  if (::syscall(SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH) == 0) return {};
  if (errno != ENOSYS && errno != EINVAL) return sys_error("chmod " + what);
  // Older kernels: the fd's magic link (the host /proc; prepare() runs before pivot_root).
  if (::fchmodat(AT_FDCWD, fd_path(fd).c_str(), mode, 0) < 0) return sys_error("chmod " + what);
  return {};
}

// Is the node what the spec says (type and numbers)?
bool node_matches(const struct stat& st, const DeviceSpec& d) {
  if ((st.st_mode & S_IFMT) != d.type) return false;
  if (d.type == S_IFIFO) return true;
  return major(st.st_rdev) == d.major && minor(st.st_rdev) == d.minor;
}

// The host's own node, bind-mounted onto an empty file (user namespaces cannot mknod).
Result<void> bind_device(int dir, const std::string& name, const DeviceSpec& d) {
  int f = ::openat(dir, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
  if (f < 0) return sys_error("create mount point");
  ::close(f);
  Fd src = TRY(clone_tree(AT_FDCWD, d.path, false));
  struct stat st;
  if (::fstat(src.get(), &st) < 0) return sys_error("stat host " + d.path);
  if (!node_matches(st, d))
    return fail("host " + d.path + " is not device " + std::to_string(d.major) + ":" + std::to_string(d.minor));
  int t = ::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (t < 0) return sys_error("open mount point");
  Fd target(t);
  return attach(src.get(), target.get());
}

Result<void> make_node(int dir, const std::string& name, const DeviceSpec& d) {
  int t = ::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (t < 0) return sys_error("open");
  Fd node(t);
  struct stat st;
  if (::fstat(node.get(), &st) < 0) return sys_error("stat");
  if (!node_matches(st, d)) return fail("created node is not what was asked for");
  if (::fchownat(node.get(), "", d.uid, d.gid, AT_EMPTY_PATH) < 0) return sys_error("chown");
  return chmod_fd(node.get(), d.mode, d.path);
}

// Clear the way for a device on a /dev tmpfs we own; elsewhere say whether it exists.
Result<bool> entry_in_the_way(const Context& ctx, int dir, const std::string& name) {
  struct stat st, dst;
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) {
    if (errno == ENOENT) return false;
    return sys_error("stat");
  }
  if (::fstat(dir, &dst) < 0) return sys_error("stat parent");
  if (!ctx.dev_tmpfs || dst.st_dev != ctx.dev_tmpfs_dev) return true;  // the rootfs's own: keep it
  if (S_ISDIR(st.st_mode)) return fail("a directory is in the way");
  if (::unlinkat(dir, name.c_str(), 0) < 0) return sys_error("remove what is in the way");
  return false;
}

Result<void> create_device(const Context& ctx, const DeviceSpec& d) {
  size_t slash = d.path.find_last_of('/');
  std::string parent = d.path.substr(0, slash), name = d.path.substr(slash + 1);
  Resolved dir = TRY(mkdir_in_root(ctx.root.get(), parent.empty() ? "/" : parent));
  if (TRY(entry_in_the_way(ctx, dir.fd.get(), name))) {
    log::debug("device " + d.path + ": the rootfs has an entry there, left alone");
    return {};
  }
  bool bind = ctx.opts.in_user_namespace && d.type != S_IFIFO;
  if (!bind) {
    if (::mknodat(dir.fd.get(), name.c_str(), d.type, makedev(d.major, d.minor)) == 0)
      return make_node(dir.fd.get(), name, d);
    if (errno != EPERM || d.type == S_IFIFO) return sys_error("mknod");
    log::debug("device " + d.path + ": mknod not permitted, bind-mounting the host's");
  }
  return bind_device(dir.fd.get(), name, d);
}

Result<void> create_devices(const Context& ctx) {
  std::vector<DeviceSpec> devices;
  for (const auto& d : ctx.config.linux.devices) devices.push_back(TRY(from_config(d)));
  const size_t configured = devices.size();
  auto allowed = [&](const std::string& path) {
    if (!ctx.opts.only_devices) return true;
    for (const auto& name : *ctx.opts.only_devices)
      if (path == "/dev/" + name) return true;
    return false;
  };
  for (const auto& def : kDefaultDevices) {  // a configured device overrides a default
    if (!allowed(def.path)) continue;
    bool overridden = false;
    for (size_t i = 0; i < configured; ++i) overridden |= devices[i].path == def.path;
    if (!overridden) devices.push_back(def);
  }
  for (const auto& d : devices) {
    auto r = create_device(ctx, d);
    if (!r) return std::unexpected(std::move(r.error()).context("device " + d.path + " " + ctx.where()));
  }
  return {};
}

Result<void> make_symlinks(const Context& ctx, int dev) {
  std::vector<std::pair<const char*, const char*>> links = {{"fd", "/proc/self/fd"},
                                                            {"stdin", "/proc/self/fd/0"},
                                                            {"stdout", "/proc/self/fd/1"},
                                                            {"stderr", "/proc/self/fd/2"}};
  if (ctx.proc_mounted) links.emplace_back("core", "/proc/kcore");
  for (auto [name, target] : links)
    if (::symlinkat(target, dev, name) < 0 && errno != EEXIST)
      return sys_error(std::string("symlink /dev/") + name + " " + ctx.where());
  return {};
}

// /dev/ptmx -> pts/ptmx, once /dev/pts/ptmx is checked to be a devpts ptmx (inode 2).
Result<void> make_ptmx(const Context& ctx, int dev) {
  Fd ptmx = TRYC("/dev/pts/ptmx " + ctx.where(),
                 open_in_root(ctx.root.get(), "dev/pts/ptmx", O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS));
  struct stat st;
  if (::fstat(ptmx.get(), &st) < 0) return sys_error("stat /dev/pts/ptmx " + ctx.where());
  if (TRY(fs_magic(ptmx.get(), "/dev/pts/ptmx")) != DEVPTS_SUPER_MAGIC || st.st_ino != 2)
    return fail("/dev/pts/ptmx " + ctx.where() + " is not the ptmx of a devpts filesystem");
  if (::unlinkat(dev, "ptmx", 0) < 0 && errno != ENOENT) return sys_error("remove /dev/ptmx " + ctx.where());
  if (::symlinkat("pts/ptmx", dev, "ptmx") < 0) return sys_error("symlink /dev/ptmx " + ctx.where());
  return {};
}

}  // namespace

Result<void> setup_dev(Context& ctx) {
  if (ctx.dev_bind) return {};  // the host's /dev: nothing to create, nothing to replace
  TRYV(create_devices(ctx));
  Resolved dev = TRYC("/dev " + ctx.where(), mkdir_in_root(ctx.root.get(), "/dev"));
  TRYV(make_symlinks(ctx, dev.fd.get()));
  if (ctx.devpts_mounted) TRYV(make_ptmx(ctx, dev.fd.get()));
  return {};
}

}  // namespace sh::rootfs::detail
