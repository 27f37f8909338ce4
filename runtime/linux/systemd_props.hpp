// The systemd cgroup driver's pure half: which unit a container gets (from cgroupsPath
// "slice:prefix:name"), and the OCI resources as that unit's properties
// (systemd.resource-control(5)), plus the text form the runtime hands them to its D-Bus helper
// in (sharness-systemd, runtime/linux/systemd_bus.cpp). No I/O here: unit-tested in
// tests/unit/test_systemd_props.cpp.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"

namespace sh::systemd {

// systemd's "infinity" for the uint64 limits (USEC_INFINITY, CGROUP_LIMIT_MAX).
inline constexpr uint64_t kInfinity = UINT64_MAX;

// One D-Bus property value, by its signature: b, t, s, au, ay, a(ss).
using DeviceAllow = std::vector<std::pair<std::string, std::string>>;  // (node or class, "rwm")
using Value = std::variant<bool, uint64_t, std::string, std::vector<uint32_t>, std::vector<uint8_t>, DeviceAllow>;
struct Property {
  std::string name;
  Value value;
  bool operator==(const Property&) const = default;
};
using Properties = std::vector<Property>;

// A container's unit: "<prefix>-<name>.scope" in `slice`.
struct Unit {
  std::string name;   // sharness-abc.scope
  std::string slice;  // system.slice
};
// cgroupsPath under --systemd-cgroup, with runc's defaults: empty slice is system.slice
// (user.slice for a rootless caller), empty prefix gives "<name>.scope", an empty cgroupsPath is
// "<slice>:sharness:<id>". A name ending in ".slice" (a slice unit, which kubelet asks runc for)
// is refused: this driver makes scopes only.
Result<Unit> unit_for(const std::optional<std::string>& cgroups_path, const std::string& id, bool rootless);

// The properties every container scope starts with: description, slice, its init in PIDs,
// Delegate=yes (the container may manage its own sub-cgroups, as with runc), accounting on so
// systemd enables the controllers the cgroup files below need, and no default dependencies.
Properties scope_properties(const Unit& u, pid_t init_pid, const std::string& id);

// The OCI resources systemd can hold as unit properties: MemoryMax/Low/High/Min/SwapMax,
// CPUWeight (from shares, as runc converts them), CPUQuotaPerSecUSec/CPUQuotaPeriodUSec,
// TasksMax, AllowedCPUs/AllowedMemoryNodes, DevicePolicy/DeviceAllow, and the unified keys that
// name one of those. What is not here (io, hugetlb, burst, idle, other unified keys) the
// runtime writes to the scope's cgroup files itself, after systemd (runtime/linux/cgroups_v2.cpp
// writes every resource there, the ones above included, as runc's systemd driver does).
// `devices` are the container's complete rule list (cgroups::container_device_rules), empty for
// none (an update); `proc_devices` is /proc/devices, for a rule on a whole major.
Result<Properties> resource_properties(const oci::Resources& r, std::string_view proc_devices = {});

// A cpuset list ("0-3,8") as systemd's CPU bitmask: byte i bit j is CPU 8*i+j.
Result<std::vector<uint8_t>> cpuset_mask(std::string_view list, std::string_view what);
// OCI cpu quota/period (microseconds) as CPUQuotaPerSecUSec: quota per second of wall time,
// rounded up to 10 ms as systemd keeps it in whole percent (runc does the same); a negative
// quota is infinity.
uint64_t quota_per_sec(int64_t quota, uint64_t period);
// DeviceAllow/DevicePolicy for a device rule list that starts from deny-all: each allow rule a
// node ("/dev/char/1:3"), a major's class ("char-pts", by its /proc/devices name) or every
// node of a type ("char-*"). A deny inside the list that systemd's allow list cannot express
// (one that takes away part of a wildcard allow) is an error naming it; a deny of exactly an
// allowed node takes that access away.
Result<Properties> device_properties(const std::vector<oci::DeviceRule>& rules, std::string_view proc_devices);

// The helper's argv form of one property, "Name=<signature>:<value>": b:1, t:123, s:text,
// au:1,2, ay:<hex>, a(ss):<node> <access>[;<node> <access>...]. decode() checks what it reads.
std::string encode(const Property& p);
Result<Property> decode(std::string_view arg);

}  // namespace sh::systemd
