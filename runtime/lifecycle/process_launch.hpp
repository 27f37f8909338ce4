// The last steps before a container process runs, shared by init (create/start) and exec,
// so that exec can never be a way around a bound the container has: resolve the
// executable inside the container, compile every seccomp filter up front (errors surface
// before anything runs), then drop to the user, set capabilities and no_new_privs, load
// the filters last, keep only stdio and preserved fds, execve.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"
#include "oci/landlock.hpp"
#include "runtime/linux/seccomp.hpp"

namespace sh::lifecycle {

struct LaunchPlan {
  const oci::Process* process = nullptr;
  std::string exe;                       // resolved path of args[0]
  std::vector<seccomp::Filter> filters;  // the config's, then a policy's stacked filter
  std::vector<Fd> landlock;              // rulesets, each a layer (the container's, then exec's own)
  Fd apparmor;                           // the exec attribute, for process.apparmorProfile
  unsigned preserve_fds = 0;
  bool setgroups_allowed = true;
  const oci::MemoryPolicy* memory_policy = nullptr;  // linux.memoryPolicy (init and exec alike)
  // process.execCPUAffinity (exec only): the CPUs to run on from execve; with only `initial`
  // given, every CPU the cgroup allows (the initial set was the runtime's part's).
  bool reset_affinity = false;
  std::optional<std::string> final_cpus;
  std::string home_env;                  // "HOME=..." when the env lacks HOME (as runc), else ""
  // The socket to the runtime command that hands a seccomp notify fd to listenerPath
  // (seccomp_listener.hpp): init's start connection, or exec's sync socket.
  int notify_sink = -1;
  // policy learn: the recording filter (runtime/linux/syscall_recorder), loaded after every other
  // bound; its listener's number is announced on `notify_sink` first.
  std::optional<seccomp::Filter> recording;
  bool deny_write_execute = false;       // a policy's memory.denyWriteExecute (PR_SET_MDWE), init and exec alike
};

// Compile the seccomp filters to stack (nulls skipped), through the cache under `cache_root`
// ("" = no cache). Called by the runtime before it clones init or the exec process: the
// cache lives on the host and the programs are simply in the child's copy of our memory.
Result<std::vector<seccomp::Filter>> compile_filters(const std::vector<const oci::Seccomp*>& filters,
                                                     const std::string& cache_root);
// An exec'd process keeps the container's AppArmor profile: a --process file without one
// gets it (as runc does), one naming another profile is refused (it could be "unconfined").
// Where the container has none, exec may ask for one: that only tightens.
Result<void> keep_container_lsm(const oci::Process& container, oci::Process& p);
// Resolve the executable (as execvp would, with the process's PATH), take the filters.
// `landlock`: Landlock blocks to stack, one layer each (the config's process.landlock, a
// policy's sharness.landlock, exec's own); rulesets are built now, while the paths are
// still reachable as root, and enforced in launch(). process.apparmorProfile opens the
// task's exec attribute (runtime/linux/apparmor; refused where AppArmor is not enabled);
// process.selinuxLabel is refused (SELinux labels are not implemented).
Result<LaunchPlan> plan_launch(const oci::Process& p, std::vector<seccomp::Filter> filters,
                               const std::vector<oci::LandlockConfig>& landlock, unsigned preserve_fds);
// chdir into cwd and check getcwd() is inside the container (CVE-2024-21626).
Result<void> enter_cwd(const std::string& cwd);
// Apply the AppArmor profile (onexec), the memory policy and CPU affinity, user, capabilities,
// no_new_privs, seccomp, fd hygiene, then execve. Returns only on error. The memory policy and
// affinity come before the filters: a seccomp profile such as Docker's may deny set_mempolicy.
Result<void> launch(const LaunchPlan& plan);

}  // namespace sh::lifecycle
