// Which other bound of a policy covers a Landlock right when the kernel's ABI lacks it
// (docs/landlock.md "Older kernels: stand-ins" gives the argument for each). Pure: a function
// of the policy, and of the ABI for what is missing. A right with no stand-in is missing:
// refused without bestEffort, left out (and said so) with it.
//
//   bind_tcp, connect_tcp (ABI 4)   network "none": an empty network namespace, lo down
//   abstract_unix_socket (ABI 6)    a new network namespace (abstract names are per netns)
//                                   that no edge proxy works in (no TCP end of the mesh)
//   signal (ABI 6)                  a new pid namespace (no outside process has a pid in it)
//   truncate (ABI 3)                a read-only root and read-only binds, under a throwaway
//                                   uid: the writable mounts are the container's own
//   ioctl_dev (ABI 5)               the devices cgroup allows only null, zero, full, random,
//                                   urandom, and no capability is kept: no ioctl of theirs
//                                   changes anything without CAP_SYS_ADMIN
//   every other right (ABI 1, 2)    none
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "oci/landlock.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

// What a stand-in needs the host to have besides the policy: the bound itself must apply.
enum class StandInNeeds { network_ns, pid_ns, mount_ns, devices_cgroup };

struct StandIn {
  std::string by;   // "the pid namespace"
  std::string why;  // one clause: "no process outside it has a pid the workload can name"
  StandInNeeds needs;
};

// The bound of `p` that covers `right` when the kernel lacks it; nullopt when none does.
std::optional<StandIn> stand_in(const Policy& p, oci::LandlockKind kind, std::string_view right);

// One right of the policy's Landlock block that a kernel's ABI lacks.
struct Shortfall {
  oci::LandlockKind kind;
  std::string right;  // "signal"
  int abi = 0;        // the ABI that brought it
  std::optional<StandIn> stood_in;
};
// The rights of p's Landlock block (landlock_block) that `abi` lacks, in the kernel's order.
std::vector<Shortfall> landlock_shortfall(const Policy& p, int abi);

// Every stand-in of p's block, whatever the ABI (landlock_block puts them in the block).
std::vector<oci::LandlockStandIn> landlock_stand_ins(const Policy& p);

// "landlock fs right truncate needs Landlock ABI 3 (Linux 6.2); this kernel has ABI 2"
std::string needs_text(const Shortfall& s, int host_abi);
// "landlock scope signal (ABI 6): stood in for by the pid namespace"
std::string stood_in_text(const Shortfall& s);

}  // namespace sh::policy
