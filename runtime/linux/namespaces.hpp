// Namespaces: which to create (clone flags) and which to join (fds opened and verified in
// the runtime, before any container code runs), and the uid/gid maps of a new user namespace.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"

namespace sh::ns {

// "network" -> CLONE_NEWNET; 0 for an unknown type.
int clone_flag(std::string_view type);
// "network" -> "net" (the /proc/<pid>/ns/ entry name).
const char* proc_name(std::string_view type);

struct Join {
  int flag = 0;  // CLONE_NEW*
  Fd fd;         // nsfs fd, verified to be of that type
  std::string path;
};

struct Plan {
  unsigned long new_flags = 0;   // every namespace to create
  std::vector<Join> joins;       // every namespace to join (user first)
  bool new_user() const;
  bool joins_user() const;
  bool has(int flag) const;      // new or joined
};

// Open every path namespace (O_RDONLY|O_CLOEXEC) and check with NS_GET_NSTYPE that it is
// a namespace of the declared type: a path to anything else is refused.
Result<Plan> plan(const oci::Config& c);

// How the maps of a new user namespace are written. With CAP_SETUID/CAP_SETGID over the host's
// ids (euid 0) both are written directly. An unprivileged caller may write only its own id, size 1
// (the gid only after "deny" to setgroups): such a map is written directly and any other goes
// through the setuid newuidmap/newgidmap (Debian's uidmap), which allow what /etc/subuid and
// /etc/subgid grant the caller. That is what runc and crun do.
struct IdMapPlan {
  bool deny_setgroups = false;  // "deny" to /proc/<pid>/setgroups before gid_map
  bool uid_tool = false;        // newuidmap instead of a write of uid_map
  bool gid_tool = false;        // newgidmap instead of a write of gid_map
};
IdMapPlan plan_id_maps(const std::vector<oci::IdMapping>& uids, const std::vector<oci::IdMapping>& gids,
                       bool privileged, uint32_t euid, uint32_t egid);

// Write /proc/<pid>/uid_map and gid_map as planned (for the caller's own euid and egid).
Result<void> write_id_maps(pid_t pid, const std::vector<oci::IdMapping>& uids,
                           const std::vector<oci::IdMapping>& gids);
// newuidmap/newgidmap's arguments after the pid ("0 100000 65536 ..."), for units.
std::vector<std::string> map_tool_args(pid_t pid, const std::vector<oci::IdMapping>& m);
// Format one map file's contents ("0 100000 65536\n"), for units.
std::string format_id_map(const std::vector<oci::IdMapping>& m);

}  // namespace sh::ns
