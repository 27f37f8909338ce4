// A policy's syscalls section -> an OCI linux.seccomp object (the filter the runtime stacks
// on top of the config's own). Allowlist semantics: every listed syscall (groups expanded)
// is allowed, everything else gets the default action. Three rules are fixed:
//  - execve, exit, exit_group, rt_sigreturn and restart_syscall are always allowed: the
//    filter is loaded right before execve, and a process must be able to exit and return
//    from a signal handler;
//  - clone and unshare are allowed only when their flags carry no CLONE_NEW* bit
//    (SCMP_CMP_MASKED_EQ on argument 0): no new namespaces from inside;
//  - clone3 returns ENOSYS: its flags sit in a struct seccomp cannot read, and on ENOSYS
//    libc falls back to clone, whose flags it can.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

// CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET. (CLONE_NEWTIME, 0x80, overlaps
// the exit-signal byte of clone(2)'s flags and is added only for unshare.)
inline constexpr uint64_t kCloneNewMask = 0x7E020000ull;
inline constexpr uint64_t kCloneNewTime = 0x80ull;

inline constexpr const char* kAlwaysAllowed[] = {"execve", "exit", "exit_group", "restart_syscall", "rt_sigreturn"};

// The syscalls a section allows: groups expanded, the always-allowed added, clone3 removed
// (it is answered with ENOSYS).
Result<std::set<std::string>> allowed_syscalls(const Syscalls& s);
// The filter, or nullopt when the policy has no syscalls section.
Result<std::optional<oci::Seccomp>> seccomp_filter(const Policy& p);
// The same from `allowed`, the section's allowed_syscalls() (a caller that has them already).
std::optional<oci::Seccomp> seccomp_filter(const Policy& p, const std::set<std::string>& allowed);

}  // namespace sh::policy
