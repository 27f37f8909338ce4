// The exec allowlist's pins, hashed once per file rather than once per container.
//
// create hashes each pinned file as the bundle's rootfs has it, before init is cloned, and init
// (runtime/linux/exec_allowlist) takes that digest only for the very same object, unchanged:
// same device, inode, size, mtime and ctime. Files on a local disk or tmpfs (ext4, xfs, btrfs,
// tmpfs) have their digest kept in <root>/.cache/pins/<dev>-<ino> (base/private_cache), so the
// next container from the same files hashes nothing. Not kept on FUSE, network or overlay file systems: the first two
// can serve other bytes under the same attributes, and an overlay's device changes with every
// mount, so an entry would never be found again. Any write to a file changes its ctime, which
// the kernel sets and no system call can set back.
//
// But the kernel sets it from a coarse clock (one tick, 4 ms on Debian 12's 6.1, or whole
// seconds on a file system that keeps no nanoseconds): a write landing in the same tick as
// the hash leaves (size, mtime, ctime) as they were, and the digest would be wrong for every
// later container. So a digest is recorded only for a file that had settled: its ctime and
// mtime at least kSettleNs (2 s where the times have no nanoseconds) before the hashing
// began. Any later write then gets a later ctime. The line keeps when it was hashed, and a
// lookup checks the same rule again, so an entry written without it (an older runtime's)
// is never trusted. A file changed more recently is left to init, which hashes it itself.
#pragma once
#include <time.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/private_cache.hpp"
#include "runtime/linux/exec_allowlist.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::lifecycle {

inline constexpr int64_t kSettleNs = 1'000'000'000;         // ctime/mtime with nanoseconds
inline constexpr int64_t kSettleCoarseNs = 2'000'000'000;   // times in whole seconds
// At most this many entries of this many bytes in all, oldest pruned (base/private_cache).
inline constexpr CacheBounds kPinCacheBounds{1024, 256u << 10};

// Whether a digest of the object `h` describes, hashed from `hashed_at` on, may be recorded.
bool settled(const exec_allowlist::Hashed& h, const struct timespec& hashed_at);

// The wall clock (CLOCK_REALTIME); tests pass another to fake a write in the hash's tick.
using WallClock = struct timespec (*)();
struct timespec wall_clock();

// Digests of the pins found in `rootfs`, from the cache or hashed now. A pin that cannot be
// opened here, or changed too recently (settled() above), is left out: init checks it again
// after its mounts and reports what is wrong.
std::vector<exec_allowlist::Hashed> hash_pins(const std::string& state_root, const std::string& rootfs,
                                              std::span<const policy::Pin> pins, WallClock clock = wall_clock);

// The cache line for `h` hashed at `hashed_at` and back
// ("<size> <mtime s.ns> <ctime s.ns> <hashed s.ns> <sha256>"), for tests.
std::string pin_cache_line(const exec_allowlist::Hashed& h, const struct timespec& hashed_at);
bool parse_pin_cache_line(std::string_view line, exec_allowlist::Hashed& h, struct timespec& hashed_at);

}  // namespace sh::lifecycle
