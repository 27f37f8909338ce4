// The runtime-spec 1.3 additions' vocabularies, shared by validation, `features` and the
// runtime that applies them: memoryPolicy modes and flags (set_mempolicy(2) values),
// interface names (netDevices), execCPUAffinity lists, and whether this host has resctrl.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"

namespace sh::oci {

inline constexpr unsigned kMaxNumaNodes = 1024;  // the kernel's MAX_NUMNODES upper bound (NODES_SHIFT 10)
inline constexpr unsigned kMaxCpus = 8192;       // CONFIG_NR_CPUS upper bound on x86_64

struct NamedValue {
  const char* name;
  int value;
};
// In the order of features.md's example; the values are the kernel's (uapi/linux/mempolicy.h).
inline constexpr NamedValue kMemoryPolicyModes[] = {
    {"MPOL_DEFAULT", 0},       {"MPOL_BIND", 2},           {"MPOL_INTERLEAVE", 3}, {"MPOL_WEIGHTED_INTERLEAVE", 6},
    {"MPOL_PREFERRED", 1},     {"MPOL_PREFERRED_MANY", 5}, {"MPOL_LOCAL", 4}};
inline constexpr NamedValue kMemoryPolicyFlags[] = {
    {"MPOL_F_NUMA_BALANCING", 1 << 13}, {"MPOL_F_RELATIVE_NODES", 1 << 14}, {"MPOL_F_STATIC_NODES", 1 << 15}};

std::optional<int> memory_policy_mode(std::string_view name);
std::optional<int> memory_policy_flag(std::string_view name);
std::vector<std::string> memory_policy_mode_names();
std::vector<std::string> memory_policy_flag_names();

// Why `name` cannot be an interface name (empty, longer than 15 bytes, "/", ":", white space,
// "." or ".."), or nullopt. `template_ok`: one "%d" lets the kernel pick the number.
std::optional<std::string> interface_name_problem(std::string_view name, bool template_ok);

// Whether a failing poststart hook is an error for a config of this `ociVersion` (already
// validated: 1.0.x to 1.3.x). runtime-spec 1.3 (runtime-spec#1262): the runtime MUST generate
// an error and stop the container. 1.0.2 to 1.2: it MUST log a warning and go on.
bool poststart_failure_is_error(std::string_view oci_version);

// process.execCPUAffinity: both lists well formed; errors name `path`.initial / `path`.final.
Result<void> check_exec_cpu_affinity(const ExecCpuAffinity& a, const std::string& path);

// resctrl in /proc/filesystems and mounted at /sys/fs/resctrl.
bool host_has_resctrl();

}  // namespace sh::oci
