// The runtime-spec features document (features.md): what this runtime build accepts and what
// this host lets it do. Docker and CRI-O read it at start, so every claim must hold.
// This is the model and its JSON; lifecycle::host_features() fills it from the host.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace sh::oci {

struct Features {
  std::string oci_version_min = "1.0.0";
  std::string oci_version_max = "1.3.0";
  std::vector<std::string> hooks;
  std::vector<std::string> mount_options;

  struct Seccomp {
    bool enabled = false;
    std::vector<std::string> actions, operators, archs;
    std::vector<std::string> known_flags;      // flags this build knows the meaning of
    std::vector<std::string> supported_flags;  // the subset libseccomp and the kernel can set
  };
  struct Cgroup {
    bool v1 = false, v2 = false, systemd = false, systemd_user = false, rdma = false;
  };
  // Not in the runtime-spec yet (the Landlock proposal has no features part): what this
  // kernel's Landlock ABI lets the runtime enforce, written as linux.landlock.
  struct Landlock {
    bool enabled = false;
    int abi = 0;
    std::vector<std::string> fs, net, scoped;  // rights and scopes this ABI enforces
    // Each rule class a policy or process.landlock can use, and whether this host enforces it:
    // files, ports, scope, exec (the allowlist also needs vm.memfd_noexec).
    std::map<std::string, bool> classes;
  };
  struct Linux {
    std::vector<std::string> namespaces;
    std::vector<std::string> capabilities;
    Cgroup cgroup;
    Seccomp seccomp;
    bool apparmor = false;
    bool selinux = false;
    struct IntelRdt {
      bool enabled = false, schemata = false, monitoring = false;
    } intel_rdt;
    bool idmap_mounts = false;  // mountExtensions.idmap
    bool net_devices = false;
    struct MemoryPolicy {
      std::vector<std::string> modes, flags;  // recognized in linux.memoryPolicy
    } memory_policy;
    Landlock landlock;
  } linux;

  std::map<std::string, std::string> annotations;
  // Annotation keys (or prefixes ending in '.') that change how a container is set up.
  std::vector<std::string> unsafe_annotations;
};

// Pretty JSON with the spec's field names (ociVersionMin, linux.mountExtensions.idmap...).
std::string features_json(const Features& f);

}  // namespace sh::oci
