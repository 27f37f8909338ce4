// config.json -> oci::Config. Unknown keys are ignored (as runc does); a known key with
// the wrong type, a number that does not fit its field, or a missing field the spec marks
// REQUIRED inside a present object is an error naming the JSON path.
#include <sys/resource.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "oci/config.hpp"

namespace sh::oci {

bool Config::has_namespace(std::string_view type) const { return find_namespace(type) != nullptr; }

const Namespace* Config::find_namespace(std::string_view type) const {
  for (auto& ns : linux.namespaces)
    if (ns.type == type) return &ns;
  return nullptr;
}

namespace {

using json::Value;

// ---- typed field helpers ------------------------------------------------------------

// The literal text of a JSON number written as an integer ("-12", "18446744073709551616").
std::optional<std::string> integer_text(const Value& v) {
  if (!v.is_number()) return std::nullopt;
  std::string s = YAJL_GET_NUMBER(v.raw());
  auto digits = s.starts_with('-') ? s.substr(1) : s;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return s;
}

// An integer that must fit T (signed or unsigned); the error names the node's path.
template <class T>
Result<T> num(const Value& v) {
  using L = std::numeric_limits<T>;
  auto range = [&](const std::string& got) {
    return fail(v.path() + ": " + got + " is out of range [" + std::to_string(L::min()) + ", " +
                std::to_string(L::max()) + "]");
  };
  if constexpr (std::is_signed_v<T>) {
    auto i = v.as_int_in(L::min(), L::max());
    if (i) return static_cast<T>(*i);
    // yajl keeps only int64: say "out of range" rather than "not an integer" beyond it.
    if (auto text = integer_text(v)) return range(*text);
    return std::unexpected(std::move(i.error()));
  } else {
    auto u = v.as_uint();
    if (!u) {
      auto text = integer_text(v);
      if (text && !text->starts_with('-')) return range(*text);
      return std::unexpected(std::move(u.error()));
    }
    if (*u > L::max()) return range(std::to_string(*u));
    return static_cast<T>(*u);
  }
}

template <class T>
Result<T> need_num(const Value& o, std::string_view key) {
  return num<T>(TRY(o.need(key)));
}

template <class T>
Result<void> opt_num(const Value& o, std::string_view key, std::optional<T>& out) {
  auto v = o.get(key);
  if (v && !v->is_null()) out = TRY(num<T>(*v));
  return {};
}

template <class T>
Result<void> opt_num(const Value& o, std::string_view key, T& out) {
  auto v = o.get(key);
  if (v && !v->is_null()) out = TRY(num<T>(*v));
  return {};
}

Result<std::string> need_string(const Value& o, std::string_view key) { return TRY(o.need(key)).as_string(); }

Result<std::vector<std::string>> need_strings(const Value& o, std::string_view key) {
  TRYV(o.need(key));
  std::vector<std::string> out;
  TRYV(o.opt(key, out));
  return out;
}

// The member `key` if present and not null, checked to be an object.
Result<std::optional<Value>> opt_object(const Value& o, std::string_view key) {
  auto v = o.get(key);
  if (!v || v->is_null()) return std::optional<Value>{};
  TRYV(v->expect_object());
  return v;
}

// Run `f` on each item of the array member `key`, if present.
Result<void> opt_items(const Value& o, std::string_view key,
                       const std::function<Result<void>(size_t, const Value&)>& f) {
  auto v = o.get(key);
  if (!v || v->is_null()) return {};
  return v->each_item(f);
}

// Parse each item of the array member `key` with `parse` and append it to `out`.
template <class T, class F>
Result<void> opt_list(const Value& o, std::string_view key, std::vector<T>& out, F parse) {
  return opt_items(o, key, [&](size_t, const Value& it) -> Result<void> {
    out.push_back(TRY(parse(it)));
    return {};
  });
}

Result<void> opt_string_map(const Value& o, std::string_view key, std::map<std::string, std::string>& out) {
  auto v = o.get(key);
  if (!v || v->is_null()) return {};
  return v->each_member([&](std::string_view k, const Value& val) -> Result<void> {
    out[std::string(k)] = TRY(val.as_string());
    return {};
  });
}

// ---- process ------------------------------------------------------------------------

struct RlimitName {
  const char* name;
  int resource;
};
constexpr RlimitName kRlimits[] = {
    {"RLIMIT_AS", RLIMIT_AS},         {"RLIMIT_CORE", RLIMIT_CORE},
    {"RLIMIT_CPU", RLIMIT_CPU},       {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE},   {"RLIMIT_LOCKS", RLIMIT_LOCKS},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK}, {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
    {"RLIMIT_NICE", RLIMIT_NICE},     {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_NPROC", RLIMIT_NPROC},   {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO}, {"RLIMIT_RTTIME", RLIMIT_RTTIME},
    {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING}, {"RLIMIT_STACK", RLIMIT_STACK},
};

Result<Rlimit> parse_rlimit(const Value& v) {
  TRYV(v.expect_object());
  Rlimit r;
  auto type = TRY(v.need("type"));
  r.type = TRY(type.as_string());
  auto it = std::find_if(std::begin(kRlimits), std::end(kRlimits), [&](auto& e) { return r.type == e.name; });
  if (it == std::end(kRlimits)) return fail(type.path() + ": unknown rlimit type \"" + r.type + "\"");
  r.resource = it->resource;
  r.hard = TRY(need_num<uint64_t>(v, "hard"));
  r.soft = TRY(need_num<uint64_t>(v, "soft"));
  return r;
}

Result<void> parse_capabilities(const Value& v, Capabilities& c) {
  TRYV(v.expect_object());
  // As runc: a present capabilities object with a set absent (Docker's and Podman's
  // `--cap-drop ALL` write "capabilities": {}) means that set is empty. Only a wholly absent
  // object leaves the runtime's own sets (every set nullopt).
  auto set = [&](std::string_view key, std::optional<std::vector<std::string>>& out) -> Result<void> {
    auto s = v.get(key);
    if (!s || s->is_null()) {
      out = std::vector<std::string>{};
      return {};
    }
    std::vector<std::string> names;
    TRYV(v.opt(key, names));
    out = std::move(names);
    return {};
  };
  TRYV(set("bounding", c.bounding));
  TRYV(set("effective", c.effective));
  TRYV(set("inheritable", c.inheritable));
  TRYV(set("permitted", c.permitted));
  TRYV(set("ambient", c.ambient));
  return {};
}

Result<void> parse_user(const Value& v, User& u) {
  TRYV(v.expect_object());
  // runc takes an absent uid/gid as 0; so do we.
  TRYV(opt_num(v, "uid", u.uid));
  TRYV(opt_num(v, "gid", u.gid));
  TRYV(opt_num(v, "umask", u.umask));
  return opt_list(v, "additionalGids", u.additional_gids, num<uint32_t>);
}

Result<Scheduler> parse_scheduler(const Value& v) {
  TRYV(v.expect_object());
  Scheduler s;
  s.policy = TRY(need_string(v, "policy"));
  TRYV(opt_num(v, "nice", s.nice));
  TRYV(opt_num(v, "priority", s.priority));
  TRYV(v.opt("flags", s.flags));
  TRYV(opt_num(v, "runtime", s.runtime));
  TRYV(opt_num(v, "deadline", s.deadline));
  TRYV(opt_num(v, "period", s.period));
  return s;
}

Result<IoPriority> parse_io_priority(const Value& v) {
  TRYV(v.expect_object());
  IoPriority p;
  p.io_class = TRY(need_string(v, "class"));
  p.priority = TRY(need_num<int>(v, "priority"));
  return p;
}

Result<ConsoleSize> parse_console_size(const Value& v) {
  TRYV(v.expect_object());
  ConsoleSize c;
  c.height = TRY(need_num<unsigned>(v, "height"));
  c.width = TRY(need_num<unsigned>(v, "width"));
  return c;
}

Result<ExecCpuAffinity> parse_exec_cpu_affinity(const Value& v) {
  TRYV(v.expect_object());
  ExecCpuAffinity a;
  TRYV(v.opt("initial", a.initial));
  TRYV(v.opt("final", a.final_cpus));
  return a;
}

// Keep the opaque process.landlock block as JSON text for the Landlock module.
Result<std::string> reserialize(const Value& v) {
  json::Writer w;
  w.value(v.raw());
  return TRYC(v.path(), w.text());
}

Result<Process> parse_process(const Value& v) {
  TRYV(v.expect_object());
  Process p;
  TRYV(v.opt("terminal", p.terminal));
  if (auto o = TRY(opt_object(v, "consoleSize"))) p.console_size = TRY(parse_console_size(*o));
  if (auto o = TRY(opt_object(v, "user"))) TRYV(parse_user(*o, p.user));
  TRYV(v.opt("args", p.args));
  TRYV(v.opt("commandLine", p.command_line));
  TRYV(v.opt("env", p.env));
  TRYV(v.opt("cwd", p.cwd));
  if (auto o = TRY(opt_object(v, "capabilities"))) TRYV(parse_capabilities(*o, p.capabilities));
  TRYV(opt_list(v, "rlimits", p.rlimits, parse_rlimit));
  TRYV(v.opt("noNewPrivileges", p.no_new_privileges));
  TRYV(v.opt("apparmorProfile", p.apparmor_profile));
  TRYV(opt_num(v, "oomScoreAdj", p.oom_score_adj));
  TRYV(v.opt("selinuxLabel", p.selinux_label));
  if (auto o = TRY(opt_object(v, "scheduler"))) p.scheduler = TRY(parse_scheduler(*o));
  if (auto o = TRY(opt_object(v, "ioPriority"))) p.io_priority = TRY(parse_io_priority(*o));
  if (auto o = TRY(opt_object(v, "execCPUAffinity"))) p.exec_cpu_affinity = TRY(parse_exec_cpu_affinity(*o));
  if (auto o = TRY(opt_object(v, "landlock"))) p.landlock_json = TRY(reserialize(*o));
  return p;
}

// ---- root, mounts, hooks ------------------------------------------------------------

Result<IdMapping> parse_id_mapping(const Value& v) {
  TRYV(v.expect_object());
  IdMapping m;
  m.container_id = TRY(need_num<uint32_t>(v, "containerID"));
  m.host_id = TRY(need_num<uint32_t>(v, "hostID"));
  m.size = TRY(need_num<uint32_t>(v, "size"));
  return m;
}

Result<Mount> parse_mount(const Value& v) {
  TRYV(v.expect_object());
  Mount m;
  m.destination = TRY(need_string(v, "destination"));
  TRYV(v.opt("type", m.type));
  TRYV(v.opt("source", m.source));
  TRYV(v.opt("options", m.options));
  TRYV(opt_list(v, "uidMappings", m.uid_mappings, parse_id_mapping));
  TRYV(opt_list(v, "gidMappings", m.gid_mappings, parse_id_mapping));
  return m;
}

Result<Hook> parse_hook(const Value& v) {
  TRYV(v.expect_object());
  Hook h;
  h.path = TRY(need_string(v, "path"));
  TRYV(v.opt("args", h.args));
  TRYV(v.opt("env", h.env));
  if (auto t = v.get("timeout"); t && !t->is_null()) {
    int secs = TRY(num<int>(*t));
    if (secs <= 0) return fail(t->path() + ": must be greater than zero, got " + std::to_string(secs));
    h.timeout = secs;
  }
  return h;
}

Result<void> parse_hooks(const Value& v, Hooks& h) {
  TRYV(v.expect_object());
  TRYV(opt_list(v, "prestart", h.prestart, parse_hook));
  TRYV(opt_list(v, "createRuntime", h.create_runtime, parse_hook));
  TRYV(opt_list(v, "createContainer", h.create_container, parse_hook));
  TRYV(opt_list(v, "startContainer", h.start_container, parse_hook));
  TRYV(opt_list(v, "poststart", h.poststart, parse_hook));
  TRYV(opt_list(v, "poststop", h.poststop, parse_hook));
  return {};
}

// ---- linux.resources ----------------------------------------------------------------

Result<DeviceRule> parse_device_rule(const Value& v) {
  TRYV(v.expect_object());
  DeviceRule r;
  r.allow = TRY(TRY(v.need("allow")).as_bool());
  TRYV(v.opt("type", r.type));
  TRYV(opt_num(v, "major", r.major));
  TRYV(opt_num(v, "minor", r.minor));
  TRYV(v.opt("access", r.access));
  return r;
}

Result<MemoryResources> parse_memory(const Value& v) {
  TRYV(v.expect_object());
  MemoryResources m;
  TRYV(opt_num(v, "limit", m.limit));
  TRYV(opt_num(v, "reservation", m.reservation));
  TRYV(opt_num(v, "swap", m.swap));
  TRYV(opt_num(v, "kernel", m.kernel));
  TRYV(opt_num(v, "kernelTCP", m.kernel_tcp));
  TRYV(opt_num(v, "swappiness", m.swappiness));
  TRYV(v.opt("disableOOMKiller", m.disable_oom_killer));
  TRYV(v.opt("useHierarchy", m.use_hierarchy));
  TRYV(v.opt("checkBeforeUpdate", m.check_before_update));
  return m;
}

Result<CpuResources> parse_cpu(const Value& v) {
  TRYV(v.expect_object());
  CpuResources c;
  TRYV(opt_num(v, "shares", c.shares));
  TRYV(opt_num(v, "quota", c.quota));
  TRYV(opt_num(v, "burst", c.burst));
  TRYV(opt_num(v, "period", c.period));
  TRYV(opt_num(v, "realtimeRuntime", c.realtime_runtime));
  TRYV(opt_num(v, "realtimePeriod", c.realtime_period));
  TRYV(v.opt("cpus", c.cpus));
  TRYV(v.opt("mems", c.mems));
  TRYV(opt_num(v, "idle", c.idle));
  return c;
}

Result<PidsResources> parse_pids(const Value& v) {
  TRYV(v.expect_object());
  PidsResources p;
  TRYV(opt_num(v, "limit", p.limit));  // optional since runtime-spec 1.3
  return p;
}

Result<BlockIoDevice> parse_weight_device(const Value& v) {
  TRYV(v.expect_object());
  BlockIoDevice d;
  d.major = TRY(need_num<int64_t>(v, "major"));
  d.minor = TRY(need_num<int64_t>(v, "minor"));
  TRYV(opt_num(v, "weight", d.weight));
  TRYV(opt_num(v, "leafWeight", d.leaf_weight));
  return d;
}

Result<BlockIoDevice> parse_throttle_device(const Value& v) {
  TRYV(v.expect_object());
  BlockIoDevice d;
  d.major = TRY(need_num<int64_t>(v, "major"));
  d.minor = TRY(need_num<int64_t>(v, "minor"));
  d.rate = TRY(need_num<uint64_t>(v, "rate"));
  return d;
}

Result<BlockIoResources> parse_block_io(const Value& v) {
  TRYV(v.expect_object());
  BlockIoResources b;
  TRYV(opt_num(v, "weight", b.weight));
  TRYV(opt_num(v, "leafWeight", b.leaf_weight));
  TRYV(opt_list(v, "weightDevice", b.weight_device, parse_weight_device));
  TRYV(opt_list(v, "throttleReadBpsDevice", b.throttle_read_bps, parse_throttle_device));
  TRYV(opt_list(v, "throttleWriteBpsDevice", b.throttle_write_bps, parse_throttle_device));
  TRYV(opt_list(v, "throttleReadIOPSDevice", b.throttle_read_iops, parse_throttle_device));
  TRYV(opt_list(v, "throttleWriteIOPSDevice", b.throttle_write_iops, parse_throttle_device));
  return b;
}

Result<HugepageLimit> parse_hugepage_limit(const Value& v) {
  TRYV(v.expect_object());
  HugepageLimit h;
  h.page_size = TRY(need_string(v, "pageSize"));
  h.limit = TRY(need_num<uint64_t>(v, "limit"));
  return h;
}

Result<NetworkResources> parse_network(const Value& v) {
  TRYV(v.expect_object());
  NetworkResources n;
  TRYV(opt_num(v, "classID", n.class_id));
  TRYV(opt_items(v, "priorities", [&](size_t, const Value& it) -> Result<void> {
    TRYV(it.expect_object());
    auto name = TRY(need_string(it, "name"));
    n.priorities.emplace_back(std::move(name), TRY(need_num<uint32_t>(it, "priority")));
    return {};
  }));
  return n;
}

Result<Resources> parse_resources(const Value& v) {
  TRYV(v.expect_object());
  Resources r;
  TRYV(opt_list(v, "devices", r.devices, parse_device_rule));
  if (auto o = TRY(opt_object(v, "memory"))) r.memory = TRY(parse_memory(*o));
  if (auto o = TRY(opt_object(v, "cpu"))) r.cpu = TRY(parse_cpu(*o));
  if (auto o = TRY(opt_object(v, "pids"))) r.pids = TRY(parse_pids(*o));
  if (auto o = TRY(opt_object(v, "blockIO"))) r.block_io = TRY(parse_block_io(*o));
  TRYV(opt_list(v, "hugepageLimits", r.hugepage_limits, parse_hugepage_limit));
  if (auto o = TRY(opt_object(v, "network"))) r.network = TRY(parse_network(*o));
  TRYV(opt_string_map(v, "unified", r.unified));
  if (auto o = TRY(opt_object(v, "rdma"))) {
    TRYV(o->each_member([&](std::string_view k, const Value&) -> Result<void> {
      r.rdma_keys.emplace_back(k);
      return {};
    }));
  }
  return r;
}

// ---- linux: the rest ----------------------------------------------------------------

Result<Namespace> parse_namespace(const Value& v) {
  TRYV(v.expect_object());
  Namespace ns;
  ns.type = TRY(need_string(v, "type"));
  TRYV(v.opt("path", ns.path));
  return ns;
}

Result<Device> parse_device(const Value& v) {
  TRYV(v.expect_object());
  Device d;
  d.type = TRY(need_string(v, "type"));
  d.path = TRY(need_string(v, "path"));
  if (d.type == "p") {  // a FIFO has no device numbers
    TRYV(opt_num(v, "major", d.major));
    TRYV(opt_num(v, "minor", d.minor));
  } else {
    d.major = TRY(need_num<int64_t>(v, "major"));
    d.minor = TRY(need_num<int64_t>(v, "minor"));
  }
  TRYV(opt_num(v, "fileMode", d.file_mode));
  TRYV(opt_num(v, "uid", d.uid));
  TRYV(opt_num(v, "gid", d.gid));
  return d;
}

Result<SeccompArg> parse_seccomp_arg(const Value& v) {
  TRYV(v.expect_object());
  SeccompArg a;
  a.index = TRY(need_num<unsigned>(v, "index"));
  a.value = TRY(need_num<uint64_t>(v, "value"));
  TRYV(opt_num(v, "valueTwo", a.value_two));
  a.op = TRY(need_string(v, "op"));
  return a;
}

Result<SeccompSyscall> parse_seccomp_syscall(const Value& v) {
  TRYV(v.expect_object());
  SeccompSyscall s;
  s.names = TRY(need_strings(v, "names"));
  s.action = TRY(need_string(v, "action"));
  TRYV(opt_num(v, "errnoRet", s.errno_ret));
  TRYV(opt_list(v, "args", s.args, parse_seccomp_arg));
  return s;
}

Result<Seccomp> parse_seccomp(const Value& v) {
  TRYV(v.expect_object());
  Seccomp s;
  s.default_action = TRY(need_string(v, "defaultAction"));
  TRYV(opt_num(v, "defaultErrnoRet", s.default_errno_ret));
  TRYV(v.opt("architectures", s.architectures));
  TRYV(v.opt("flags", s.flags));
  TRYV(v.opt("listenerPath", s.listener_path));
  TRYV(v.opt("listenerMetadata", s.listener_metadata));
  TRYV(opt_list(v, "syscalls", s.syscalls, parse_seccomp_syscall));
  return s;
}

Result<Personality> parse_personality(const Value& v) {
  TRYV(v.expect_object());
  Personality p;
  p.domain = TRY(need_string(v, "domain"));
  TRYV(v.opt("flags", p.flags));
  return p;
}

Result<void> parse_time_offsets(const Value& v, std::map<std::string, TimeOffset>& out) {
  return v.each_member([&](std::string_view clock, const Value& o) -> Result<void> {
    TRYV(o.expect_object());
    TimeOffset t;
    TRYV(opt_num(o, "secs", t.secs));
    TRYV(opt_num(o, "nanosecs", t.nanosecs));
    out[std::string(clock)] = t;
    return {};
  });
}

Result<MemoryPolicy> parse_memory_policy(const Value& v) {
  TRYV(v.expect_object());
  MemoryPolicy m;
  m.mode = TRY(need_string(v, "mode"));
  TRYV(v.opt("nodes", m.nodes));
  TRYV(v.opt("flags", m.flags));
  return m;
}

Result<void> parse_net_devices(const Value& v, std::map<std::string, NetDevice>& out) {
  return v.each_member([&](std::string_view host_name, const Value& o) -> Result<void> {
    TRYV(o.expect_object());
    NetDevice d;
    TRYV(o.opt("name", d.name));
    out[std::string(host_name)] = std::move(d);
    return {};
  });
}

Result<IntelRdt> parse_intel_rdt(const Value& v) {
  TRYV(v.expect_object());
  IntelRdt r;
  TRYV(v.opt("closID", r.clos_id));
  TRYV(v.opt("l3CacheSchema", r.l3_cache_schema));
  TRYV(v.opt("memBwSchema", r.mem_bw_schema));
  if (auto s = v.get("schemata"); s && !s->is_null()) {
    std::vector<std::string> lines;
    TRYV(v.opt("schemata", lines));
    r.schemata = std::move(lines);
  }
  TRYV(v.opt("enableMonitoring", r.enable_monitoring));
  TRYV(v.opt("enableCMT", r.enable_cmt));
  TRYV(v.opt("enableMBM", r.enable_mbm));
  return r;
}

Result<void> parse_linux(const Value& v, Linux& l) {
  TRYV(v.expect_object());
  TRYV(opt_list(v, "namespaces", l.namespaces, parse_namespace));
  TRYV(opt_list(v, "uidMappings", l.uid_mappings, parse_id_mapping));
  TRYV(opt_list(v, "gidMappings", l.gid_mappings, parse_id_mapping));
  TRYV(opt_list(v, "devices", l.devices, parse_device));
  TRYV(v.opt("cgroupsPath", l.cgroups_path));
  if (auto o = TRY(opt_object(v, "resources"))) l.resources = TRY(parse_resources(*o));
  TRYV(v.opt("rootfsPropagation", l.rootfs_propagation));
  if (auto o = TRY(opt_object(v, "seccomp"))) l.seccomp = TRY(parse_seccomp(*o));
  TRYV(opt_string_map(v, "sysctl", l.sysctl));
  TRYV(v.opt("maskedPaths", l.masked_paths));
  TRYV(v.opt("readonlyPaths", l.readonly_paths));
  TRYV(v.opt("mountLabel", l.mount_label));
  if (auto o = TRY(opt_object(v, "personality"))) l.personality = TRY(parse_personality(*o));
  if (auto o = TRY(opt_object(v, "timeOffsets"))) TRYV(parse_time_offsets(*o, l.time_offsets));
  if (auto o = TRY(opt_object(v, "netDevices"))) TRYV(parse_net_devices(*o, l.net_devices));
  if (auto o = TRY(opt_object(v, "memoryPolicy"))) l.memory_policy = TRY(parse_memory_policy(*o));
  if (auto o = TRY(opt_object(v, "intelRdt"))) l.intel_rdt = TRY(parse_intel_rdt(*o));
  return {};
}

// ---- top level ----------------------------------------------------------------------

Result<Config> parse_root(const Value& v) {
  Config c;
  TRYV(v.opt("ociVersion", c.oci_version));
  if (auto o = TRY(opt_object(v, "process"))) c.process = TRY(parse_process(*o));
  if (auto o = TRY(opt_object(v, "root"))) {
    TRYV(o->opt("path", c.root.path));
    TRYV(o->opt("readonly", c.root.readonly));
  }
  TRYV(opt_list(v, "mounts", c.mounts, parse_mount));
  TRYV(v.opt("hostname", c.hostname));
  TRYV(v.opt("domainname", c.domainname));
  if (auto o = TRY(opt_object(v, "hooks"))) TRYV(parse_hooks(*o, c.hooks));
  TRYV(opt_string_map(v, "annotations", c.annotations));
  if (auto o = TRY(opt_object(v, "linux"))) TRYV(parse_linux(*o, c.linux));
  if (auto o = TRY(opt_object(v, "sharness"))) {
    json::Writer w;
    w.value(o->raw());
    c.sharness_json = TRYC("config.json: sharness", w.text());
  }
  return c;
}

}  // namespace

Result<Config> parse_config(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  if (!root.is_object()) return fail(origin + ": expected a JSON object at the top level");
  return parse_root(root);
}

Result<Process> parse_process_json(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  TRYV(root.expect_object());
  return parse_process(root);
}

Result<Resources> parse_resources_json(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  TRYV(root.expect_object());
  return parse_resources(root);
}

}  // namespace sh::oci
