// The "tmpcopyup" mount option (crun's and runc's, which Podman writes for --read-only and
// --tmpfs): before a fresh tmpfs covers a directory of the rootfs, what that directory holds is
// copied into the tmpfs, with modes, owners and times. Every step is relative to directory fds
// opened with O_NOFOLLOW from the destination that mkdir_in_root resolved inside the rootfs, so
// a symlink in the image is copied as a symlink and never followed, in or out of the rootfs.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "runtime/linux/rootfs_impl.hpp"

namespace sh::rootfs::detail {
namespace {

constexpr int kMaxDepth = 128;

struct DirClose {
  void operator()(DIR* d) const { ::closedir(d); }
};

Result<void> copy_owner_mode_times(int dir_fd, const std::string& name, const struct stat& st, bool symlink,
                                   const std::string& what) {
  const int nofollow = AT_SYMLINK_NOFOLLOW;
  if (::fchownat(dir_fd, name.c_str(), st.st_uid, st.st_gid, nofollow) < 0) return sys_error("chown " + what);
  if (!symlink && ::fchmodat(dir_fd, name.c_str(), st.st_mode & 07777, 0) < 0) return sys_error("chmod " + what);
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  if (::utimensat(dir_fd, name.c_str(), times, nofollow) < 0) return sys_error("set the times of " + what);
  return {};
}

Result<void> copy_file(int from_dir, int to_dir, const std::string& name, const struct stat& st,
                       const std::string& what) {
  Fd in(::openat(from_dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!in) return sys_error("open " + what);
  struct stat again;
  if (::fstat(in.get(), &again) < 0) return sys_error("stat " + what);
  if (again.st_ino != st.st_ino || again.st_dev != st.st_dev || !S_ISREG(again.st_mode))
    return fail(what + " changed while it was copied");
  Fd out(::openat(to_dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!out) return sys_error("create " + what + " in the tmpfs");
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("read " + what);
    if (n == 0) break;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = ::write(out.get(), buf + off, size_t(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return sys_error("write " + what + " in the tmpfs");
      off += w;
    }
  }
  return {};
}

Result<void> copy_tree(int from_dir, int to_dir, const std::string& where, int depth) {
  if (depth > kMaxDepth) return fail("tmpcopyup: " + where + " is nested deeper than " + std::to_string(kMaxDepth));
  int list_fd = ::openat(from_dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0) return sys_error("open " + where);
  std::unique_ptr<DIR, DirClose> dir(::fdopendir(list_fd));
  if (!dir) {
    ::close(list_fd);
    return sys_error("list " + where);
  }
  for (;;) {
    errno = 0;
    struct dirent* e = ::readdir(dir.get());
    if (!e) {
      if (errno != 0) return sys_error("list " + where);
      break;
    }
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string what = where + "/" + name;
    struct stat st;
    if (::fstatat(from_dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) return sys_error("stat " + what);
    bool symlink = false;
    if (S_ISDIR(st.st_mode)) {
      if (::mkdirat(to_dir, name.c_str(), 0700) < 0) return sys_error("mkdir " + what + " in the tmpfs");
      Fd from_sub(::openat(from_dir, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!from_sub) return sys_error("open " + what);
      Fd to_sub(::openat(to_dir, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!to_sub) return sys_error("open " + what + " in the tmpfs");
      TRYV(copy_tree(from_sub.get(), to_sub.get(), what, depth + 1));
    } else if (S_ISREG(st.st_mode)) {
      TRYV(copy_file(from_dir, to_dir, name, st, what));
    } else if (S_ISLNK(st.st_mode)) {
      std::string target(size_t(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
      ssize_t n = ::readlinkat(from_dir, name.c_str(), target.data(), target.size());
      if (n < 0) return sys_error("readlink " + what);
      if (size_t(n) >= target.size()) return fail(what + " changed while it was copied");
      target.resize(size_t(n));
      if (::symlinkat(target.c_str(), to_dir, name.c_str()) < 0) return sys_error("symlink " + what + " in the tmpfs");
      symlink = true;
    } else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
      if (::mknodat(to_dir, name.c_str(), (st.st_mode & S_IFMT) | 0600, st.st_rdev) < 0)
        return sys_error("mknod " + what + " in the tmpfs");
    } else {
      continue;  // a socket: bound by a process, nothing to copy (runc and crun skip it too)
    }
    TRYV(copy_owner_mode_times(to_dir, name, st, symlink, what));
  }
  return {};
}

}  // namespace

Result<void> copy_up(int from_dir, int to_dir, const std::string& where) {
  struct stat st;
  if (::fstat(from_dir, &st) < 0) return sys_error("stat " + where);
  if (!S_ISDIR(st.st_mode)) return fail("tmpcopyup: " + where + " is not a directory");
  TRYV(copy_tree(from_dir, to_dir, where, 0));
  // The tmpfs's root takes the covered directory's owner and mode, as runc and crun leave it.
  if (::fchownat(to_dir, "", st.st_uid, st.st_gid, AT_EMPTY_PATH) < 0) return sys_error("chown the tmpfs on " + where);
  Fd root(::openat(to_dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root) return sys_error("open the tmpfs on " + where);
  if (::fchmod(root.get(), st.st_mode & 07777) < 0) return sys_error("chmod the tmpfs on " + where);
  return {};
}

}  // namespace sh::rootfs::detail
