// The Process Behaviour Policy (DESIGN.md §3): one small JSON document that says everything a
// container may do. This is its typed model and its strict parser: unknown keys, wrong types,
// absurd limits, unknown syscalls, groups, capabilities or devices are errors naming the JSON
// path ("policy.json: memory.limitt: unknown key"). docs/policy.md is the reference for every
// key; policies/schema.json the JSON Schema.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"
#include "spec-mapping/egress.hpp"
#include "spec-mapping/secrets.hpp"
#include "spec-mapping/mesh.hpp"

namespace sh::policy {

inline constexpr int kFormatVersion = 1;

// Limits a policy may set: below or above these the value is a mistake, not a choice.
inline constexpr uint64_t kMemoryMin = 4ull << 20;            // 4 MiB
inline constexpr uint64_t kMemoryMax = 1ull << 40;            // 1 TiB
inline constexpr int64_t kPidsMax = 4194304;                  // the kernel's PID_MAX_LIMIT
inline constexpr uint64_t kWallClockMax = 30ull * 24 * 3600;  // 30 days
inline constexpr uint64_t kCpuPeriodMin = 1000, kCpuPeriodMax = 1000000;  // µs, as the kernel
inline constexpr uint64_t kCpuQuotaMin = 1000;                            // µs

// process.user: a fixed uid, or a throwaway one the runtime picks at create.
struct Uid {
  bool ephemeral = false;
  uint32_t value = 0;  // when !ephemeral
  bool operator==(const Uid&) const = default;
};

struct Identity {
  std::optional<Uid> uid;
  std::optional<uint32_t> gid;  // absent with a uid: gid = uid
  // The most a process may hold, in every set (bounding too). Absent: no restriction.
  std::optional<std::vector<std::string>> capabilities;  // "CAP_KILL", sorted, unique
  bool no_new_privileges = false;
  bool operator==(const Identity&) const = default;
};

// Stricter first: none < loopback < host.
enum class Network { none, loopback, host };
const char* network_name(Network n);

struct Memory {
  std::optional<uint64_t> limit;          // memory cgroup limit, bytes
  std::optional<uint64_t> address_space;  // RLIMIT_AS, bytes
  // No memory both writable and executable, and none made executable after it was written
  // (prctl PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN): code written at run time never runs.
  bool deny_write_execute = false;
  bool operator==(const Memory&) const = default;
};

struct Cpu {
  uint64_t quota = 0;        // µs of CPU time per period
  uint64_t period = 100000;  // µs
  bool operator==(const Cpu&) const = default;
};

struct Pids {
  std::optional<int64_t> limit;  // pids cgroup limit
  bool fork = true;              // false: no new process at all (limit 1)
  int64_t effective_limit() const { return fork ? limit.value_or(0) : 1; }  // 0: none
  bool operator==(const Pids&) const = default;
};

enum class DefaultAction { log, errno_eperm, kill };  // ordered by harshness
const char* action_name(DefaultAction a);             // "log", "errno", "kill"

struct Syscalls {
  std::vector<std::string> allow;  // names and "@groups", as written
  DefaultAction default_action = DefaultAction::errno_eperm;
  bool operator==(const Syscalls&) const = default;
};

struct Tmpfs {
  std::string path;
  std::optional<uint64_t> size;  // bytes
  bool exec = false;             // false: mounted noexec
  bool operator==(const Tmpfs&) const = default;
};

struct Bind {
  std::string source;       // host path
  std::string destination;  // container path
  bool operator==(const Bind&) const = default;
};

struct Mounts {
  bool readonly_root = false;
  bool binds_readonly = false;  // every bind mount of the config becomes read-only
  std::vector<Tmpfs> tmpfs;
  std::vector<Bind> readonly_binds;
  std::vector<std::string> masked_paths, readonly_paths;
  bool operator==(const Mounts&) const = default;
};

// priority: how far up the host's CPU, I/O and OOM order the container's processes may go. A
// config asks (process.oomScoreAdj, scheduler, ioPriority: Kubernetes gives Guaranteed pods
// -997), and the config is the client's: the policy holds what it asks to these bounds. A
// present section with no keys holds everything at the kernel's defaults.
struct Priority {
  int oom_score_adj_min = 0;  // -1000..1000: a lower oomScoreAdj (killed later) is raised to it
  int nice_min = 0;           // -20..19: a lower nice (more CPU) is raised to it
  bool realtime = false;      // SCHED_FIFO, SCHED_RR, SCHED_DEADLINE and the real-time I/O class
  bool operator==(const Priority&) const = default;
};

// files: the Landlock filesystem rights granted beneath one path. A policy with a files
// section handles every filesystem right: what no rule grants is denied.
struct FileRule {
  std::string path;     // absolute, canonical (no symlink on the way, see docs/landlock.md)
  uint64_t access = 0;  // LANDLOCK_ACCESS_FS_* bits (oci::kLandlockRights)
  bool operator==(const FileRule&) const = default;
};

// ports: the TCP ports the process may bind and connect to (Landlock ABI 4); the section
// handles both rights, so an empty or absent list allows none.
struct Ports {
  std::vector<uint16_t> bind, connect;  // sorted, unique
  bool operator==(const Ports&) const = default;
};

// exec: one binary the process may execute, pinned by its content.
struct Pin {
  std::string path;    // absolute, canonical container path of a regular file
  std::string sha256;  // lowercase hex
  bool operator==(const Pin&) const = default;
};

struct Policy {
  std::string id;
  int version = kFormatVersion;
  std::string description;
  bool best_effort = false;
  Identity identity;
  std::vector<std::string> namespaces;  // to create: pid mount ipc uts cgroup time user (sorted)
  std::optional<Network> network;       // absent: no constraint (as host)
  std::optional<Memory> memory;
  std::optional<Cpu> cpu;
  std::optional<Pids> pids;
  std::optional<uint64_t> wall_clock_seconds;
  std::optional<Priority> priority;  // absent: no constraint (as Docker)
  std::optional<Syscalls> syscalls;
  std::optional<std::vector<std::string>> devices;  // names from device_table(); absent: no constraint
  Mounts mounts;
  Mesh mesh;  // role, edges, accepts (spec-mapping/mesh.hpp)
  std::optional<std::vector<FileRule>> files;     // sorted by path; absent: file access not handled
  std::optional<Ports> ports;                     // absent: TCP not handled
  std::optional<std::vector<std::string>> scope;  // "abstract_unix_socket", "signal" (sorted)
  std::optional<std::vector<Pin>> exec;           // sorted by path; absent: no allowlist
  std::optional<SecretsPolicy> secrets;    // a KMS sidecar (docs/kms.md); absent: none
  // The egress door (docs/egress.md); absent: none. With it, network is "loopback" (the parser
  // sets it): the door on the container's lo is the only way out.
  std::optional<EgressPolicy> egress;
  // "hooks": {"fromConfig": false}: config.json's own hooks (they run on the host, as root) are
  // refused. Absent or true: allowed (Docker writes a prestart hook into every config).
  std::optional<bool> hooks_from_config;

  // Lowercase hex SHA-256 of the canonical form of the document this was parsed from
  // (or, for a composed policy, of policy_to_json's output).
  std::string hash;

  // Model equality, ignoring the hash.
  bool same_rules(const Policy& o) const;
};

// The devices a policy can name: all character devices.
struct DeviceInfo {
  std::string_view name;  // "null"
  std::string_view path;  // "/dev/null"
  int64_t major = 0;
  int64_t minor = -1;     // -1: every minor (pts)
};
const std::vector<DeviceInfo>& device_table();
const DeviceInfo* find_device(std::string_view name);

// Reserved top-level sections: a policy that uses them fails with "not supported yet" (none now).
const std::vector<std::string_view>& reserved_sections();

// Parse a policy document. `origin` prefixes every error ("policy.json").
Result<Policy> parse_policy(std::string_view text, const std::string& origin = "policy.json");
// Read and parse a file; errors are prefixed with the path as given.
Result<Policy> load_policy(const std::string& path);

// Serialize the model (used for composed policies, whose hash is over this text's canonical form).
std::string policy_to_json(const Policy& p, bool pretty = false);

// "128MiB" / 134217728 -> bytes (helpers shared by the parser and the docs' examples).
Result<uint64_t> parse_size(const json::Value& v, uint64_t lo, uint64_t hi);
std::string format_size(uint64_t bytes);  // 134217728 -> "128 MiB"

}  // namespace sh::policy
