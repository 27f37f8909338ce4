#include "base/private_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/file.hpp"
#include "base/log.hpp"

namespace sh {
namespace {

Result<void> check_private(const struct stat& st, const std::string& what) {
  if (st.st_uid != ::geteuid()) return fail(what + ": owned by uid " + std::to_string(st.st_uid));
  if (st.st_mode & 077) return fail(what + ": open to group or others");
  return {};
}

Result<void> check_private(int fd, const std::string& what) {
  struct stat st;
  if (::fstat(fd, &st) < 0) return sys_error("stat " + what);
  return check_private(st, what);
}

// Opened first and made only when missing: once a root has its caches (every create after its
// first), that is one system call rather than a mkdirat that fails EEXIST and then the open.
Result<Fd> private_dir(int parent, const std::string& name, const std::string& path) {
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  Fd d(::openat(parent, name.c_str(), flags));
  if (!d && errno == ENOENT) {
    if (::mkdirat(parent, name.c_str(), 0700) < 0 && errno != EEXIST) return sys_error("create " + path);
    d = Fd(::openat(parent, name.c_str(), flags));
  }
  if (!d) return sys_error("open " + path);
  TRYV(check_private(d.get(), path));
  return d;
}

}  // namespace

Result<Fd> open_private_cache(const std::string& state_root, const std::string& kind) {
  Fd root = TRY(open_file(state_root, O_RDONLY | O_DIRECTORY));
  Fd cache = TRY(private_dir(root.get(), ".cache", state_root + "/.cache"));
  return private_dir(cache.get(), kind, state_root + "/.cache/" + kind);
}

Result<std::string> read_private(int dir, const std::string& name, size_t limit) {
  Fd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return sys_error("open " + name);
  struct stat st;
  if (::fstat(fd.get(), &st) < 0) return sys_error("stat " + name);
  if (!S_ISREG(st.st_mode)) return fail(name + ": not a regular file");
  TRYV(check_private(st, name));  // the same stat: the fd is the file read below
  return read_fd(fd.get(), name, limit);
}

Result<void> write_private(int dir, const std::string& name, std::string_view data) {
  std::string tmp = "." + name + "." + std::to_string(::getpid()) + ".tmp";
  Fd fd(::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return sys_error("create " + tmp);
  auto r = write_all(fd.get(), data, tmp);
  if (r && ::renameat(dir, tmp.c_str(), dir, name.c_str()) < 0) r = sys_error("rename " + tmp + " to " + name);
  if (!r) ::unlinkat(dir, tmp.c_str(), 0);
  return r;
}

void prune_private(int dir, const CacheBounds& b) {
  struct Entry {
    std::string name;
    struct timespec mtime;
    uint64_t size;
  };
  Fd d(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* ds = d ? ::fdopendir(d.get()) : nullptr;
  if (!ds) return log::debug("cache: not pruned: cannot list it");
  d.release();
  struct timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  std::vector<Entry> entries;
  while (auto* e = ::readdir(ds)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::fstatat(::dirfd(ds), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode)) continue;
    if (name[0] == '.' && name.ends_with(".tmp") && now.tv_sec - st.st_mtim.tv_sec > 60) {
      ::unlinkat(::dirfd(ds), name.c_str(), 0);  // its writer is gone
      continue;
    }
    entries.push_back({std::move(name), st.st_mtim, uint64_t(st.st_size)});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    if (x.mtime.tv_sec != y.mtime.tv_sec) return x.mtime.tv_sec < y.mtime.tv_sec;
    if (x.mtime.tv_nsec != y.mtime.tv_nsec) return x.mtime.tv_nsec < y.mtime.tv_nsec;
    return x.name < y.name;  // one order whoever prunes
  });
  uint64_t bytes = 0;
  for (auto& e : entries) bytes += e.size;
  size_t count = entries.size();
  for (auto& e : entries) {
    if (count <= b.max_entries && bytes <= b.max_bytes) break;
    if (::unlinkat(::dirfd(ds), e.name.c_str(), 0) < 0 && errno != ENOENT) {
      log::debug("cache: prune " + e.name + ": " + std::strerror(errno));
      continue;
    }
    --count;
    bytes -= e.size;
  }
  ::closedir(ds);
}

}  // namespace sh
