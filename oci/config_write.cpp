// oci::Config -> config.json, the inverse of config_parse.cpp (key names from runtime-spec).
#include "oci/config_write.hpp"

namespace sh::oci {
namespace {

using json::Writer;

template <class T>
void opt_uint(Writer& w, std::string_view k, const std::optional<T>& v) {
  if (v) w.key(k).uinteger(static_cast<unsigned long long>(*v));
}
template <class T>
void opt_int(Writer& w, std::string_view k, const std::optional<T>& v) {
  if (v) w.key(k).integer(static_cast<long long>(*v));
}
void opt_str(Writer& w, std::string_view k, const std::optional<std::string>& v) {
  if (v) w.kv(k, *v);
}
void opt_bool(Writer& w, std::string_view k, const std::optional<bool>& v) {
  if (v) w.kv(k, *v);
}
void nonempty(Writer& w, std::string_view k, const std::vector<std::string>& v) {
  if (!v.empty()) w.kv(k, v);
}
void nonempty(Writer& w, std::string_view k, const std::string& v) {
  if (!v.empty()) w.kv(k, v);
}
void string_map(Writer& w, std::string_view k, const std::map<std::string, std::string>& m) {
  if (m.empty()) return;
  w.key(k).begin_object();
  for (const auto& [key, val] : m) w.kv(key, val);
  w.end_object();
}
template <class T, class F>
void list(Writer& w, std::string_view k, const std::vector<T>& v, F each) {
  if (v.empty()) return;
  w.key(k).begin_array();
  for (const auto& x : v) each(x);
  w.end_array();
}

// A block kept as JSON text (process.landlock): re-emitted as a value. It came from our own
// parser, so it parses; if it ever did not, the writer fails (config_to_json's error): a
// dropped block would be a dropped bound.
void raw(Writer& w, std::string_view k, const std::optional<std::string>& text) {
  if (text) w.key(k).json_text(*text, "config.json: process." + std::string(k));
}

void id_mappings(Writer& w, std::string_view k, const std::vector<IdMapping>& v) {
  list(w, k, v, [&](const IdMapping& m) {
    w.begin_object().key("containerID").uinteger(m.container_id).key("hostID").uinteger(m.host_id);
    w.key("size").uinteger(m.size).end_object();
  });
}

void write_process(Writer& w, const Process& p) {
  w.key("process").begin_object();
  w.kv("terminal", p.terminal);
  if (p.console_size)
    w.key("consoleSize").begin_object().key("height").uinteger(p.console_size->height)
        .key("width").uinteger(p.console_size->width).end_object();
  w.key("user").begin_object().key("uid").uinteger(p.user.uid).key("gid").uinteger(p.user.gid);
  opt_uint(w, "umask", p.user.umask);
  if (!p.user.additional_gids.empty()) {
    w.key("additionalGids").begin_array();
    for (auto g : p.user.additional_gids) w.uinteger(g);
    w.end_array();
  }
  w.end_object();
  nonempty(w, "args", p.args);
  opt_str(w, "commandLine", p.command_line);
  nonempty(w, "env", p.env);
  w.kv("cwd", p.cwd);
  const Capabilities& c = p.capabilities;
  if (c.bounding || c.effective || c.inheritable || c.permitted || c.ambient) {
    w.key("capabilities").begin_object();
    auto set = [&](std::string_view k, const std::optional<std::vector<std::string>>& s) {
      if (s) w.kv(k, *s);
    };
    set("bounding", c.bounding);
    set("effective", c.effective);
    set("inheritable", c.inheritable);
    set("permitted", c.permitted);
    set("ambient", c.ambient);
    w.end_object();
  }
  list(w, "rlimits", p.rlimits, [&](const Rlimit& r) {
    w.begin_object().kv("type", r.type).key("hard").uinteger(r.hard).key("soft").uinteger(r.soft).end_object();
  });
  if (p.no_new_privileges) w.kv("noNewPrivileges", true);
  opt_str(w, "apparmorProfile", p.apparmor_profile);
  opt_int(w, "oomScoreAdj", p.oom_score_adj);
  opt_str(w, "selinuxLabel", p.selinux_label);
  if (p.scheduler) {
    const Scheduler& s = *p.scheduler;
    w.key("scheduler").begin_object().kv("policy", s.policy);
    opt_int(w, "nice", s.nice);
    opt_int(w, "priority", s.priority);
    nonempty(w, "flags", s.flags);
    opt_uint(w, "runtime", s.runtime);
    opt_uint(w, "deadline", s.deadline);
    opt_uint(w, "period", s.period);
    w.end_object();
  }
  if (p.io_priority)
    w.key("ioPriority").begin_object().kv("class", p.io_priority->io_class)
        .kv("priority", p.io_priority->priority).end_object();
  if (p.exec_cpu_affinity) {
    w.key("execCPUAffinity").begin_object();
    opt_str(w, "initial", p.exec_cpu_affinity->initial);
    opt_str(w, "final", p.exec_cpu_affinity->final_cpus);
    w.end_object();
  }
  raw(w, "landlock", p.landlock_json);
  w.end_object();
}

void write_mount(Writer& w, const Mount& m) {
  w.begin_object().kv("destination", m.destination);
  nonempty(w, "type", m.type);
  nonempty(w, "source", m.source);
  nonempty(w, "options", m.options);
  id_mappings(w, "uidMappings", m.uid_mappings);
  id_mappings(w, "gidMappings", m.gid_mappings);
  w.end_object();
}

void write_hooks(Writer& w, const Hooks& h) {
  if (h.empty()) return;
  w.key("hooks").begin_object();
  auto kind = [&](std::string_view k, const std::vector<Hook>& hooks) {
    list(w, k, hooks, [&](const Hook& x) {
      w.begin_object().kv("path", x.path);
      nonempty(w, "args", x.args);
      nonempty(w, "env", x.env);
      opt_int(w, "timeout", x.timeout);
      w.end_object();
    });
  };
  kind("prestart", h.prestart);
  kind("createRuntime", h.create_runtime);
  kind("createContainer", h.create_container);
  kind("startContainer", h.start_container);
  kind("poststart", h.poststart);
  kind("poststop", h.poststop);
  w.end_object();
}

void write_resources(Writer& w, const Resources& r) {
  w.key("resources").begin_object();
  list(w, "devices", r.devices, [&](const DeviceRule& d) {
    w.begin_object().kv("allow", d.allow).kv("type", d.type);
    opt_int(w, "major", d.major);
    opt_int(w, "minor", d.minor);
    w.kv("access", d.access).end_object();
  });
  if (r.memory) {
    const MemoryResources& m = *r.memory;
    w.key("memory").begin_object();
    opt_int(w, "limit", m.limit);
    opt_int(w, "reservation", m.reservation);
    opt_int(w, "swap", m.swap);
    opt_int(w, "kernel", m.kernel);
    opt_int(w, "kernelTCP", m.kernel_tcp);
    opt_uint(w, "swappiness", m.swappiness);
    opt_bool(w, "disableOOMKiller", m.disable_oom_killer);
    opt_bool(w, "useHierarchy", m.use_hierarchy);
    opt_bool(w, "checkBeforeUpdate", m.check_before_update);
    w.end_object();
  }
  if (r.cpu) {
    const CpuResources& c = *r.cpu;
    w.key("cpu").begin_object();
    opt_uint(w, "shares", c.shares);
    opt_int(w, "quota", c.quota);
    opt_uint(w, "burst", c.burst);
    opt_uint(w, "period", c.period);
    opt_int(w, "realtimeRuntime", c.realtime_runtime);
    opt_uint(w, "realtimePeriod", c.realtime_period);
    opt_str(w, "cpus", c.cpus);
    opt_str(w, "mems", c.mems);
    opt_int(w, "idle", c.idle);
    w.end_object();
  }
  if (r.pids) w.key("pids").begin_object().key("limit").integer(r.pids->limit).end_object();
  if (r.block_io) {
    const BlockIoResources& b = *r.block_io;
    w.key("blockIO").begin_object();
    opt_uint(w, "weight", b.weight);
    opt_uint(w, "leafWeight", b.leaf_weight);
    list(w, "weightDevice", b.weight_device, [&](const BlockIoDevice& d) {
      w.begin_object().key("major").integer(d.major).key("minor").integer(d.minor);
      opt_uint(w, "weight", d.weight);
      opt_uint(w, "leafWeight", d.leaf_weight);
      w.end_object();
    });
    auto throttle = [&](std::string_view k, const std::vector<BlockIoDevice>& v) {
      list(w, k, v, [&](const BlockIoDevice& d) {
        w.begin_object().key("major").integer(d.major).key("minor").integer(d.minor);
        w.key("rate").uinteger(d.rate).end_object();
      });
    };
    throttle("throttleReadBpsDevice", b.throttle_read_bps);
    throttle("throttleWriteBpsDevice", b.throttle_write_bps);
    throttle("throttleReadIOPSDevice", b.throttle_read_iops);
    throttle("throttleWriteIOPSDevice", b.throttle_write_iops);
    w.end_object();
  }
  list(w, "hugepageLimits", r.hugepage_limits, [&](const HugepageLimit& h) {
    w.begin_object().kv("pageSize", h.page_size).key("limit").uinteger(h.limit).end_object();
  });
  if (r.network) {
    w.key("network").begin_object();
    opt_uint(w, "classID", r.network->class_id);
    list(w, "priorities", r.network->priorities, [&](const std::pair<std::string, uint32_t>& p) {
      w.begin_object().kv("name", p.first).key("priority").uinteger(p.second).end_object();
    });
    w.end_object();
  }
  string_map(w, "unified", r.unified);
  // The model keeps only rdma's keys (validation refuses rdma); write them so it still does.
  if (!r.rdma_keys.empty()) {
    w.key("rdma").begin_object();
    for (const auto& k : r.rdma_keys) w.key(k).begin_object().end_object();
    w.end_object();
  }
  w.end_object();
}

void write_linux(Writer& w, const Linux& l) {
  w.key("linux").begin_object();
  list(w, "namespaces", l.namespaces, [&](const Namespace& ns) {
    w.begin_object().kv("type", ns.type);
    nonempty(w, "path", ns.path);
    w.end_object();
  });
  id_mappings(w, "uidMappings", l.uid_mappings);
  id_mappings(w, "gidMappings", l.gid_mappings);
  list(w, "devices", l.devices, [&](const Device& d) {
    w.begin_object().kv("type", d.type).kv("path", d.path).key("major").integer(d.major).key("minor").integer(d.minor);
    opt_uint(w, "fileMode", d.file_mode);
    opt_uint(w, "uid", d.uid);
    opt_uint(w, "gid", d.gid);
    w.end_object();
  });
  opt_str(w, "cgroupsPath", l.cgroups_path);
  if (l.resources) write_resources(w, *l.resources);
  nonempty(w, "rootfsPropagation", l.rootfs_propagation);
  if (l.seccomp) {
    w.key("seccomp");
    write_seccomp(w, *l.seccomp);
  }
  string_map(w, "sysctl", l.sysctl);
  nonempty(w, "maskedPaths", l.masked_paths);
  nonempty(w, "readonlyPaths", l.readonly_paths);
  opt_str(w, "mountLabel", l.mount_label);
  if (l.personality) {
    w.key("personality").begin_object().kv("domain", l.personality->domain);
    nonempty(w, "flags", l.personality->flags);
    w.end_object();
  }
  if (!l.time_offsets.empty()) {
    w.key("timeOffsets").begin_object();
    for (const auto& [clock, t] : l.time_offsets)
      w.key(clock).begin_object().key("secs").integer(t.secs).key("nanosecs").uinteger(t.nanosecs).end_object();
    w.end_object();
  }
  if (!l.net_devices.empty()) {
    w.key("netDevices").begin_object();
    for (const auto& [host, d] : l.net_devices) {
      w.key(host).begin_object();
      nonempty(w, "name", d.name);
      w.end_object();
    }
    w.end_object();
  }
  if (l.memory_policy) {
    w.key("memoryPolicy").begin_object().kv("mode", l.memory_policy->mode);
    nonempty(w, "nodes", l.memory_policy->nodes);
    nonempty(w, "flags", l.memory_policy->flags);
    w.end_object();
  }
  if (l.intel_rdt) {
    auto& r = *l.intel_rdt;
    w.key("intelRdt").begin_object();
    opt_str(w, "closID", r.clos_id);
    opt_str(w, "l3CacheSchema", r.l3_cache_schema);
    opt_str(w, "memBwSchema", r.mem_bw_schema);
    if (r.schemata) w.kv("schemata", *r.schemata);
    opt_bool(w, "enableMonitoring", r.enable_monitoring);
    opt_bool(w, "enableCMT", r.enable_cmt);
    opt_bool(w, "enableMBM", r.enable_mbm);
    w.end_object();
  }
  w.end_object();
}

}  // namespace

void write_seccomp(Writer& w, const Seccomp& s) {
  w.begin_object().kv("defaultAction", s.default_action);
  opt_uint(w, "defaultErrnoRet", s.default_errno_ret);
  nonempty(w, "architectures", s.architectures);
  nonempty(w, "flags", s.flags);
  opt_str(w, "listenerPath", s.listener_path);
  opt_str(w, "listenerMetadata", s.listener_metadata);
  list(w, "syscalls", s.syscalls, [&](const SeccompSyscall& sc) {
    w.begin_object().kv("names", sc.names).kv("action", sc.action);
    opt_uint(w, "errnoRet", sc.errno_ret);
    list(w, "args", sc.args, [&](const SeccompArg& a) {
      w.begin_object().key("index").uinteger(a.index).key("value").uinteger(a.value);
      w.key("valueTwo").uinteger(a.value_two).kv("op", a.op).end_object();
    });
    w.end_object();
  });
  w.end_object();
}

void write_config_members(Writer& w, const Config& c) {
  w.kv("ociVersion", c.oci_version);
  if (c.process) write_process(w, *c.process);
  if (!c.root.path.empty() || c.root.readonly) {
    w.key("root").begin_object().kv("path", c.root.path);
    if (c.root.readonly) w.kv("readonly", true);
    w.end_object();
  }
  list(w, "mounts", c.mounts, [&](const Mount& m) { write_mount(w, m); });
  nonempty(w, "hostname", c.hostname);
  nonempty(w, "domainname", c.domainname);
  write_hooks(w, c.hooks);
  string_map(w, "annotations", c.annotations);
  write_linux(w, c.linux);
}

Result<std::string> config_to_json(const Config& c, bool pretty) {
  Writer w(pretty);
  w.begin_object();
  write_config_members(w, c);
  if (c.sharness_json && !pretty && json::is_one_object(*c.sharness_json)) {
    // The block is compact JSON a Writer made (config_parse, extension_to_json): appended as it
    // is rather than parsed and encoded again, 6-7 KB under a policy (callgrind: a third of the
    // JSON work of a create). The object is still open here, after at least "ociVersion".
    // is_one_object scans as Document::parse does (a comment is not one object), so what is
    // spliced is what a reader of the saved config parses.
    return TRY(w.text()) + ",\"sharness\":" + *c.sharness_json + "}";
  }
  // Otherwise parsed and re-emitted; a block that does not parse is an error, never dropped
  // (exec reads the saved block: without it, its stacked filter would be gone).
  if (c.sharness_json) w.key("sharness").json_text(*c.sharness_json, "config.json: sharness");
  w.end_object();
  return w.text();
}

}  // namespace sh::oci
