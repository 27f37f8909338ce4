#include "base/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace sh {

Result<Fd> open_file(const std::string& path, int flags, mode_t mode) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) return sys_error("open " + path);
  return Fd(fd);
}

Result<Fd> openat_file(int dirfd, const std::string& path, int flags, mode_t mode) {
  int fd = ::openat(dirfd, path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) return sys_error("open " + path);
  return Fd(fd);
}

Result<std::string> read_fd(int fd, const std::string& what, size_t limit) {
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return sys_error("read " + what);
    }
    if (n == 0) break;
    if (out.size() + size_t(n) > limit) return fail("read " + what + ": larger than " + std::to_string(limit) + " bytes");
    out.append(buf, size_t(n));
  }
  return out;
}

Result<std::string> read_file(const std::string& path, size_t limit) {
  Fd fd = TRY(open_file(path, O_RDONLY));
  return read_fd(fd.get(), path, limit);
}

Result<std::string> read_file_at(int dirfd, const std::string& path, size_t limit) {
  Fd fd = TRY(openat_file(dirfd, path, O_RDONLY));
  return read_fd(fd.get(), path, limit);
}

Result<void> write_all(int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return sys_error("write " + what);
    }
    data.remove_prefix(size_t(n));
  }
  return {};
}

Result<void> write_file(const std::string& path, std::string_view data, int flags, mode_t mode) {
  Fd fd = TRY(open_file(path, flags, mode));
  return write_all(fd.get(), data, path);
}

Result<void> write_file_at(int dirfd, const std::string& path, std::string_view data, int flags, mode_t mode) {
  Fd fd = TRY(openat_file(dirfd, path, flags, mode));
  return write_all(fd.get(), data, path);
}

Result<void> write_file_atomic(const std::string& path, std::string_view data, mode_t mode) {
  return write_file_atomic_at(AT_FDCWD, path, data, mode, path);
}

Result<void> write_file_atomic_at(int dirfd, const std::string& name, std::string_view data, mode_t mode,
                                  const std::string& shown) {
  const std::string tmp = name + ".tmp";
  {
    int fd = ::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) return sys_error("open " + shown + ".tmp");
    Fd f(fd);
    TRYV(write_all(fd, data, shown + ".tmp"));
  }
  if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) < 0) {
    int e = errno;
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return sys_error("rename " + shown + ".tmp to " + shown, e);
  }
  return {};
}

}  // namespace sh
