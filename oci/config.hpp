// The OCI runtime-spec (1.0 - 1.3) config model for Linux, as runc honours it.
// Parsed from config.json by oci::parse_config (oci/config_parse.cpp), validated by
// oci::validate_config (oci/validate.cpp). Optional fields are std::optional so that
// "absent" and "zero" stay distinct, as the spec requires.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"

// g++ in GNU mode (CMAKE_CXX_EXTENSIONS, needed for TRY) predefines the obsolete macro
// `linux` as 1, which would turn the Config::linux member below into a syntax error.
// Portable code tests __linux__ instead.
#undef linux

namespace sh::oci {

struct Rlimit {
  std::string type;  // "RLIMIT_NOFILE"
  int resource = -1; // resolved RLIMIT_* number
  uint64_t hard = 0;
  uint64_t soft = 0;
};

struct Capabilities {
  // Names as given ("CAP_KILL"); resolved to numbers where they are applied.
  std::optional<std::vector<std::string>> bounding, effective, inheritable, permitted, ambient;
};

struct User {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::optional<uint32_t> umask;
  std::vector<uint32_t> additional_gids;
};

struct ConsoleSize {
  unsigned height = 0;
  unsigned width = 0;
};

struct Scheduler {
  std::string policy;  // SCHED_OTHER ...
  std::optional<int32_t> nice, priority;
  std::vector<std::string> flags;
  std::optional<uint64_t> runtime, deadline, period;
};

struct IoPriority {
  std::string io_class;  // IOPRIO_CLASS_RT / BE / IDLE
  int priority = 0;
};

// process.execCPUAffinity (runtime-spec 1.2+, runc 1.3): CPU lists ("0-3,7") for `exec`
// processes only (the spec: "not applicable to the container's init process").
struct ExecCpuAffinity {
  std::optional<std::string> initial;     // the runtime's part, before joining the cgroup
  std::optional<std::string> final_cpus;  // "final": set right before execve
};

struct Process {
  bool terminal = false;
  std::optional<ConsoleSize> console_size;
  User user;
  std::vector<std::string> args;
  std::optional<std::string> command_line;  // Windows only; refused
  std::vector<std::string> env;
  std::string cwd = "/";
  Capabilities capabilities;
  std::vector<Rlimit> rlimits;
  bool no_new_privileges = false;
  std::optional<std::string> apparmor_profile;
  std::optional<int> oom_score_adj;
  std::optional<std::string> selinux_label;
  std::optional<Scheduler> scheduler;
  std::optional<IoPriority> io_priority;
  std::optional<ExecCpuAffinity> exec_cpu_affinity;
  // Raw process.landlock block, kept for the Landlock issue (runtime-spec proposal shape).
  std::optional<std::string> landlock_json;
};

struct Root {
  std::string path;
  bool readonly = false;
};

struct IdMapping {
  uint32_t container_id = 0;
  uint32_t host_id = 0;
  uint32_t size = 0;
};

struct Mount {
  std::string destination;
  std::string type;     // may be empty (bind mounts)
  std::string source;
  std::vector<std::string> options;
  std::vector<IdMapping> uid_mappings, gid_mappings;  // idmapped mounts
};
// A bind mount: type "bind" or "rbind", or a bind/rbind option (what runc takes for one).
bool is_bind(const Mount& m);

struct Hook {
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::optional<int> timeout;  // seconds, > 0
};

struct Hooks {
  std::vector<Hook> prestart, create_runtime, create_container, start_container, poststart, poststop;
  bool empty() const {
    return prestart.empty() && create_runtime.empty() && create_container.empty() && start_container.empty() &&
           poststart.empty() && poststop.empty();
  }
};

struct Namespace {
  std::string type;  // pid network mount ipc uts user cgroup time
  std::string path;  // empty: create a new one; else join
};

struct Device {
  std::string type;  // c b u p
  std::string path;
  int64_t major = 0, minor = 0;
  std::optional<uint32_t> file_mode;
  std::optional<uint32_t> uid, gid;
};

struct DeviceRule {
  bool allow = false;
  std::string type = "a";  // a c b
  std::optional<int64_t> major, minor;
  std::string access = "rwm";
};

struct MemoryResources {
  std::optional<int64_t> limit, reservation, swap, kernel, kernel_tcp;
  std::optional<uint64_t> swappiness;
  std::optional<bool> disable_oom_killer, use_hierarchy, check_before_update;
};

struct CpuResources {
  std::optional<uint64_t> shares;
  std::optional<int64_t> quota;
  std::optional<uint64_t> burst;
  std::optional<uint64_t> period;
  std::optional<int64_t> realtime_runtime;
  std::optional<uint64_t> realtime_period;
  std::optional<std::string> cpus, mems;
  std::optional<int64_t> idle;
};

struct PidsResources {
  int64_t limit = 0;  // <= 0: unlimited
};

struct BlockIoDevice {
  int64_t major = 0, minor = 0;
  std::optional<uint16_t> weight, leaf_weight;
  uint64_t rate = 0;  // throttle entries
};

struct BlockIoResources {
  std::optional<uint16_t> weight, leaf_weight;
  std::vector<BlockIoDevice> weight_device, throttle_read_bps, throttle_write_bps, throttle_read_iops,
      throttle_write_iops;
};

struct HugepageLimit {
  std::string page_size;  // "2MB"
  uint64_t limit = 0;
};

struct NetworkResources {
  std::optional<uint32_t> class_id;
  std::vector<std::pair<std::string, uint32_t>> priorities;
};

struct Resources {
  std::vector<DeviceRule> devices;
  std::optional<MemoryResources> memory;
  std::optional<CpuResources> cpu;
  std::optional<PidsResources> pids;
  std::optional<BlockIoResources> block_io;
  std::vector<HugepageLimit> hugepage_limits;
  std::optional<NetworkResources> network;
  std::map<std::string, std::string> unified;
  std::vector<std::string> rdma_keys;  // present keys: refused (not supported)
};

struct SeccompArg {
  unsigned index = 0;
  uint64_t value = 0;
  uint64_t value_two = 0;
  std::string op;  // SCMP_CMP_EQ ...
};

struct SeccompSyscall {
  std::vector<std::string> names;
  std::string action;
  std::optional<uint32_t> errno_ret;
  std::vector<SeccompArg> args;
};

struct Seccomp {
  std::string default_action;
  std::optional<uint32_t> default_errno_ret;
  std::vector<std::string> architectures;
  std::vector<std::string> flags;
  std::optional<std::string> listener_path;
  std::optional<std::string> listener_metadata;
  std::vector<SeccompSyscall> syscalls;
};

struct Personality {
  std::string domain;  // LINUX, LINUX32
  std::vector<std::string> flags;
};

struct TimeOffset {
  int64_t secs = 0;
  uint32_t nanosecs = 0;
};

// linux.memoryPolicy (runtime-spec 1.3): set_mempolicy(2) before execve.
struct MemoryPolicy {
  std::string mode;                 // MPOL_BIND ...
  std::string nodes;                // "0-3,7"; empty for MPOL_DEFAULT and MPOL_LOCAL
  std::vector<std::string> flags;   // MPOL_F_STATIC_NODES ...
};

// One linux.netDevices entry (runtime-spec 1.3); the map key is the host interface's name.
struct NetDevice {
  std::string name;  // the name inside the container; empty: keep the host name
};

// linux.intelRdt (runtime-spec 1.3 fields): parsed whole so that an error names the field.
struct IntelRdt {
  std::optional<std::string> clos_id, l3_cache_schema, mem_bw_schema;
  std::optional<std::vector<std::string>> schemata;  // 1.3: one line each
  std::optional<bool> enable_monitoring;             // 1.3
  std::optional<bool> enable_cmt, enable_mbm;        // 1.2, replaced by enableMonitoring
};

struct Linux {
  std::vector<Namespace> namespaces;
  std::vector<IdMapping> uid_mappings, gid_mappings;
  std::vector<Device> devices;
  std::optional<std::string> cgroups_path;
  std::optional<Resources> resources;
  std::string rootfs_propagation;
  std::optional<Seccomp> seccomp;
  std::map<std::string, std::string> sysctl;
  std::vector<std::string> masked_paths;
  std::vector<std::string> readonly_paths;
  std::optional<std::string> mount_label;
  std::optional<Personality> personality;
  std::map<std::string, TimeOffset> time_offsets;  // "monotonic", "boottime"
  std::map<std::string, NetDevice> net_devices;
  std::optional<MemoryPolicy> memory_policy;
  std::optional<IntelRdt> intel_rdt;
};

struct Config {
  std::string oci_version;
  std::optional<Process> process;  // required for create/run
  Root root;
  std::vector<Mount> mounts;
  std::string hostname;
  std::string domainname;
  Hooks hooks;
  std::map<std::string, std::string> annotations;
  Linux linux;
  // The "sharness" extension block (what OCI cannot express), kept as the compact JSON text of
  // one object that a json::Writer made: the policy layer (spec-mapping/extension.hpp) owns its
  // meaning; config_to_json splices it as text when it is one object, else re-parses it.
  std::optional<std::string> sharness_json;

  bool has_namespace(std::string_view type) const;
  const Namespace* find_namespace(std::string_view type) const;
};

// Parse config.json text. `origin` prefixes errors ("config.json").
Result<Config> parse_config(std::string_view text, const std::string& origin = "config.json");
// Check what parsing cannot: required fields, value ranges, known names, host support
// (AppArmor without AppArmor, Intel RDT...). Warnings go to the log.
// A lone process document (`exec --process FILE`) and a lone resources document
// (`update --resources FILE`), with errors naming their paths.
Result<Process> parse_process_json(std::string_view text, const std::string& origin);
Result<Resources> parse_resources_json(std::string_view text, const std::string& origin);
Result<void> validate_config(const Config& c, const std::string& origin = "config.json");

}  // namespace sh::oci
