// What this host offers, as plain data: the kernel release, Landlock's ABI, the namespaces, the
// cgroup controllers, seccomp, AppArmor and a few syscalls. It sits in base so that the policy
// layer (`policy explain`, the bounds `create` checks) is handed one probe's result and never
// reads the host itself; runtime/linux/host_facts.hpp fills it.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sh::host {


struct Facts {
  std::string kernel;  // uname -r: "6.1.0-18-amd64"; empty when not probed
  int landlock_abi = 0;  // landlock_create_ruleset(VERSION); 0: no Landlock (or disabled at boot)
  std::set<std::string> namespaces;  // OCI names whose /proc/self/ns entry exists
  bool memory_cgroup = false, cpu_cgroup = false, pids_cgroup = false, devices_cgroup = false;
  bool seccomp = false;       // prctl(PR_GET_SECCOMP) works (CONFIG_SECCOMP)
  bool no_new_privs = false;  // prctl(PR_GET_NO_NEW_PRIVS) works
  bool pidfd = false;         // pidfd_open(2) works (the watchdog needs it)
  bool memfd_noexec = false;  // /proc/sys/vm/memfd_noexec is there (Linux 6.3+) and ours to write (host root)
  bool memfd_secret = false;  // memfd_secret(2) works (Linux 5.14+, secretmem enabled)
  bool mdwe = false;          // prctl(PR_GET_MDWE) answers: memory-deny-write-execute (Linux 6.3+)

  // Filled by probe(Depth::features) only: what `features` lists and nothing else asks.
  bool apparmor = false;  // the kernel answers AppArmor's attributes
  struct Seccomp {
    std::vector<std::string> actions, operators, archs;
    std::vector<std::string> known_flags;      // flags this build knows the meaning of
    std::vector<std::string> supported_flags;  // the subset libseccomp and the kernel can set
    unsigned api = 0;                          // libseccomp's API level
  };
  std::optional<Seccomp> seccomp_detail;
  std::vector<std::string> capabilities;  // every CAP_* of this kernel a config can name
  bool idmap_mounts = false;              // a tmpfs can be idmapped (probed in a forked child)
};

}  // namespace sh::host
