// Path resolution inside a root the container controls (§6.1): nothing here ever
// follows a symlink out of the root. Lookups use openat2(RESOLVE_IN_ROOT |
// RESOLVE_NO_MAGICLINKS); creation walks one component at a time relative to fds
// already verified to be inside, expanding symlinks as if the root were "/".
#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "base/lexical_path.hpp"

namespace sh::rootfs {

// openat2(root_fd, path, flags|O_CLOEXEC, RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS|extra).
// A leading "/" in path is fine. The error carries the errno (ENOENT for "absent").
Result<Fd> open_in_root(int root_fd, std::string_view path, int flags, uint64_t extra_resolve = 0);

// path_components and clean_path, lexical, are base/lexical_path.hpp's.

enum class Leaf { dir, file };

struct MkdirOptions {
  Leaf leaf = Leaf::dir;          // what to create at the end of the path if it is missing
  mode_t dir_mode = 0755;
  bool refuse_symlinks = false;   // any symlink on the way is an error (proc, sysfs targets)
  bool create = true;             // false: a missing component is ENOENT (resolve_in_root)
};

struct Resolved {
  std::string rel;  // the path with every symlink expanded, relative to the root ("" = root)
  Fd fd;            // O_PATH fd of it, opened through RESOLVE_IN_ROOT|RESOLVE_NO_SYMLINKS
};

// mkdir -p `path` inside the root: create what is missing (dirs, and the leaf as a dir
// or an empty file), resolving symlinks inside the root, and return the leaf.
Result<Resolved> mkdir_in_root(int root_fd, std::string_view path, const MkdirOptions& o = {});
// The same walk creating nothing: the canonical path of what `path` names inside the root (every
// symlink expanded inside it, as RESOLVE_IN_ROOT would), and an O_PATH fd of it.
Result<Resolved> resolve_in_root(int root_fd, std::string_view path);

// The canonical path of `path` inside the root (every symlink expanded as if the root were "/",
// ".." never above it), and what is there: `policy learn` names a file the way create's pins and
// Landlock rules must name it. With `follow_last` false a symlink at the end is the entry itself
// (O_NOFOLLOW, unlink, rename). A missing component ends the walk: the rest is appended as
// written and `exists` is false (what an O_CREAT or mkdir would make).
struct Canonical {
  std::string path;  // absolute, "/" for the root
  bool exists = false;
  struct stat st {};  // when exists
};
Result<Canonical> canonical_in_root(int root_fd, std::string_view path, bool follow_last);

// "/proc/thread-self/fd/N": the magic link of an fd, for APIs that need a path.
std::string fd_path(int fd);

}  // namespace sh::rootfs
