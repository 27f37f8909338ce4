// The features document of this build and host: what the kernel and the libraries here take,
// probed. (pause.cpp, update.cpp and cgroup_reads.cpp hold the operations on a living container.)
#include "runtime/lifecycle/features.hpp"

#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/json.hpp"
#include "base/log.hpp"
#include "oci/spec13.hpp"
#include "runtime/linux/landlock.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/rootfs.hpp"


namespace sh::lifecycle {
namespace {

// Candidates are the names this runtime's option parser has; keeping only those it really
// takes as options (not as filesystem data) keeps the list honest if the parser changes.
std::vector<std::string> accepted_mount_options() {
  static constexpr const char* kCandidates[] = {
      "async",     "atime",      "bind",        "defaults",     "dev",           "diratime",    "dirsync",
      "exec",      "idmap",      "iversion",    "lazytime",     "loud",          "mand",        "noatime",
      "nodev",     "nodiratime", "noexec",      "noiversion",   "nolazytime",    "nomand",      "norelatime",
      "nostrictatime", "nosuid", "nosymfollow", "private",      "ratime",        "rbind",       "rdev",
      "rdiratime", "relatime",   "remount",     "rexec",        "ridmap",        "rnoatime",    "rnodev",
      "rnodiratime", "rnoexec",  "rnorelatime", "rnostrictatime", "rnosuid",     "rnosymfollow", "ro",
      "rprivate",  "rrelatime",  "rro",         "rrw",          "rshared",       "rslave",      "rstrictatime",
      "rsuid",     "rsymfollow", "runbindable", "rw",           "shared",        "silent",      "slave",
      "strictatime", "suid",     "symfollow",   "sync",         "tmpcopyup",     "unbindable",
  };
  std::vector<std::string> out;
  for (const char* o : kCandidates) {
    auto f = rootfs::parse_mount_options({o});
    if (f.data.empty()) out.emplace_back(o);
  }
  return out;
}

}  // namespace

oci::Features host_features(const host::Facts& host) {
  oci::Features f;
  f.hooks = {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"};
  f.mount_options = accepted_mount_options();
  f.linux.namespaces.assign(host.namespaces.begin(), host.namespaces.end());
  f.linux.capabilities = host.capabilities;
  // Both cgroup versions (and hybrid) are implemented; systemd (and a user manager) through
  // sharness-systemd on a v2 host; rdma refused.
  f.linux.cgroup = {.v1 = true, .v2 = true, .systemd = true, .systemd_user = true, .rdma = false};
  f.linux.seccomp.enabled = host.seccomp && host.seccomp_detail;
  if (f.linux.seccomp.enabled) {
    const auto& s = *host.seccomp_detail;
    f.linux.seccomp = {true, s.actions, s.operators, s.archs, s.known_flags, s.supported_flags};
  }
  // Claimed where the launch plan applies a profile (the kernel answers for AppArmor); SELinux
  // labels are refused (not implemented), so never claimed.
  f.linux.apparmor = host.apparmor;
  f.linux.selinux = false;
  // linux.intelRdt is refused (with the field named) whether or not the host has resctrl.
  f.linux.intel_rdt = {.enabled = false, .schemata = false, .monitoring = false};
  f.linux.idmap_mounts = host.idmap_mounts;
  f.linux.net_devices = true;  // moved over rtnetlink (runtime/linux/netdev.cpp)
  f.linux.memory_policy = {.modes = oci::memory_policy_mode_names(), .flags = oci::memory_policy_flag_names()};
  auto ll = landlock::supported(host.landlock_abi);
  f.linux.landlock = {.enabled = ll.abi > 0, .abi = ll.abi, .fs = ll.fs, .net = ll.net, .scoped = ll.scoped,
                      .classes = {{"files", ll.abi >= 1},
                                  {"ports", ll.abi >= 4},
                                  {"scope", ll.abi >= 6},
                                  {"exec", ll.abi >= 1 && host.memfd_noexec}}};
  f.annotations["org.sharness.landlock.abi"] = std::to_string(ll.abi);
  const struct scmp_version* v = ::seccomp_version();
  f.annotations["io.github.seccomp.libseccomp.version"] =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->micro);
  // checkpoint and restore are built in (through the criu binary, --criu: docs/checkpoint.md), as in runc.
  f.annotations["org.opencontainers.runc.checkpoint.enabled"] = "true";
  // The policy annotation changes what the container may do (it can only tighten, but a
  // client that strips unknown annotations should know this one matters).
  f.unsafe_annotations = {"org.sharness.policy"};
  return f;
}

}  // namespace sh::lifecycle
