// The container's init: the child of clone3 that sets up the container from inside,
// reports `ready` over the sync socket, waits on the start barrier (a listening unix
// socket in the state dir, or for run the sync socket itself), and on `start` applies the last
// bounds and execs the process.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "base/fd.hpp"

#include "oci/config.hpp"
#include "oci/landlock.hpp"
#include "spec-mapping/policy.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/exec_allowlist.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/netdev.hpp"
#include "runtime/linux/seccomp.hpp"

namespace sh::lifecycle {

struct InitContext {
  const oci::Config* config = nullptr;
  const ns::Plan* plan = nullptr;
  std::string id;
  std::string rootfs;
  int sync_fd = -1;      // socketpair end to the runtime
  int listen_fd = -1;    // start barrier; -1: `start` comes over sync_fd (run)
  int console_fd = -1;   // --console-socket connection, or -1
  bool no_pivot = false;
  bool no_new_keyring = false;
  bool cgroupns_after_join = false;  // unshare(CLONE_NEWCGROUP) once the runtime put us in the cgroup
  unsigned preserve_fds = 0;
  int state_dir_fd = -1;  // the runtime's locked state dir: init must not hold the flock
  // Host directories the runtime keeps open (cgroup roots and the container's cgroup dirs):
  // closed first thing, so no container-controlled path can reach them (CVE-2024-21626).
  std::vector<int> host_fds;
  // The v1 cgroup `tasks` files init writes "0" to first thing, joining the container's cgroup
  // itself (cgroups::Cgroup::open_v1_tasks says why); then closes them.
  const std::vector<cgroups::TasksFile>* cgroup_tasks = nullptr;
  const std::vector<seccomp::Filter>* filters = nullptr;  // compiled by the runtime: the config's, a policy's
  const seccomp::Filter* recording = nullptr;             // policy learn: the recording filter, loaded last
  bool deny_write_execute = false;                        // a policy's memory.denyWriteExecute
  const oci::LandlockConfig* policy_landlock = nullptr;  // a policy's Landlock layer (sharness.landlock)
  const std::vector<policy::Pin>* exec_pins = nullptr;    // a policy's exec allowlist
  const std::vector<exec_allowlist::Hashed>* pin_hashes = nullptr;  // its files the runtime hashed
  const std::vector<std::string>* only_devices = nullptr;  // a policy's device list
  const std::string* host_mountinfo = nullptr;  // the runtime's mountinfo (cgroups::Layout), read before the clone
  bool loopback_up = false;                      // a new network namespace: bring lo up
  bool audit_session = false;  // a new audit session (loginuid): the denials reader's key (denial_reader.hpp)
  const std::vector<netdev::Device>* net_devices = nullptr;  // linux.netDevices, moved in by the runtime
  const std::vector<std::pair<size_t, Fd>>* premade_mounts = nullptr;  // idmapped binds made by the runtime
};

[[noreturn]] void init_main(const InitContext& ctx);

}  // namespace sh::lifecycle
