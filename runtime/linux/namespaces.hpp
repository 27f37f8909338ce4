// Namespaces: which to create (clone flags) and which to join (fds opened and verified in
// the runtime, before any container code runs), and the uid/gid maps of a new user namespace.
#pragma once
#include <sys/types.h>

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

// Write /proc/<pid>/uid_map and gid_map (and "deny" to setgroups first when asked).
Result<void> write_id_maps(pid_t pid, const std::vector<oci::IdMapping>& uids,
                           const std::vector<oci::IdMapping>& gids, bool deny_setgroups);
// Format one map file's contents ("0 100000 65536\n"), for units.
std::string format_id_map(const std::vector<oci::IdMapping>& m);

}  // namespace sh::ns
