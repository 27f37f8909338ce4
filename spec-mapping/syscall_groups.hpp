// Named syscall groups for policies ("@basic-io", "@file-system", ...), modelled on the sets
// systemd documents for SystemCallFilter= (systemd.exec(5)). The member lists are our own,
// restricted to syscalls that exist on x86_64, and deliberately keep namespace and tracing
// calls (unshare, setns, ptrace, process_vm_*) out of the everyday groups: a policy that
// wants them has to name them.
#pragma once
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh::policy {

// Every group name, "@..." sorted.
std::vector<std::string> group_names();
bool is_group(std::string_view name);
// The syscalls of a group, nested groups expanded. Error for an unknown group.
Result<std::set<std::string>> expand_group(std::string_view name);
// Names and "@groups" mixed, as a policy's syscalls.allow lists them, expanded to syscalls.
Result<std::set<std::string>> expand(const std::vector<std::string>& names_and_groups);

}  // namespace sh::policy
