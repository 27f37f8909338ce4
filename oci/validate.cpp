// What parsing cannot check: required fields, known names, cross-field rules (mappings
// need a user namespace, sysctls need the namespace they live in...) and host support.
// Each error names the JSON path; host probing is stat(2) only.
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "base/log.hpp"
#include "oci/config.hpp"
#include "oci/id_list.hpp"
#include "oci/spec13.hpp"

namespace sh::oci {
namespace {

using namespace std::string_literals;

// Errors are built as "<origin>: <path>: <what>".
struct Checker {
  const std::string& origin;
  std::unexpected<Error> error(std::string_view path, std::string_view what) const {
    return fail(origin + ": " + std::string(path) + ": " + std::string(what));
  }
  void warn(std::string_view path, std::string_view what) const {
    log::warn(origin + ": " + std::string(path) + ": " + std::string(what));
  }
};

std::string idx(std::string_view base, size_t i) { return std::string(base) + "[" + std::to_string(i) + "]"; }

template <class C>
bool one_of(std::string_view s, const C& names) {
  return std::find(std::begin(names), std::end(names), s) != std::end(names);
}

bool absolute(std::string_view p) { return !p.empty() && p.front() == '/'; }

std::string q(std::string_view s) { return "\"" + std::string(s) + "\""; }

// ---- version, root, process ---------------------------------------------------------

// 1.0.x to 1.3.x (any patch, optional -pre/+build suffix).
bool supported_version(std::string_view v) {
  auto core = v.substr(0, v.find_first_of("-+"));
  for (std::string_view minor : {"1.0.", "1.1.", "1.2.", "1.3."}) {
    if (!core.starts_with(minor)) continue;
    auto patch = core.substr(minor.size());
    return !patch.empty() && std::all_of(patch.begin(), patch.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  }
  return false;
}

Result<void> check_version_and_root(const Checker& k, const Config& c) {
  if (c.oci_version.empty()) return k.error("ociVersion", "required");
  if (!supported_version(c.oci_version)) return k.error("ociVersion", "unsupported ociVersion " + c.oci_version);
  if (c.root.path.empty()) return k.error("root.path", "required");
  return {};
}

Result<void> check_rlimits(const Checker& k, const Process& p) {
  std::set<std::string_view> seen;
  for (size_t i = 0; i < p.rlimits.size(); ++i) {
    auto& r = p.rlimits[i];
    auto path = idx("process.rlimits", i);
    if (!seen.insert(r.type).second) return k.error(path + ".type", "duplicate rlimit type " + q(r.type));
    if (r.soft > r.hard)
      return k.error(path, "soft limit " + std::to_string(r.soft) + " is greater than hard limit " +
                               std::to_string(r.hard));
  }
  return {};
}

Result<void> check_scheduler(const Checker& k, const Scheduler& s) {
  static constexpr std::array kPolicies = {"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",      "SCHED_BATCH",
                                           "SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE"};
  static constexpr std::array kFlags = {"SCHED_FLAG_RESET_ON_FORK",  "SCHED_FLAG_RECLAIM",
                                        "SCHED_FLAG_DL_OVERRUN",     "SCHED_FLAG_KEEP_POLICY",
                                        "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
                                        "SCHED_FLAG_UTIL_CLAMP_MAX"};
  if (!one_of(s.policy, kPolicies)) return k.error("process.scheduler.policy", "unknown scheduler policy " + q(s.policy));
  for (size_t i = 0; i < s.flags.size(); ++i)
    if (!one_of(s.flags[i], kFlags)) return k.error(idx("process.scheduler.flags", i), "unknown scheduler flag " + q(s.flags[i]));
  if (s.nice && (*s.nice < -20 || *s.nice > 19))
    return k.error("process.scheduler.nice", "must be in [-20, 19], got " + std::to_string(*s.nice));
  bool realtime = s.policy == "SCHED_FIFO" || s.policy == "SCHED_RR";
  if (s.priority && *s.priority != 0 && !realtime)
    return k.error("process.scheduler.priority", "can only be set for SCHED_FIFO or SCHED_RR");
  if (s.policy != "SCHED_DEADLINE" && (s.runtime.value_or(0) || s.deadline.value_or(0) || s.period.value_or(0)))
    return k.error("process.scheduler", "runtime, deadline and period can only be set for SCHED_DEADLINE");
  return {};
}

Result<void> check_io_priority(const Checker& k, const IoPriority& p) {
  static constexpr std::array kClasses = {"IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE", "IOPRIO_CLASS_IDLE"};
  if (!one_of(p.io_class, kClasses)) return k.error("process.ioPriority.class", "unknown ioPriority class " + q(p.io_class));
  if (p.priority < 0 || p.priority > 7)
    return k.error("process.ioPriority.priority", "must be in [0, 7], got " + std::to_string(p.priority));
  return {};
}

// Security labels. SELinux labels are refused until they are implemented (never accepted and
// ignored). process.apparmorProfile is applied or refused by the launch plan
// (runtime/lifecycle/process_launch, runtime/linux/apparmor), where the kernel says whether
// AppArmor answers: for init and exec alike.
Result<void> check_lsm(const Checker& k, const Process& p, const Linux& l) {
  if (p.selinux_label && !p.selinux_label->empty())
    return k.error("process.selinuxLabel", "SELinux labels are not supported by this runtime (refused, not ignored)");
  if (l.mount_label && !l.mount_label->empty())
    return k.error("linux.mountLabel", "SELinux labels are not supported by this runtime (refused, not ignored)");
  return {};
}

std::string origin_prefix(const Checker& k) { return k.origin + ": "; }
bool is_host_netns(const std::string& path);

// ---- runtime-spec 1.3: memoryPolicy, netDevices, intelRdt ---------------------------

Result<void> check_memory_policy(const Checker& k, const MemoryPolicy& m) {
  auto mode = memory_policy_mode(m.mode);
  if (!mode) return k.error("linux.memoryPolicy.mode", "unknown memory policy mode " + q(m.mode));
  for (size_t i = 0; i < m.flags.size(); ++i)
    if (!memory_policy_flag(m.flags[i]))
      return k.error(idx("linux.memoryPolicy.flags", i), "unknown memory policy flag " + q(m.flags[i]));
  // set_mempolicy(2): MPOL_DEFAULT and MPOL_LOCAL take no nodes, the others but MPOL_PREFERRED need some.
  bool none = m.mode == "MPOL_DEFAULT" || m.mode == "MPOL_LOCAL";
  if (none && !m.nodes.empty()) return k.error("linux.memoryPolicy.nodes", "must be empty for " + m.mode);
  if (none && !m.flags.empty()) return k.error("linux.memoryPolicy.flags", "must be empty for " + m.mode);
  if (!none && m.mode != "MPOL_PREFERRED" && m.nodes.empty())
    return k.error("linux.memoryPolicy.nodes", "required for " + m.mode);
  if (!m.nodes.empty()) TRYV(parse_id_list(m.nodes, k.origin + ": linux.memoryPolicy.nodes", kMaxNumaNodes));
  return {};
}

Result<void> check_net_devices(const Checker& k, const Config& c) {
  if (c.linux.net_devices.empty()) return {};
  auto* net = c.find_namespace("network");
  if (!net || (!net->path.empty() && is_host_netns(net->path)))
    return k.error("linux.netDevices", "requires a network namespace other than the host's in linux.namespaces");
  // init unshares its namespaces itself after joining a user namespace: nothing to move into yet.
  auto* user = c.find_namespace("user");
  if (user && !user->path.empty() && net->path.empty())
    return k.error("linux.netDevices", "a new network namespace in a joined user namespace is not supported");
  std::set<std::string> inside;
  for (auto& [host, d] : c.linux.net_devices) {
    auto path = "linux.netDevices." + host;
    const std::string& name = d.name.empty() ? host : d.name;
    if (name.find('%') == std::string::npos && !inside.insert(name).second)
      return k.error(path, "two devices would both be \"" + name + "\" in the container");
    if (auto why = interface_name_problem(host, false)) return k.error(path, "host interface name " + q(host) + " " + *why);
    if (!d.name.empty())
      if (auto why = interface_name_problem(d.name, true)) return k.error(path + ".name", q(d.name) + " " + *why);
  }
  return {};
}

// RDT is a host feature: without resctrl say so, naming the first field set.
Result<void> check_intel_rdt(const Checker& k, const IntelRdt& r) {
  std::string field = "linux.intelRdt";
  if (r.clos_id) field += ".closID";
  else if (r.schemata) field += ".schemata";
  else if (r.l3_cache_schema) field += ".l3CacheSchema";
  else if (r.mem_bw_schema) field += ".memBwSchema";
  else if (r.enable_monitoring) field += ".enableMonitoring";
  else if (r.enable_cmt) field += ".enableCMT";
  else if (r.enable_mbm) field += ".enableMBM";
  if (!host_has_resctrl())
    return k.error(field, "Intel RDT needs the resctrl filesystem, and this host has none (no resctrl in "
                          "/proc/filesystems or nothing mounted at /sys/fs/resctrl)");
  return k.error(field, "Intel RDT (resctrl groups) is not supported by this runtime yet");
}

Result<void> check_process(const Checker& k, const Config& c) {
  if (!c.process) return k.error("process", "required");
  auto& p = *c.process;
  if (p.args.empty()) return k.error("process.args", "must not be empty");
  if (!absolute(p.cwd)) return k.error("process.cwd", "must be an absolute path, got " + q(p.cwd));
  if (p.command_line) return k.error("process.commandLine", "is only supported on Windows");
  TRYV(check_rlimits(k, p));
  if (p.scheduler) TRYV(check_scheduler(k, *p.scheduler));
  if (p.io_priority) TRYV(check_io_priority(k, *p.io_priority));
  if (p.exec_cpu_affinity) TRYV(check_exec_cpu_affinity(*p.exec_cpu_affinity, origin_prefix(k) + "process.execCPUAffinity"));
  return check_lsm(k, p, c.linux);
}

// ---- namespaces and id mappings -----------------------------------------------------

Result<void> check_namespaces(const Checker& k, const Linux& l) {
  static constexpr std::array kTypes = {"pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time"};
  std::set<std::string_view> seen;
  for (size_t i = 0; i < l.namespaces.size(); ++i) {
    auto& ns = l.namespaces[i];
    auto path = idx("linux.namespaces", i);
    if (!one_of(ns.type, kTypes)) return k.error(path + ".type", "unknown namespace type " + q(ns.type));
    if (!seen.insert(ns.type).second) return k.error(path + ".type", "duplicate namespace type " + q(ns.type));
    if (!ns.path.empty() && !absolute(ns.path))
      return k.error(path + ".path", "must be an absolute path, got " + q(ns.path));
  }
  return {};
}

Result<void> check_mappings(const Checker& k, const std::vector<IdMapping>& m, const std::string& base) {
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i].size == 0) return k.error(idx(base, i) + ".size", "must be greater than zero");
  return {};
}

Result<void> check_user_namespace(const Checker& k, const Config& c) {
  auto& l = c.linux;
  TRYV(check_mappings(k, l.uid_mappings, "linux.uidMappings"));
  TRYV(check_mappings(k, l.gid_mappings, "linux.gidMappings"));
  bool mapped = !l.uid_mappings.empty() || !l.gid_mappings.empty();
  auto* user = c.find_namespace("user");
  if (!user) {
    if (mapped) return k.error(l.uid_mappings.empty() ? "linux.gidMappings" : "linux.uidMappings",
                               "id mappings require a user namespace in linux.namespaces");
    return {};
  }
  // A new user namespace needs both maps; a joined one may come with or without them.
  if (user->path.empty() && (l.uid_mappings.empty() || l.gid_mappings.empty()))
    return k.error(l.uid_mappings.empty() ? "linux.uidMappings" : "linux.gidMappings",
                   "a new user namespace requires both linux.uidMappings and linux.gidMappings");
  return {};
}

// ---- hostname, sysctl, time ---------------------------------------------------------

Result<void> check_uts(const Checker& k, const Config& c) {
  // As runc: any private UTS namespace (new or joined) will do.
  if (!c.hostname.empty() && !c.has_namespace("uts"))
    return k.error("hostname", "setting the hostname requires a uts namespace in linux.namespaces");
  if (!c.domainname.empty() && !c.has_namespace("uts"))
    return k.error("domainname", "setting the domainname requires a uts namespace in linux.namespaces");
  // The kernel's limit (__NEW_UTS_LEN): refused here, with the path, not by init's sethostname.
  constexpr size_t kMax = 64;
  if (c.hostname.size() > kMax)
    return k.error("hostname", "longer than " + std::to_string(kMax) + " bytes (" + std::to_string(c.hostname.size()) + ")");
  if (c.domainname.size() > kMax)
    return k.error("domainname",
                   "longer than " + std::to_string(kMax) + " bytes (" + std::to_string(c.domainname.size()) + ")");
  return {};
}

bool is_ipc_sysctl(std::string_view s) {
  static constexpr std::array kIpc = {"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem",
                                      "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced"};
  return one_of(s, kIpc) || s.starts_with("fs.mqueue.");
}

// A joined network namespace that is in fact the host's own does not isolate net.*.
bool is_host_netns(const std::string& path) {
  struct stat a, b;
  if (::stat(path.c_str(), &a) != 0 || ::stat("/proc/self/ns/net", &b) != 0) return false;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// As runc: only sysctls of a namespace the container has of its own may be set.
Result<void> check_sysctl(const Checker& k, const Config& c) {
  for (auto& [name, value] : c.linux.sysctl) {
    auto path = "linux.sysctl." + name;
    if (is_ipc_sysctl(name)) {
      if (!c.has_namespace("ipc")) return k.error(path, "requires an ipc namespace in linux.namespaces");
      continue;
    }
    if (name.starts_with("net.")) {
      auto* net = c.find_namespace("network");
      if (!net || (!net->path.empty() && is_host_netns(net->path)))
        return k.error(path, "requires a network namespace other than the host's in linux.namespaces");
      continue;
    }
    // Per pid namespace (Linux 6.3+): only a pid namespace of the container's own.
    if (name == "vm.memfd_noexec") {
      auto* pid = c.find_namespace("pid");
      if (!pid || !pid->path.empty()) return k.error(path, "requires a new pid namespace in linux.namespaces");
      continue;
    }
    if (name == "kernel.hostname") return k.error(path, "not allowed: it conflicts with the \"hostname\" field");
    if (name == "kernel.domainname" && c.has_namespace("uts")) continue;
    return k.error(path, "not in a namespace of the container; it would change the host");
  }
  return {};
}

Result<void> check_time(const Checker& k, const Config& c) {
  if (c.linux.time_offsets.empty()) return {};
  auto* time = c.find_namespace("time");
  if (!time || !time->path.empty())
    return k.error("linux.timeOffsets", "requires a new time namespace in linux.namespaces");
  for (auto& [clock, off] : c.linux.time_offsets) {
    auto path = "linux.timeOffsets." + clock;
    if (clock != "monotonic" && clock != "boottime")
      return k.error(path, "unknown clock " + q(clock) + " (monotonic or boottime)");
    if (off.nanosecs >= 1'000'000'000u) return k.error(path + ".nanosecs", "must be less than 1000000000");
  }
  return {};
}

// ---- mounts, devices, paths ---------------------------------------------------------

bool is_bind(const Mount& m) {
  return m.type == "bind" || one_of(std::string_view("bind"), m.options) || one_of(std::string_view("rbind"), m.options);
}

Result<void> check_mounts(const Checker& k, const Config& c) {
  for (size_t i = 0; i < c.mounts.size(); ++i) {
    auto& m = c.mounts[i];
    auto path = idx("mounts", i);
    if (!absolute(m.destination))
      return k.error(path + ".destination", "must be an absolute path, got " + q(m.destination));
    if (m.uid_mappings.empty() && m.gid_mappings.empty()) continue;
    if (m.uid_mappings.empty() || m.gid_mappings.empty())
      return k.error(path, "an idmapped mount needs both uidMappings and gidMappings");
    if (!is_bind(m)) return k.error(path, "uidMappings/gidMappings are only supported for bind mounts");
    TRYV(check_mappings(k, m.uid_mappings, path + ".uidMappings"));
    TRYV(check_mappings(k, m.gid_mappings, path + ".gidMappings"));
  }
  return {};
}

Result<void> check_devices(const Checker& k, const Linux& l) {
  static constexpr std::array kTypes = {"c", "b", "u", "p"};
  for (size_t i = 0; i < l.devices.size(); ++i) {
    auto& d = l.devices[i];
    auto path = idx("linux.devices", i);
    if (!one_of(d.type, kTypes)) return k.error(path + ".type", "unknown device type " + q(d.type) + " (c, b, u or p)");
    if (!absolute(d.path)) return k.error(path + ".path", "must be an absolute path, got " + q(d.path));
  }
  return {};
}

Result<void> check_paths(const Checker& k, const std::vector<std::string>& paths, const std::string& base) {
  for (size_t i = 0; i < paths.size(); ++i)
    if (!absolute(paths[i])) return k.error(idx(base, i), "must be an absolute path, got " + q(paths[i]));
  return {};
}

Result<void> check_hooks(const Checker& k, const Hooks& h) {
  const std::pair<const char*, const std::vector<Hook>*> kinds[] = {
      {"prestart", &h.prestart},         {"createRuntime", &h.create_runtime},
      {"createContainer", &h.create_container}, {"startContainer", &h.start_container},
      {"poststart", &h.poststart},       {"poststop", &h.poststop}};
  for (auto& [kind, list] : kinds)
    for (size_t i = 0; i < list->size(); ++i)
      if (!absolute((*list)[i].path))
        return k.error(idx("hooks."s + kind, i) + ".path", "must be an absolute path, got " + q((*list)[i].path));
  return {};
}

Result<void> check_rootfs_propagation(const Checker& k, const Linux& l) {
  static constexpr std::array kModes = {"",       "shared",  "slave",   "private",   "unbindable",
                                        "rshared", "rslave", "rprivate", "runbindable"};
  if (!one_of(l.rootfs_propagation, kModes))
    return k.error("linux.rootfsPropagation", "unknown propagation " + q(l.rootfs_propagation));
  return {};
}

// ---- resources, seccomp, personality, unsupported features --------------------------

Result<void> check_resources(const Checker& k, const Resources& r) {
  if (!r.rdma_keys.empty()) return k.error("linux.resources.rdma", "RDMA cgroup limits are not supported");
  for (size_t i = 0; i < r.devices.size(); ++i) {
    auto& d = r.devices[i];
    auto path = idx("linux.resources.devices", i);
    if (d.type != "a" && d.type != "c" && d.type != "b")
      return k.error(path + ".type", "unknown device rule type " + q(d.type) + " (a, c or b)");
    if (d.access.find_first_not_of("rwm") != std::string::npos)
      return k.error(path + ".access", "must be made of r, w and m, got " + q(d.access));
  }
  return {};
}

Result<void> check_seccomp(const Checker& k, const Seccomp& s) {
  static constexpr std::array kActions = {"SCMP_ACT_KILL",  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
                                          "SCMP_ACT_TRAP",  "SCMP_ACT_ERRNO",        "SCMP_ACT_TRACE",
                                          "SCMP_ACT_ALLOW", "SCMP_ACT_LOG",          "SCMP_ACT_NOTIFY"};
  static constexpr std::array kOps = {"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",       "SCMP_CMP_EQ",
                                      "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"};
  static constexpr std::array kFlags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                        "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"};
  if (!one_of(s.default_action, kActions))
    return k.error("linux.seccomp.defaultAction", "unknown seccomp action " + q(s.default_action));
  // The runtime itself still runs under the filter until execve: it cannot wait on itself.
  if (s.default_action == "SCMP_ACT_NOTIFY")
    return k.error("linux.seccomp.defaultAction", "SCMP_ACT_NOTIFY cannot be the default action");
  for (size_t i = 0; i < s.flags.size(); ++i)
    if (!one_of(s.flags[i], kFlags)) return k.error(idx("linux.seccomp.flags", i), "unknown seccomp flag " + q(s.flags[i]));
  bool notify = false;
  for (size_t i = 0; i < s.syscalls.size(); ++i) {
    auto& sc = s.syscalls[i];
    auto path = idx("linux.seccomp.syscalls", i);
    if (!one_of(sc.action, kActions)) return k.error(path + ".action", "unknown seccomp action " + q(sc.action));
    if (sc.action == "SCMP_ACT_NOTIFY") {
      notify = true;
      if (one_of(std::string_view("write"), sc.names))
        return k.error(path + ".action", "SCMP_ACT_NOTIFY cannot be used for the write syscall");
    }
    for (size_t j = 0; j < sc.args.size(); ++j)
      if (!one_of(sc.args[j].op, kOps))
        return k.error(idx(path + ".args", j) + ".op", "unknown seccomp operator " + q(sc.args[j].op));
  }
  if (notify && (!s.listener_path || s.listener_path->empty()))
    return k.error("linux.seccomp.listenerPath", "required when a rule uses SCMP_ACT_NOTIFY");
  if (s.listener_path && !s.listener_path->empty() && !absolute(*s.listener_path))
    return k.error("linux.seccomp.listenerPath", "must be an absolute path, got " + q(*s.listener_path));
  return {};
}

Result<void> check_linux_misc(const Checker& k, const Linux& l) {
  if (l.personality && l.personality->domain != "LINUX" && l.personality->domain != "LINUX32")
    return k.error("linux.personality.domain", "unknown personality domain " + q(l.personality->domain) + " (LINUX or LINUX32)");
  if (l.memory_policy) TRYV(check_memory_policy(k, *l.memory_policy));
  if (l.intel_rdt) TRYV(check_intel_rdt(k, *l.intel_rdt));
  TRYV(check_rootfs_propagation(k, l));
  TRYV(check_devices(k, l));
  TRYV(check_paths(k, l.masked_paths, "linux.maskedPaths"));
  TRYV(check_paths(k, l.readonly_paths, "linux.readonlyPaths"));
  if (l.resources) TRYV(check_resources(k, *l.resources));
  if (l.seccomp) TRYV(check_seccomp(k, *l.seccomp));
  return {};
}

}  // namespace

Result<void> validate_config(const Config& c, const std::string& origin) {
  Checker k{origin};
  TRYV(check_version_and_root(k, c));
  TRYV(check_process(k, c));
  TRYV(check_namespaces(k, c.linux));
  TRYV(check_user_namespace(k, c));
  TRYV(check_uts(k, c));
  TRYV(check_sysctl(k, c));
  TRYV(check_time(k, c));
  TRYV(check_mounts(k, c));
  TRYV(check_hooks(k, c.hooks));
  TRYV(check_net_devices(k, c));
  return check_linux_misc(k, c.linux);
}

}  // namespace sh::oci
