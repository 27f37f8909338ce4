// Small whole-file helpers. All opens are O_CLOEXEC; writes of state are atomic
// (write to a temp file in the same directory, fsync-free rename).
#pragma once
#include <fcntl.h>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh {

// open(2) with O_CLOEXEC always added; error names the path.
Result<Fd> open_file(const std::string& path, int flags, mode_t mode = 0);
Result<Fd> openat_file(int dirfd, const std::string& path, int flags, mode_t mode = 0);
// Read all of an fd / a file (error names the path).
Result<std::string> read_fd(int fd, const std::string& what, size_t limit = 64u << 20);
Result<std::string> read_file(const std::string& path, size_t limit = 64u << 20);
Result<std::string> read_file_at(int dirfd, const std::string& path, size_t limit = 64u << 20);
// write(2) all of data, retrying on EINTR/short writes.
Result<void> write_all(int fd, std::string_view data, const std::string& what);
// Write a file by opening it (O_WRONLY|O_TRUNC, creating with mode if flags say so).
Result<void> write_file(const std::string& path, std::string_view data, int flags = O_WRONLY | O_TRUNC,
                        mode_t mode = 0644);
Result<void> write_file_at(int dirfd, const std::string& path, std::string_view data,
                           int flags = O_WRONLY | O_TRUNC, mode_t mode = 0644);
// Atomically replace dir/name with data (temp file + rename), mode 0600 by default.
Result<void> write_file_atomic(const std::string& path, std::string_view data, mode_t mode = 0600);
// The same for `name` in the directory open as dirfd (no path walked again, no /proc magic
// link); `shown` is that file's path for messages.
Result<void> write_file_atomic_at(int dirfd, const std::string& name, std::string_view data, mode_t mode,
                                  const std::string& shown);

}  // namespace sh
