#include "spec-mapping/seccomp_map.hpp"

#include <cerrno>
#include <vector>

#include "spec-mapping/syscall_groups.hpp"

namespace sh::policy {

Result<std::set<std::string>> allowed_syscalls(const Syscalls& s) {
  auto names = TRY(expand(s.allow));
  for (const char* n : kAlwaysAllowed) names.insert(n);
  names.erase("clone3");
  return names;
}

Result<std::optional<oci::Seccomp>> seccomp_filter(const Policy& p) {
  if (!p.syscalls) return std::optional<oci::Seccomp>{};
  return seccomp_filter(p, TRY(allowed_syscalls(*p.syscalls)));
}

std::optional<oci::Seccomp> seccomp_filter(const Policy& p, const std::set<std::string>& names) {
  if (!p.syscalls) return std::nullopt;
  oci::Seccomp f;
  switch (p.syscalls->default_action) {
    case DefaultAction::errno_eperm:
      f.default_action = "SCMP_ACT_ERRNO";
      f.default_errno_ret = EPERM;
      break;
    case DefaultAction::kill: f.default_action = "SCMP_ACT_KILL_PROCESS"; break;
    case DefaultAction::log: f.default_action = "SCMP_ACT_LOG"; break;
  }
  // The kernel audits what the filter refuses (not what it allows): the denials reader
  // (docs/denials.md) reads it. ERRNO is logged only with this flag; KILL always.
  f.flags = {"SECCOMP_FILTER_FLAG_LOG"};
  // No architectures listed: only the native one is allowed; a syscall made through another
  // ABI (int 0x80, x32) hits libseccomp's bad-architecture action, which kills.
  std::vector<std::string> plain;
  for (const auto& n : names)
    if (n != "clone" && n != "unshare") plain.push_back(n);
  f.syscalls.push_back({plain, "SCMP_ACT_ALLOW", std::nullopt, {}});
  if (names.contains("clone"))
    f.syscalls.push_back({{"clone"}, "SCMP_ACT_ALLOW", std::nullopt, {{0, kCloneNewMask, 0, "SCMP_CMP_MASKED_EQ"}}});
  if (names.contains("unshare"))
    f.syscalls.push_back(
        {{"unshare"}, "SCMP_ACT_ALLOW", std::nullopt, {{0, kCloneNewMask | kCloneNewTime, 0, "SCMP_CMP_MASKED_EQ"}}});
  f.syscalls.push_back({{"clone3"}, "SCMP_ACT_ERRNO", uint32_t(ENOSYS), {}});
  return f;
}

}  // namespace sh::policy
