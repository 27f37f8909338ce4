// The harsh bounds a KMS process puts on itself once it holds what it needs (docs/kms.md
// "Sandbox"). Each step is one call so main_kms reads as the list of DESIGN.md §2:
//   empty_root      a fresh mount namespace whose root is an empty read-only tmpfs
//   harden          PR_SET_DUMPABLE 0, RLIMIT_CORE 0, no new files or processes
//   drop_to         a throwaway uid/gid, no supplementary groups, every capability gone
//                   (bounding, ambient, inheritable, permitted, effective)
//   confine         no_new_privs, Landlock (no file, no TCP port, scoped signals and
//                   abstract sockets), then a seccomp allowlist (anything else kills)
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/error.hpp"

namespace sh::kms {

// Needs CAP_SYS_ADMIN; call right after unshare(CLONE_NEWNS) (or clone with it).
Result<void> empty_root();
// `nofile`: the RLIMIT_NOFILE the process keeps (it opens nothing new after this).
Result<void> harden(unsigned nofile);
Result<void> drop_to(uid_t uid, gid_t gid);
// Landlock and seccomp; `syscalls` by name (libseccomp resolves them). Returns a line saying
// what Landlock enforces on this kernel, for the log.
Result<std::string> confine(const std::vector<std::string>& syscalls);

// Syscalls every KMS process needs (memory, exit, randomness, its own fds).
const std::vector<std::string>& base_syscalls();

}  // namespace sh::kms
