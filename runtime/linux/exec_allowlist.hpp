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

// How `policy pin` treats a symlink on the way to a pin (docs/policy.md "Refreshing pins").
enum class Symlinks {
  refuse,        // exactly as create resolves a pin (RESOLVE_NO_SYMLINKS)
  follow,        // resolved inside the root, the pin keeps its path (`--rootfs /`: the host's build)
  canonicalize,  // resolved inside the root, the pin moves to the canonical path (`--bundle`)
};

// `policy pin`: the pin (its path, or its canonical path with Symlinks::canonicalize, and the
// SHA-256) of the regular file `path` names inside the directory `root` (an
// O_PATH fd). Resolved with openat2 RESOLVE_IN_ROOT (no escape, no magic links) and O_NOFOLLOW.
// The file is opened O_PATH first (a FIFO or device named like a pin is never opened), then
// reopened for reading and checked to be the same inode. Errors name the path as pin_all's do.
Result<policy::Pin> hash_in_root(int root, const std::string& path, Symlinks symlinks);

// The command that refreshes a stale pin, for the error that reports one.
inline constexpr const char* kRepinCommand = "sharness-runtime policy pin --bundle BUNDLE POLICY.json --out POLICY.json";

// Verify and bind every pin, relative to the current root. The first missing file, a
// non-regular file, a symlink on the way or a hash mismatch is an error naming the file:
//   exec allowlist: /bin/busybox: SHA-256 is 3d9f..., the policy pins 0000...; if this build
//   is the one to trust, refresh the pin: sharness-runtime policy pin --bundle BUNDLE ...
// A pin whose file is one of `known` is not hashed again.
Result<void> pin_all(std::span<const policy::Pin> pins, std::span<const Hashed> known = {});

}  // namespace sh::exec_allowlist
