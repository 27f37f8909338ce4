#include "runtime/linux/exec_allowlist.hpp"

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include "base/sha256.hpp"
#include "runtime/linux/safe_path.hpp"

namespace sh::exec_allowlist {

namespace {

// Bind the object `fd` refers to read-only over itself, where `fd` was opened (`path`).
Result<void> bind_readonly(int fd, const std::string& path) {
  Fd tree(::open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH));
  if (!tree) return sys_error("exec allowlist: " + path + ": open_tree");
  struct mount_attr a = {};
  a.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH, &a, sizeof a) < 0)
    return sys_error("exec allowlist: " + path + ": make the bind read-only");
  if (::move_mount(tree.get(), "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return sys_error("exec allowlist: " + path + ": bind over itself");
  return {};
}

// What create and `policy pin` say of a pin with a symlink on its way: where it leads inside
// the root, and how to pin that file (a reviewer sees the real file; exec through the link
// still works, since Landlock's execute right is on the inode).
std::string symlink_on_the_way(int root, const std::string& path) {
  auto resolved = rootfs::resolve_in_root(root, path);
  std::string where = resolved ? "; its canonical path is /" + resolved->rel : std::string();
  return "a symlink is on the way" + where + " (pin the file itself, by its canonical path: " + kRepinCommand + ")";
}

Result<void> pin_one(int root, const policy::Pin& pin, std::span<const Hashed> known) {
  const std::string what = "exec allowlist: " + pin.path;
  auto opened = rootfs::open_in_root(root, pin.path, O_RDONLY | O_NOCTTY | O_NONBLOCK, RESOLVE_NO_SYMLINKS);
  if (!opened) {
    int e = opened.error().err;
    if (e == ENOENT) return fail(what + ": not found in the container");
    if (e == ELOOP) return fail(what + ": " + symlink_on_the_way(root, pin.path));
    return fail(std::move(opened.error()).context(what));
  }
  Fd fd = std::move(*opened);
  struct stat st;
  if (::fstat(fd.get(), &st) < 0) return sys_error(what + ": stat");
  if (!S_ISREG(st.st_mode)) return fail(what + ": not a regular file");
  std::string got;
  for (const auto& k : known)
    if (same_object(st, k)) got = k.sha256;
  if (got.empty()) got = TRY(sha256_fd(fd.get(), what));
  if (got != pin.sha256)
    return fail(what + ": SHA-256 is " + got + ", the policy pins " + pin.sha256 +
                "; if this build is the one to trust, refresh the pin: " + kRepinCommand);
  // Over the very file hashed (the fd's own path): no second lookup of the path to race with.
  TRYV(bind_readonly(fd.get(), pin.path));
  // What the path names now must be the object hashed, seen through the new bind.
  Fd again = TRY(rootfs::open_in_root(root, pin.path, O_PATH, RESOLVE_NO_SYMLINKS));
  struct stat now;
  if (::fstat(again.get(), &now) < 0) return sys_error(what + ": stat after the bind");
  if (now.st_dev != st.st_dev || now.st_ino != st.st_ino) return fail(what + ": changed while it was being pinned");
  return {};
}

}  // namespace

Result<std::string> sha256_fd(int fd, const std::string& what) { return sha256_hex_fd(fd, what); }

Result<policy::Pin> hash_in_root(int root, const std::string& path, Symlinks symlinks) {
  const std::string what = "exec allowlist: " + path;
  policy::Pin found{path, {}};
  if (symlinks == Symlinks::canonicalize) {
    auto resolved = rootfs::resolve_in_root(root, path);
    if (!resolved && resolved.error().err == ENOENT) return fail(what + ": not found in the rootfs");
    if (!resolved) return fail(std::move(resolved.error()).context(what));
    found.path = "/" + resolved->rel;
  }
  const uint64_t resolve = symlinks == Symlinks::follow ? 0 : RESOLVE_NO_SYMLINKS;
  auto opened = rootfs::open_in_root(root, found.path, O_PATH | O_NOFOLLOW, resolve);
  if (!opened) {
    int e = opened.error().err;
    if (e == ENOENT) return fail(what + ": not found in the rootfs");
    if (e == ELOOP) return fail(what + ": " + symlink_on_the_way(root, path));
    return fail(std::move(opened.error()).context(what));
  }
  struct stat st;
  if (::fstat(opened->get(), &st) < 0) return sys_error(what + ": stat");
  if (S_ISLNK(st.st_mode)) return fail(what + ": a symlink (pin the file itself, by its canonical path)");
  if (!S_ISREG(st.st_mode)) return fail(what + ": not a regular file");
  Fd fd(::open(rootfs::fd_path(opened->get()).c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd) return sys_error(what + ": open");
  struct stat now;
  if (::fstat(fd.get(), &now) < 0) return sys_error(what + ": stat");
  if (now.st_dev != st.st_dev || now.st_ino != st.st_ino) return fail(what + ": changed while it was being opened");
  found.sha256 = TRY(sha256_fd(fd.get(), what));
  return found;
}

bool same_object(const struct stat& st, const Hashed& h) {
  auto eq = [](const struct timespec& a, const struct timespec& b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; };
  return st.st_dev == h.dev && st.st_ino == h.ino && st.st_size == h.size && eq(st.st_mtim, h.mtime) &&
         eq(st.st_ctim, h.ctime) && !h.sha256.empty();
}

Result<void> pin_all(std::span<const policy::Pin> pins, std::span<const Hashed> known) {
  Fd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return sys_error("exec allowlist: open /");
  for (const auto& pin : pins) TRYV(pin_one(root.get(), pin, known));
  return {};
}

}  // namespace sh::exec_allowlist
