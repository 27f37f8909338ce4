// Files the runtime keeps for itself under a state root, <root>/.cache/<kind>/<name> (compiled
// seccomp filters, pinned-file digests). They are trusted as the rest of the state root is, so
// only what nobody else could have written is read: every directory on the way and the file
// must be ours (owned by our euid, not a symlink) and private (no group or other permission
// bits). Writes are whole or absent: a temp file named for our pid, then rename.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh {

// <root>/.cache/<kind>, made 0700 where missing, checked as above.
Result<Fd> open_private_cache(const std::string& state_root, const std::string& kind);
// The regular file `name` in `dir`, checked as above, at most `limit` bytes.
Result<std::string> read_private(int dir, const std::string& name, size_t limit);
// Replace `name` in `dir` with `data` (0600).
Result<void> write_private(int dir, const std::string& name, std::string_view data);

// A cache's bounds: what is kept after each write, whatever its clients do (a client that
// varies its seccomp profile or its pinned files makes a new entry each time).
struct CacheBounds {
  size_t max_entries;
  uint64_t max_bytes;  // the sum of the entries' sizes
};
// Remove the oldest entries of `dir` (by mtime: the time they were written) until at most
// `b.max_entries` entries of at most `b.max_bytes` bytes in all remain. A temp file a writer
// left behind (".NAME.PID.tmp", from a runtime that died between create and rename) is
// removed once it is a minute old, and counts until then. Best effort: what cannot be listed
// or removed stays (logged at debug), never an error for the container.
void prune_private(int dir, const CacheBounds& b);

}  // namespace sh
