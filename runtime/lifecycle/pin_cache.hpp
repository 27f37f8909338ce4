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
#pragma once
#include <span>
#include <string>
#include <vector>

#include "runtime/linux/exec_allowlist.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::lifecycle {

// Digests of the pins found in `rootfs`, from the cache or hashed now. A pin that cannot be
// opened here is left out: init checks it again after its mounts and reports what is wrong.
std::vector<exec_allowlist::Hashed> hash_pins(const std::string& state_root, const std::string& rootfs,
                                              std::span<const policy::Pin> pins);

// The cache line for `h` and back ("<size> <mtime s.ns> <ctime s.ns> <sha256>"), for tests.
std::string pin_cache_line(const exec_allowlist::Hashed& h);
bool parse_pin_cache_line(std::string_view line, exec_allowlist::Hashed& h);

}  // namespace sh::lifecycle
