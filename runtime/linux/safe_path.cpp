#include "runtime/linux/safe_path.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <optional>

namespace sh::rootfs {
namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's own limit (MAXSYMLINKS)

Result<Fd> reopen_root(int root_fd) {
  int fd = ::openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return sys_error("open root directory");
  return Fd(fd);
}

Result<std::string> read_link(int link_fd, const std::string& what) {
  std::string buf(4096, '\0');
  ssize_t n = ::readlinkat(link_fd, "", buf.data(), buf.size());
  if (n < 0) return sys_error("readlink " + what);
  if (size_t(n) >= buf.size()) return fail("readlink " + what + ": target too long");
  buf.resize(size_t(n));
  return buf;
}

// Create the missing component `name` in `dir` (the leaf as a file if asked).
Result<void> create_component(int dir, const std::string& name, bool as_file, mode_t dir_mode,
                              const std::string& what) {
  if (as_file) {
    int fd = ::openat(dir, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return sys_error("create file " + what);
    if (fd >= 0) ::close(fd);
    return {};
  }
  if (::mkdirat(dir, name.c_str(), dir_mode) < 0 && errno != EEXIST) return sys_error("mkdir " + what);
  return {};
}

}  // namespace

Result<Fd> open_in_root(int root_fd, std::string_view path, int flags, uint64_t extra_resolve) {
  std::string p(path);
  while (!p.empty() && p.front() == '/') p.erase(0, 1);
  if (p.empty()) p = ".";
  struct open_how how = {};
  how.flags = uint64_t(flags | O_CLOEXEC);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | extra_resolve;
  for (;;) {
    long fd = ::syscall(SYS_openat2, root_fd, p.c_str(), &how, sizeof how);
    if (fd >= 0) return Fd(int(fd));
    // EAGAIN: a concurrent rename/mount raced the lookup; the kernel asks us to retry.
    if (errno != EAGAIN && errno != EINTR) return sys_error("open " + std::string("/") + (p == "." ? "" : p));
  }
}

namespace {

// The common case, a path that exists with no symlink and no "..": the kernel's in-root walk
// alone proves it is inside (RESOLVE_IN_ROOT|RESOLVE_NO_SYMLINKS), one openat2 and one fstat
// instead of a walk that opens and stats every component and then verifies by this same call.
// Anything else (missing, a symlink anywhere, "..") is the walk's: nullopt.
std::optional<Resolved> existing_in_root(int root_fd, const std::vector<std::string>& comps) {
  for (const auto& c : comps)
    if (c == "..") return std::nullopt;
  Resolved r;
  r.rel = join_path(comps).substr(1);
  auto fd = open_in_root(root_fd, r.rel, O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS);
  struct stat st;
  if (!fd || ::fstat(fd->get(), &st) < 0 || S_ISLNK(st.st_mode)) return std::nullopt;  // a symlink leaf
  r.fd = std::move(*fd);
  return r;
}

}  // namespace

Result<Resolved> mkdir_in_root(int root_fd, std::string_view path, const MkdirOptions& o) {
  auto comps = path_components(path);
  if (auto r = existing_in_root(root_fd, comps)) return std::move(*r);
  std::deque<std::string> todo(comps.begin(), comps.end());
  std::vector<std::string> done;  // symlink-free components resolved so far
  Fd cur = TRY(reopen_root(root_fd));
  int links = 0, retries = 0;

  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    if (name == "..") {  // RESOLVE_IN_ROOT semantics: ".." at the root stays there
      if (!done.empty()) done.pop_back();
      cur = TRY(open_in_root(root_fd, join_path(done), O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS));
      continue;
    }
    const bool last = todo.empty();
    std::string here = (done.empty() ? "" : join_path(done)) + "/" + name;

    // One component, no "/" and not "..": openat cannot leave `cur` (a verified dir).
    int fd = ::openat(cur.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && o.create) {
      if (++retries > 1000) return fail("mkdir " + here + ": keeps changing under us");
      TRYV(create_component(cur.get(), name, last && o.leaf == Leaf::file, o.dir_mode, here));
      todo.push_front(std::move(name));  // look it up again: it may be a racing symlink now
      continue;
    }
    if (fd < 0) return sys_error("open " + here);
    Fd next(fd);

    struct stat st;
    if (::fstat(next.get(), &st) < 0) return sys_error("stat " + here);
    if (S_ISLNK(st.st_mode)) {
      if (o.refuse_symlinks) {
        if (last) return fail("destination is a symlink");
        return fail("destination component " + here + " is a symlink");
      }
      if (++links > kMaxSymlinks) return sys_error("resolve " + std::string(path), ELOOP);
      std::string target = TRY(read_link(next.get(), here));
      auto expanded = path_components(target);
      todo.insert(todo.begin(), expanded.begin(), expanded.end());
      if (!target.empty() && target.front() == '/') {  // absolute: from the root, not the host's
        done.clear();
        cur = TRY(reopen_root(root_fd));
      }
      continue;
    }
    if (!last && !S_ISDIR(st.st_mode)) return sys_error("open " + here, ENOTDIR);
    done.push_back(std::move(name));
    cur = std::move(next);
  }

  // Re-resolve the symlink-free result through the kernel's own in-root walk and check
  // it is the inode we walked to: what we return is provably inside the root.
  Resolved r;
  r.rel = join_path(done).substr(1);
  r.fd = TRY(open_in_root(root_fd, r.rel, O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS));
  struct stat a, b;
  if (::fstat(cur.get(), &a) < 0 || ::fstat(r.fd.get(), &b) < 0) return sys_error("stat /" + r.rel);
  if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) return fail("/" + r.rel + " changed while it was resolved");
  return r;
}

Result<Canonical> canonical_in_root(int root_fd, std::string_view path, bool follow_last) {
  auto comps = path_components(path);
  std::deque<std::string> todo(comps.begin(), comps.end());
  std::vector<std::string> done;
  Fd cur = TRY(reopen_root(root_fd));
  int links = 0;
  Canonical out;
  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    if (name == "..") {
      if (!done.empty()) done.pop_back();
      cur = TRY(open_in_root(root_fd, join_path(done), O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS));
      continue;
    }
    const bool last = todo.empty();
    int fd = ::openat(cur.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {  // the rest does not exist (yet)
      done.push_back(std::move(name));
      for (auto& rest : todo) done.push_back(std::move(rest));
      out.path = join_path(done);
      return out;
    }
    if (fd < 0) return sys_error("open " + join_path(done) + (done.empty() ? "" : "/") + name);
    Fd next(fd);
    struct stat st;
    if (::fstat(next.get(), &st) < 0) return sys_error("stat " + name);
    if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
      if (++links > kMaxSymlinks) return sys_error("resolve " + std::string(path), ELOOP);
      std::string target = TRY(read_link(next.get(), name));
      auto expanded = path_components(target);
      todo.insert(todo.begin(), expanded.begin(), expanded.end());
      if (!target.empty() && target.front() == '/') {
        done.clear();
        cur = TRY(reopen_root(root_fd));
      }
      continue;
    }
    done.push_back(std::move(name));
    if (last) {
      out.exists = true;
      out.st = st;
    } else if (!S_ISDIR(st.st_mode)) {  // "file/x": nothing there, as the kernel says ENOTDIR
      for (auto& rest : todo) done.push_back(std::move(rest));
      out.path = join_path(done);
      return out;
    }
    cur = std::move(next);
  }
  out.path = join_path(done);
  if (done.empty()) {  // the root itself
    out.exists = ::fstat(cur.get(), &out.st) == 0;
  }
  return out;
}

Result<Resolved> resolve_in_root(int root_fd, std::string_view path) {
  MkdirOptions o;
  o.create = false;
  return mkdir_in_root(root_fd, path, o);
}

std::string fd_path(int fd) { return "/proc/thread-self/fd/" + std::to_string(fd); }

}  // namespace sh::rootfs
