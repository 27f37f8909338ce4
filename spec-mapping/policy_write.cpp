// Policy -> JSON, in the same shape the parser reads (sizes as integers of bytes). A composed
// policy has no source document: its hash is over the canonical form of this output.
#include "oci/landlock.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

std::string policy_to_json(const Policy& p, bool pretty) {
  json::Writer w(pretty);
  w.begin_object();
  w.kv("id", p.id).kv("version", p.version);
  if (!p.description.empty()) w.kv("description", p.description);
  w.kv("bestEffort", p.best_effort);

  const Identity& id = p.identity;
  if (id.uid || id.gid || id.capabilities || id.no_new_privileges) {
    w.key("identity").begin_object();
    if (id.uid) {
      if (id.uid->ephemeral) w.kv("uid", "ephemeral");
      else w.key("uid").uinteger(id.uid->value);
    }
    if (id.gid) w.key("gid").uinteger(*id.gid);
    if (id.capabilities) w.kv("capabilities", *id.capabilities);
    if (id.no_new_privileges) w.kv("noNewPrivileges", true);
    w.end_object();
  }
  if (!p.namespaces.empty()) w.kv("namespaces", p.namespaces);
  if (p.network) w.kv("network", network_name(*p.network));
  if (p.memory) {
    w.key("memory").begin_object();
    if (p.memory->limit) w.key("limit").uinteger(*p.memory->limit);
    if (p.memory->address_space) w.key("addressSpace").uinteger(*p.memory->address_space);
    if (p.memory->deny_write_execute) w.kv("denyWriteExecute", true);
    w.end_object();
  }
  if (p.cpu) w.key("cpu").begin_object().key("quota").uinteger(p.cpu->quota).key("period").uinteger(p.cpu->period).end_object();
  if (p.pids) {
    w.key("pids").begin_object();
    if (p.pids->limit) w.key("limit").integer(*p.pids->limit);
    if (!p.pids->fork) w.kv("fork", false);
    w.end_object();
  }
  if (p.wall_clock_seconds) w.key("wallClock").begin_object().key("seconds").uinteger(*p.wall_clock_seconds).end_object();
  if (p.priority)
    w.key("priority").begin_object().kv("oomScoreAdjMin", p.priority->oom_score_adj_min)
        .kv("niceMin", p.priority->nice_min).kv("realtime", p.priority->realtime).end_object();
  if (p.syscalls) {
    w.key("syscalls").begin_object();
    w.kv("defaultAction", action_name(p.syscalls->default_action));
    w.kv("allow", p.syscalls->allow);
    w.end_object();
  }
  if (p.devices) w.kv("devices", *p.devices);
  if (p.hooks_from_config) w.key("hooks").begin_object().kv("fromConfig", *p.hooks_from_config).end_object();

  const Mounts& m = p.mounts;
  if (m.readonly_root || m.binds_readonly || !m.tmpfs.empty() || !m.readonly_binds.empty() ||
      !m.masked_paths.empty() || !m.readonly_paths.empty()) {
    w.key("mounts").begin_object();
    if (m.readonly_root) w.kv("readonlyRoot", true);
    if (m.binds_readonly) w.kv("bindsReadOnly", true);
    if (!m.tmpfs.empty()) {
      w.key("tmpfs").begin_array();
      for (const auto& t : m.tmpfs) {
        w.begin_object().kv("path", t.path);
        if (t.size) w.key("size").uinteger(*t.size);
        if (t.exec) w.kv("exec", true);
        w.end_object();
      }
      w.end_array();
    }
    if (!m.readonly_binds.empty()) {
      w.key("readonlyBinds").begin_array();
      for (const auto& b : m.readonly_binds) w.begin_object().kv("source", b.source).kv("destination", b.destination).end_object();
      w.end_array();
    }
    if (!m.masked_paths.empty()) w.kv("maskedPaths", m.masked_paths);
    if (!m.readonly_paths.empty()) w.kv("readonlyPaths", m.readonly_paths);
    w.end_object();
  }
  write_mesh_members(w, p.mesh);
  if (p.files) {
    w.key("files").begin_object();
    for (const auto& r : *p.files) w.kv(r.path, oci::landlock_names(oci::LandlockKind::fs, r.access));
    w.end_object();
  }
  if (p.ports) {
    auto list = [&](const char* key, const std::vector<uint16_t>& ports) {
      w.key(key).begin_array();
      for (auto port : ports) w.integer(port);
      w.end_array();
    };
    w.key("ports").begin_object();
    list("bind", p.ports->bind);
    list("connect", p.ports->connect);
    w.end_object();
  }
  if (p.scope) w.kv("scope", *p.scope);
  if (p.exec) {
    w.key("exec").begin_array();
    for (const auto& pin : *p.exec) w.begin_object().kv("path", pin.path).kv("sha256", pin.sha256).end_object();
    w.end_array();
  }
  if (p.secrets) {
    w.key("secrets");
    write_secrets(w, *p.secrets);
  }
  if (p.egress) {
    w.key("egress");
    write_egress(w, *p.egress);
  }
  w.end_object();
  return w.str();
}

}  // namespace sh::policy
