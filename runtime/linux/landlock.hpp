// Landlock (kernel Documentation/userspace-api/landlock.rst) from a process.landlock block:
// negotiate the block against the running kernel's ABI, build the ruleset (path-beneath and
// TCP port rules) while the runtime is still root, and enforce it on the calling thread as
// one of the last steps before execve. Raw syscalls; no library.
//
// Order in the launch sequence (runtime/lifecycle/process_launch):
//   plan_launch: build_ruleset()  - after pivot_root (paths are container paths), before the
//                                   uid change (a path the user cannot read is still opened);
//   launch:      restrict_self()  - needs no_new_privs or CAP_SYS_ADMIN, and must come before
//                                   a seccomp filter that would deny landlock_restrict_self.
// docs/landlock.md says what Landlock holds and what it does not.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/landlock.hpp"

namespace sh::landlock {

// The kernel's Landlock ABI version (landlock_create_ruleset(NULL, 0, VERSION)); 0 when the
// kernel has no Landlock or it is disabled at boot. Asked once per process, then cached.
int abi_version();

// What of a config the kernel will enforce.
struct Negotiated {
  int abi = 0;               // the ABI negotiated against
  uint64_t fs_handled = 0;   // LANDLOCK_ACCESS_FS_* the ruleset handles
  uint64_t net_handled = 0;  // LANDLOCK_ACCESS_NET_*
  uint64_t scoped = 0;       // LANDLOCK_SCOPE_*
  // Best effort only: rights and scopes the config asked for that this ABI lacks, so they
  // are NOT enforced ("ioctl_dev", "signal"), and allow-rule paths that do not exist
  // (an allow that cannot apply: the result is tighter, never looser).
  std::vector<std::string> dropped;
  std::vector<std::string> skipped_paths;
  // Rights this ABI lacks that another bound of the policy stands in for (the block's
  // stand_ins): dropped whatever disableBestEffort says. {"signal", "the pid namespace"}.
  std::vector<std::pair<std::string, std::string>> stood_in;
  bool enforces_nothing() const { return !fs_handled && !net_handled && !scoped; }
};

// Negotiate `c` against `abi` (pass abi_version(); units pass lower ABIs). With best effort,
// what the ABI lacks is dropped and listed; with disableBestEffort it is an error naming the
// first such right and the ABI it needs: `landlock: right "ioctl_dev" needs ABI 5, kernel has 3`.
// A right of the block's stand_ins is dropped either way, into `stood_in`.
Result<Negotiated> negotiate(const oci::LandlockConfig& c, int abi);

// Create the ruleset and add every rule. Call as root, after pivot_root, before the uid
// change. Paths are opened O_PATH through openat2(RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS)
// against "/"; symlinks are followed inside the root, so a rule binds the object a path
// names at build time. A rule on a non-directory keeps only the file rights (execute,
// write_file, read_file, truncate, ioctl_dev), as the kernel requires. A missing path is an
// error with disableBestEffort and skipped (listed in skipped_paths) otherwise.
// Returns an empty Fd when nothing is left to enforce (best effort on a kernel without the
// asked features); restrict_self(-1) is then a no-op. `out` (may be null) gets the outcome.
Result<Fd> build_ruleset(const oci::LandlockConfig& c, Negotiated* out);
// The same against a given ABI (for units: a lower ABI than the kernel's is honoured).
Result<Fd> build_ruleset(const oci::LandlockConfig& c, Negotiated* out, int abi);

// Enforce the ruleset on the calling thread (and its future children). Needs no_new_privs
// or CAP_SYS_ADMIN in the current user namespace; the EPERM error says so. -1: no-op.
Result<void> restrict_self(int ruleset_fd);

// One line for logs and `policy explain`: what is enforced and what is not.
//   landlock ABI 7: fs [execute read_file read_dir], net [connect_tcp], scoped [signal]
//   landlock ABI 3: fs [read_file]; NOT enforced (kernel lacks): ioctl_dev (ABI 5), signal (ABI 6)
//   landlock ABI 2: fs [...]; stood in for (kernel lacks): signal (ABI 6) by the pid namespace
std::string describe(const Negotiated& n);

// For `features`: rights introduced by each ABI version (1..7; 7 added only logging flags,
// so its lists are empty), and what this kernel supports.
struct AbiRights {
  int abi = 0;
  std::vector<std::string> fs, net, scoped;
};
std::vector<AbiRights> rights_per_abi();
// Everything enforceable at `abi` (default: this kernel's).
AbiRights supported(int abi);
AbiRights supported();

}  // namespace sh::landlock
