// The exec allowlist's pins (docs/landlock.md "The exec allowlist"): at create, inside the
// container's mount namespace after pivot_root, each pinned file is opened without
// following any symlink (openat2 RESOLVE_IN_ROOT|RESOLVE_NO_SYMLINKS), checked to be a
// regular file, hashed from that fd (OpenSSL SHA-256), and the very object hashed is then
// bind-mounted read-only, nosuid, nodev over its own path, so the container cannot change
// what it runs. Landlock's execute right on the pins is granted by the policy's block,
// built after this, against the bound files.
#pragma once
#include <sys/stat.h>
#include <time.h>

#include <span>
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::exec_allowlist {

// Lowercase hex SHA-256 of everything readable from `fd` (from its current offset).
Result<std::string> sha256_fd(int fd, const std::string& what);

// A pinned file the runtime already hashed before init was cloned (runtime/lifecycle/pin_cache):
// init trusts the digest only for the very same object, unchanged (inode, size, times).
struct Hashed {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  struct timespec mtime{}, ctime{};
  std::string sha256;
};
// Whether `st` is the object `h` describes, unchanged.
bool same_object(const struct stat& st, const Hashed& h);

// Verify and bind every pin, relative to the current root. The first missing file, a
// non-regular file, a symlink on the way or a hash mismatch is an error naming the file:
//   exec allowlist: /bin/busybox: SHA-256 is 3d9f..., the policy pins 0000...
// A pin whose file is one of `known` is not hashed again.
Result<void> pin_all(std::span<const policy::Pin> pins, std::span<const Hashed> known = {});

}  // namespace sh::exec_allowlist
