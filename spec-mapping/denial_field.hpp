// Which policy field would allow a denial (docs/denials.md): the review a denial record points
// at. Pure: the bound and what it refused in, the field and a suggestion out.
#pragma once
#include <string>

namespace sh::policy {

struct DenialField {
  std::string field;  // "syscalls.allow", "files", "exec", "ports.connect", "ports.bind", "scope"
  std::string allow;  // what a reviewer would add, in the policy's own words
};

// seccomp: the syscall's name. landlock: the blockers ("fs.read_file", "net.connect_tcp",
// "scope.signal"; several joined by ','), the path or the port.
DenialField seccomp_field(const std::string& syscall);
DenialField landlock_field(const std::string& blockers, const std::string& path, int port);

}  // namespace sh::policy
