// A cache of compiled seccomp filters (as crun keeps one): the BPF program libseccomp generates
// for a linux.seccomp section, stored under <state root>/.cache/seccomp/<key>.bpf, so that
// create and exec load it with seccomp(2) instead of building libseccomp's rule DB and
// generating the program again (0.6 ms for a 120-rule allowlist, several ms for Docker's
// default profile).
//
// The key is the SHA-256 of everything the program depends on: a canonical serialization of
// the section, libseccomp's version, the kernel API level it detected, the native arch, and
// the runtime's version and build id. An entry is used only if its directories and file pass
// base/private_cache's checks (ours, not a symlink, no group or other permission bits), its
// size fits, and the digest in its header matches; anything else is ignored (logged at debug) and the filter
// compiled afresh, so the cache can never fail a container. Filters with SCMP_ACT_NOTIFY are
// never cached: their load must hand back a listener fd (libseccomp's path does). After each
// store the directory is pruned to kBounds, oldest entries first: a client that varies its
// profile cannot fill the disk under the state root.
#pragma once
#include <string>

#include "base/error.hpp"
#include "base/private_cache.hpp"
#include "oci/config.hpp"
#include "runtime/linux/seccomp.hpp"

namespace sh::seccomp {

// At most 256 programs (one is at most 72 + 4096 * 8 bytes) and 8 MiB in all.
inline constexpr CacheBounds kCacheBounds{256, 8u << 20};

// The entry's name (lowercase hex) for `s` on this libseccomp, kernel and runtime build.
std::string cache_key(const oci::Seccomp& s);
// Whether `s` may be cached (no SCMP_ACT_NOTIFY rule).
bool cacheable(const oci::Seccomp& s);
// Compile `s`, through the cache under `state_root` ("" = no cache: libseccomp as before).
// Errors are compile errors only; a cache problem falls back to compiling.
Result<Filter> compile_cached(const oci::Seccomp& s, const std::string& state_root);

}  // namespace sh::seccomp
