// maskedPaths and readonlyPaths, after pivot_root, relative to the new root's fd.
// A path is opened O_PATH|O_NOFOLLOW through RESOLVE_IN_ROOT: a symlink at the end is
// refused, never followed (CVE-2025-31133); an absent path is skipped.
//   masked dir  -> an empty read-only tmpfs on it: one made for the first, a bind of that very
//                  mount for each next (one superblock, not one per directory);
//   masked file -> /dev/null bound on it, /dev/null first checked to be char 1:3 by
//                  fstat of an O_PATH fd, and that very fd is what gets cloned;
//   read-only   -> a recursive bind of the path onto itself with MOUNT_ATTR_RDONLY; the
//                  other flags (nosuid, nodev, noexec, locked or not) stay as they were.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/log.hpp"
#include "runtime/linux/rootfs_impl.hpp"

namespace sh::rootfs::detail {
namespace {

// O_PATH fd of `path` (no symlink at the end), or an empty Fd when it does not exist.
Result<Fd> open_target(int root_fd, const std::string& path) {
  auto fd = open_in_root(root_fd, path, O_PATH | O_NOFOLLOW);
  if (!fd) {
    int e = fd.error().err;
    if (e == ENOENT || e == ENOTDIR) return Fd();
    return std::unexpected(std::move(fd.error()));
  }
  struct stat st;
  if (::fstat(fd->get(), &st) < 0) return sys_error("stat");
  if (S_ISLNK(st.st_mode)) return fail("is a symlink; refusing to follow it");
  return std::move(*fd);
}

// The container's /dev/null, verified to be the null device before it is used as a mask.
// Symlinks on the way are resolved inside the root (an image's /dev may be one), never the
// last component; the char 1:3 check on the fd is what makes the result safe to bind.
Result<Fd> verified_dev_null(int root_fd) {
  Fd null = TRYC("/dev/null", open_in_root(root_fd, "dev/null", O_PATH | O_NOFOLLOW));
  struct stat st;
  if (::fstat(null.get(), &st) < 0) return sys_error("stat /dev/null");
  if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != 1 || minor(st.st_rdev) != 3)
    return fail("/dev/null is not the null device (char 1:3)");
  return null;
}

// `empty`: the first masked directory's tmpfs, once attached. The others get a clone of that
// mount: the same empty, read-only superblock, where a tmpfs each cost a superblock's set-up and
// teardown (its LRU lists and shrinker, under locks the teardown of the container before also
// takes: bench/results/profile.md). What the container sees is the same: an empty directory on a
// `tmpfs` mount with ro,nosuid,nodev,noexec.
Result<void> mask_one(int root_fd, const std::string& path, Fd& dev_null, Fd& empty) {
  Fd target = TRY(open_target(root_fd, path));
  if (!target) return {};  // nothing there, nothing to hide
  struct stat st;
  if (::fstat(target.get(), &st) < 0) return sys_error("stat");
  Fd mnt;
  if (S_ISDIR(st.st_mode)) {
    if (empty) return attach(TRY(clone_tree(empty.get(), "", false)).get(), target.get());
    mnt = TRY(new_mount("tmpfs", "tmpfs", "", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC));
    TRYV(attach(mnt.get(), target.get()));
    empty = std::move(mnt);
    return {};
  } else {
    if (!dev_null) dev_null = TRY(verified_dev_null(root_fd));
    mnt = TRY(clone_tree(dev_null.get(), "", false));
  }
  return attach(mnt.get(), target.get());
}

Result<void> readonly_one(int root_fd, const std::string& path) {
  Fd target = TRY(open_target(root_fd, path));
  if (!target) return {};
  Fd mnt = TRY(clone_tree(target.get(), "", true));
  TRYV(set_attr(mnt.get(), true, MOUNT_ATTR_RDONLY, 0));
  return attach(mnt.get(), target.get());
}

}  // namespace

Result<void> mask_paths(int root_fd, const std::vector<std::string>& paths) {
  Fd dev_null;  // looked up (and verified) once, only if a file needs it
  Fd empty;     // made once, only if a directory needs it
  for (const auto& p : paths) {
    auto r = mask_one(root_fd, p, dev_null, empty);
    if (!r) return std::unexpected(std::move(r.error()).context("mask " + p));
  }
  return {};
}

Result<void> readonly_paths(int root_fd, const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    auto r = readonly_one(root_fd, p);
    if (!r) return std::unexpected(std::move(r.error()).context("make " + p + " read-only"));
  }
  return {};
}

}  // namespace sh::rootfs::detail
