#include "spec-mapping/denial_field.hpp"

#include "spec-mapping/syscall_groups.hpp"

namespace sh::policy {
namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// The blockers' rights of one kind ("fs.read_file,fs.execute", "fs.") -> ["read_file", ...].
std::string rights(const std::string& blockers, const std::string& kind) {
  std::string out;
  size_t at = 0;
  while (at <= blockers.size()) {
    size_t end = blockers.find(',', at);
    if (end == std::string::npos) end = blockers.size();
    std::string b = blockers.substr(at, end - at);
    if (b.starts_with(kind)) out += (out.empty() ? "" : ", ") + quoted(b.substr(kind.size()));
    at = end + 1;
  }
  return "[" + out + "]";
}

}  // namespace

DenialField seccomp_field(const std::string& syscall) {
  DenialField f{"syscalls.allow", "add " + quoted(syscall) + " to syscalls.allow"};
  // A group that has it, as a reviewer might prefer; the first in name order.
  for (const auto& g : group_names()) {
    auto members = expand_group(g);
    if (members && members->contains(syscall)) {
      f.allow += " (or the group " + quoted(g) + ")";
      break;
    }
  }
  // New namespaces are the namespaces section's, never a syscall rule's (seccomp_map.cpp).
  if (syscall == "clone" || syscall == "unshare" || syscall == "setns")
    f.allow += "; with CLONE_NEW* flags it stays refused: a policy's namespaces are made by the runtime";
  return f;
}

DenialField landlock_field(const std::string& blockers, const std::string& path, int port) {
  if (blockers.find("fs.execute") != std::string::npos)
    return {"exec", "pin " + quoted(path) + " in exec (sharness-runtime policy pin fills in its SHA-256)"};
  if (blockers.starts_with("fs."))
    return {"files", "add " + quoted(path) + ": " + rights(blockers, "fs.") + " to files"};
  if (blockers.starts_with("net.bind_tcp")) return {"ports.bind", "add " + std::to_string(port) + " to ports.bind"};
  if (blockers.starts_with("net.connect_tcp"))
    return {"ports.connect", "add " + std::to_string(port) + " to ports.connect"};
  if (blockers.starts_with("scope."))
    return {"scope", "remove " + quoted(blockers.substr(6)) + " from scope"};
  return {"", "unknown Landlock blocker " + quoted(blockers)};
}

}  // namespace sh::policy
