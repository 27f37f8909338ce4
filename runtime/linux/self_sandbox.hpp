// The harsh bounds a helper process (the KMS gate and worker, the edge proxy) puts on itself
// once it holds what it needs (docs/kms.md, docs/edges.md "The proxies"). Each step
// is one call so a main reads as the list of DESIGN.md §2:
//   empty_root      a fresh mount namespace whose root is an empty read-only tmpfs
//   harden          PR_SET_DUMPABLE 0, RLIMIT_CORE 0 and MEMLOCK 0, few files, few threads
//   drop_to         a throwaway uid/gid, no supplementary groups, every capability gone
//                   (bounding, ambient, inheritable, permitted, effective)
//   confine         no_new_privs, Landlock (no file, no TCP port but those named, scoped
//                   signals and abstract sockets), then a seccomp allowlist (anything else
//                   kills the process: a sandboxed helper that strays is compromised or broken,
//                   and a dead one fails closed where an EPERM would let it probe)
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sh::sandbox {

// Needs CAP_SYS_ADMIN; call right after unshare(CLONE_NEWNS) (or clone with it).
Result<void> empty_root();
// `nofile`: the RLIMIT_NOFILE the process keeps. `nproc` (0: unchanged): the RLIMIT_NPROC,
// counted per real uid, so with a uid of its own it bounds the process's threads.
Result<void> harden(unsigned nofile, unsigned nproc = 0);
Result<void> drop_to(uid_t uid, gid_t gid);
// Landlock and seccomp; `syscalls` by name (libseccomp resolves them). Returns a line saying
// what Landlock enforces on this kernel, for the log.
Result<std::string> confine(const std::vector<std::string>& syscalls);

struct Bounds {
  std::vector<std::string> syscalls;  // allowed, any arguments
  // Threads but no processes: clone only with CLONE_THREAD; clone3 (whose flags a filter
  // cannot read) fails with ENOSYS, and glibc's pthread_create falls back to clone.
  bool threads = false;
  std::vector<uint16_t> connect_ports;  // Landlock: the only TCP ports it may connect to
};
Result<std::string> confine(const Bounds& b);

// Syscalls every KMS process needs (memory, exit, randomness, its own fds).
const std::vector<std::string>& base_syscalls();

}  // namespace sh::sandbox
