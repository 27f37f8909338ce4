// apply_to_config(): policy x config.json. See compose.hpp for the rule of every section.
#include <sys/resource.h>

#include <algorithm>
#include <set>

#include "oci/cap_names.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/egress_map.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/landlock_map.hpp"
#include "spec-mapping/seccomp_map.hpp"

namespace sh::policy {
namespace {

bool contains(const std::vector<std::string>& v, std::string_view s) { return std::ranges::find(v, s) != v.end(); }

// ---- process ----------------------------------------------------------------------------

// Normalised names ("cap_kill" -> "CAP_KILL"); unknown names are dropped (removing is tightening).
std::vector<std::string> cap_meet(const std::vector<std::string>& config, const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  for (const auto& n : config) {
    auto cap = caps::parse(n);
    if (!cap) continue;
    std::string name = caps::name(*cap);
    if (contains(allowed, name) && !contains(out, name)) out.push_back(name);
  }
  return out;
}

// A policy's fixed uid or gid never makes a non-root user root: a config that asks for a
// non-root id (a pod's runAsNonRoot) keeps it against a policy's 0, and says so in the bounds.
void set_id(uint32_t& current, uint32_t policy_value, const char* what, Extension& ext) {
  if (policy_value == 0 && current != 0) {
    ext.bounds.push_back(Bound{std::string("the config's non-root ") + what + " " + std::to_string(current) +
                                   " kept over the policy's " + what + " 0",
                               true, kBeforeExecve, "a policy never turns a non-root user into root"});
    return;
  }
  current = policy_value;
}

void apply_identity(const Identity& id, oci::Process& proc, Extension& ext) {
  if (id.uid) {
    if (id.uid->ephemeral) {
      ext.ephemeral_uid = true;  // the runtime allocates the uid at create
      ext.ephemeral_gid = !id.gid;  // and, unless the policy names a gid, uses it as the gid
    } else {
      set_id(proc.user.uid, id.uid->value, "uid", ext);
      if (!id.gid) set_id(proc.user.gid, id.uid->value, "gid", ext);
    }
    proc.user.additional_gids.clear();  // supplementary groups would let the process past gid checks
  }
  if (id.gid) set_id(proc.user.gid, *id.gid, "gid", ext);
  if (id.capabilities) {
    auto& c = proc.capabilities;
    // An absent bounding set (only when the config has no capabilities object: inside one, the
    // parser makes an absent set empty, as runc) keeps the runtime's own, all: the meet is the
    // policy's list.
    c.bounding = c.bounding ? cap_meet(*c.bounding, *id.capabilities) : *id.capabilities;
    for (auto* set : {&c.effective, &c.permitted, &c.inheritable, &c.ambient})
      if (*set) **set = cap_meet(**set, *id.capabilities);
  }
  if (id.no_new_privileges) proc.no_new_privileges = true;
}

void rlimit_min(std::vector<oci::Rlimit>& rl, const char* type, int resource, uint64_t value) {
  for (auto& r : rl) {
    if (r.type != type) continue;
    r.hard = std::min(r.hard, value);
    r.soft = std::min(r.soft, r.hard);
    return;
  }
  rl.push_back(oci::Rlimit{type, resource, value, value});
}

void apply_rlimits(const Policy& p, oci::Process& proc) {
  if (p.memory && p.memory->address_space) rlimit_min(proc.rlimits, "RLIMIT_AS", RLIMIT_AS, *p.memory->address_space);
  // RLIMIT_NPROC counts the uid's processes on the whole host: only a uid the container has
  // alone makes it a per-container limit.
  bool ephemeral = p.identity.uid && p.identity.uid->ephemeral;
  if (p.pids && ephemeral && p.pids->effective_limit() > 0)
    rlimit_min(proc.rlimits, "RLIMIT_NPROC", RLIMIT_NPROC, uint64_t(p.pids->effective_limit()));
}

// The config's oomScoreAdj, scheduler and ioPriority held to the policy's priority: raised, or
// real time replaced by the fair class, never refused (a Kubernetes Guaranteed pod asks for
// -997), and each change said in the bounds, which create logs as a warning.
void apply_priority(const Priority& pr, oci::Process& proc, Extension& ext) {
  auto held = [&](std::string what) {
    ext.bounds.push_back(Bound{std::move(what), true, kBeforeExecve, kConfigHeld});
  };
  if (proc.oom_score_adj && *proc.oom_score_adj < pr.oom_score_adj_min) {
    held("the config's oomScoreAdj " + std::to_string(*proc.oom_score_adj) + " raised to the policy's " +
         std::to_string(pr.oom_score_adj_min));
    proc.oom_score_adj = pr.oom_score_adj_min;
  }
  if (proc.scheduler) {
    oci::Scheduler& s = *proc.scheduler;
    bool fair = s.policy == "SCHED_OTHER" || s.policy == "SCHED_BATCH" || s.policy == "SCHED_IDLE";
    if (!fair && !pr.realtime) {
      held("the config's scheduler " + s.policy + " replaced by SCHED_OTHER (the policy allows no real time)");
      s = oci::Scheduler{"SCHED_OTHER", s.nice, std::nullopt, {}, std::nullopt, std::nullopt, std::nullopt};
    }
    if (s.nice && *s.nice < pr.nice_min) {
      held("the config's scheduler nice " + std::to_string(*s.nice) + " raised to the policy's " + std::to_string(pr.nice_min));
      s.nice = pr.nice_min;
    }
  }
  if (proc.io_priority && proc.io_priority->io_class == "IOPRIO_CLASS_RT" && !pr.realtime) {
    held("the config's ioPriority IOPRIO_CLASS_RT " + std::to_string(proc.io_priority->priority) +
         " replaced by IOPRIO_CLASS_BE (the policy allows no real time)");
    proc.io_priority->io_class = "IOPRIO_CLASS_BE";
  }
}

void apply_env(const Policy& p, oci::Process& proc) {
  std::erase_if(proc.env, [](const std::string& e) {
    return e.starts_with("SHARNESS_POLICY_ID=") || e.starts_with("SHARNESS_POLICY_HASH=");
  });
  proc.env.push_back("SHARNESS_POLICY_ID=" + p.id);
  proc.env.push_back("SHARNESS_POLICY_HASH=" + p.hash);
}

// ---- namespaces -------------------------------------------------------------------------

Result<void> apply_namespaces(const Policy& p, oci::Config& c, Extension& ext) {
  std::vector<std::string> want = p.namespaces;
  if (p.network && *p.network != Network::host) want.push_back("network");
  for (const auto& type : want) {
    auto it = std::ranges::find_if(c.linux.namespaces, [&](const oci::Namespace& n) { return n.type == type; });
    if (it == c.linux.namespaces.end()) {
      c.linux.namespaces.push_back({type, ""});
    } else if (!it->path.empty()) {
      ext.bounds.push_back(Bound{"join of the " + type + " namespace " + it->path + " replaced by a new one", true,
                                 kBeforeExecve, "a joined namespace is shared with whoever owns it"});
      it->path.clear();
    }
  }
  if (contains(want, "user")) {
    if (ext.ephemeral_uid)
      return fail("policy " + p.id + ": an ephemeral uid cannot be combined with a user namespace");
    if (c.linux.uid_mappings.empty() || c.linux.gid_mappings.empty())
      return fail("policy " + p.id + ": namespaces: a new user namespace needs linux.uidMappings and linux.gidMappings "
                  "in the config");
  }
  return {};
}

// ---- resources --------------------------------------------------------------------------

// The smaller of two limits where <= 0 (or absent) means none.
int64_t limit_min(std::optional<int64_t> config, int64_t policy) {
  return config && *config > 0 ? std::min(*config, policy) : policy;
}

// The devices every OCI runtime grants whatever the config's rules say (runc appends them
// after the config's list; configs from Docker or `runc spec` start with "deny all" and
// count on it).
bool runtime_default(const DeviceInfo& d) {
  for (auto n : {"null", "zero", "full", "random", "urandom", "tty", "console", "ptmx", "pts"})
    if (d.name == n) return true;
  return false;
}

// Does the config grant `access` (one of r w m) on c major:minor? Rules apply in order, the
// last match wins; an empty list restricts nothing (the cgroup starts with everything
// allowed). A wildcard-minor device (pts) is matched only by wildcard-minor rules.
bool config_grants(const std::vector<oci::DeviceRule>& rules, const DeviceInfo& d, char access) {
  if (runtime_default(d)) return true;
  bool allowed = true;
  for (const auto& r : rules) {
    if (r.type != "a" && r.type != "c") continue;
    if (r.major && *r.major >= 0 && *r.major != d.major) continue;
    bool rule_wild_minor = !r.minor || *r.minor < 0;
    if (d.minor < 0 ? !rule_wild_minor : (!rule_wild_minor && *r.minor != d.minor)) continue;
    if (r.access.find(access) == std::string::npos) continue;
    allowed = r.allow;
  }
  return allowed;
}

bool device_matches(const DeviceInfo& d, const oci::Device& node) {
  return node.type == "c" && node.major == d.major && (d.minor < 0 || node.minor == d.minor);
}

void apply_devices(const std::vector<std::string>& names, oci::Config& c, oci::Resources& res, Extension& ext) {
  std::vector<oci::DeviceRule> rules = {oci::DeviceRule{false, "a", std::nullopt, std::nullopt, "rwm"}};
  std::vector<std::string> granted;
  std::vector<const DeviceInfo*> allowed;
  for (const auto& n : names) {
    const DeviceInfo* d = find_device(n);
    if (!d) continue;
    std::string access;
    for (char a : {'r', 'w', 'm'})
      if (config_grants(res.devices, *d, a)) access.push_back(a);
    if (access.empty()) continue;
    std::optional<int64_t> minor = d->minor < 0 ? std::nullopt : std::optional<int64_t>(d->minor);
    rules.push_back(oci::DeviceRule{true, "c", d->major, minor, access});
    granted.push_back(n);
    allowed.push_back(d);
    // The config's denials of single minors under a wildcard we allow still hold.
    if (d->minor < 0)
      for (const auto& r : res.devices)
        if (!r.allow && r.type == "c" && r.major == d->major && r.minor && *r.minor >= 0) rules.push_back(r);
  }
  res.devices = std::move(rules);
  std::erase_if(c.linux.devices, [&](const oci::Device& node) {
    return std::ranges::none_of(allowed, [&](const DeviceInfo* d) { return device_matches(*d, node); });
  });
  std::ranges::sort(granted);
  ext.devices = std::move(granted);
}

void apply_resources(const Policy& p, oci::Config& c, Extension& ext) {
  bool any = (p.memory && p.memory->limit) || p.cpu || (p.pids && p.pids->effective_limit() > 0) || p.devices;
  if (!any) return;
  if (!c.linux.resources) c.linux.resources.emplace();
  oci::Resources& res = *c.linux.resources;
  if (p.memory && p.memory->limit) {
    if (!res.memory) res.memory.emplace();
    int64_t limit = limit_min(res.memory->limit, int64_t(*p.memory->limit));
    // memory.swap is memory+swap: a smaller one caps the memory too. It is left as it is:
    // lowering it below the limit would be invalid, and adding one needs swap accounting.
    limit = limit_min(res.memory->swap, limit);
    res.memory->limit = limit;
    if (res.memory->reservation && *res.memory->reservation > limit) res.memory->reservation = limit;
  }
  if (p.cpu) {
    if (!res.cpu) res.cpu.emplace();
    auto& cpu = *res.cpu;
    uint64_t period = cpu.period.value_or(100000);
    bool config_tighter = cpu.quota && *cpu.quota > 0 && period > 0 &&
                          (unsigned __int128)uint64_t(*cpu.quota) * p.cpu->period <=
                              (unsigned __int128)p.cpu->quota * period;
    if (!config_tighter) {
      cpu.quota = int64_t(p.cpu->quota);
      cpu.period = p.cpu->period;
    }
  }
  if (p.pids && p.pids->effective_limit() > 0) {
    if (!res.pids) res.pids.emplace();
    res.pids->limit = limit_min(res.pids->limit, p.pids->effective_limit());
  }
  if (p.devices) apply_devices(*p.devices, c, res, ext);
}

// ---- mounts -----------------------------------------------------------------------------

std::string trim_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

void replace_at(std::vector<oci::Mount>& mounts, oci::Mount m) {
  std::erase_if(mounts, [&](const oci::Mount& o) { return trim_slash(o.destination) == trim_slash(m.destination); });
  mounts.push_back(std::move(m));
}

void union_into(std::vector<std::string>& into, const std::vector<std::string>& add) {
  for (const auto& s : add)
    if (!contains(into, s)) into.push_back(s);
}

void apply_mounts(const Mounts& pm, oci::Config& c) {
  if (pm.readonly_root) c.root.readonly = true;
  if (pm.binds_readonly) {
    for (auto& m : c.mounts) {
      if (!is_bind(m)) continue;
      std::erase(m.options, "rw");
      if (!contains(m.options, "ro")) m.options.push_back("ro");
    }
  }
  for (const auto& t : pm.tmpfs) {
    oci::Mount m{t.path, "tmpfs", "tmpfs", {"nosuid", "nodev"}, {}, {}};
    if (!t.exec) m.options.push_back("noexec");
    m.options.push_back("mode=1777");  // scratch space for whatever uid the process has
    if (t.size) m.options.push_back("size=" + std::to_string(*t.size));
    replace_at(c.mounts, std::move(m));
  }
  for (const auto& b : pm.readonly_binds)
    replace_at(c.mounts, oci::Mount{b.destination, "bind", b.source, {"rbind", "ro", "nosuid", "nodev"}, {}, {}});
  union_into(c.linux.masked_paths, pm.masked_paths);
  union_into(c.linux.readonly_paths, pm.readonly_paths);
}

}  // namespace

bool Prepared::same(const Prepared& o) const {
  return policy.same_rules(o.policy) && policy.hash == o.policy.hash && allowed == o.allowed && explained == o.explained;
}

Result<Prepared> prepare(Policy p, const HostProbe& host) {
  Prepared pp;
  // Expanded once: the filter and the explanation both read the list.
  if (p.syscalls) pp.allowed = TRY(allowed_syscalls(*p.syscalls));
  pp.explained = explain(p, host, pp.allowed);
  pp.policy = std::move(p);
  return pp;
}

Result<void> apply_to_config(const Policy& p, oci::Config& c, Extension& ext, const HostProbe& host) {
  return apply_prepared(TRY(prepare(p, host)), c, ext, host);
}

Result<void> apply_prepared(const Prepared& pp, oci::Config& c, Extension& ext, const HostProbe& host) {
  const Policy& p = pp.policy;
  ext = Extension{};
  ext.policy_id = p.id;
  ext.policy_hash = p.hash;
  ext.best_effort = p.best_effort;
  ext.wall_clock_seconds = p.wall_clock_seconds;
  ext.deny_write_execute = p.memory && p.memory->deny_write_execute;
  if (p.network) ext.network = network_name(*p.network);
  // Before anything of the policy's own (KMS, edges) is added: these are the client's hooks.
  ext.hooks_from_config = p.hooks_from_config.value_or(true);
  TRYV(refuse_config_hooks(ext, c.hooks));

  if (!c.process) c.process.emplace();
  apply_identity(p.identity, *c.process, ext);
  apply_rlimits(p, *c.process);
  if (p.priority) apply_priority(*p.priority, *c.process, ext);
  TRYV(apply_namespaces(p, c, ext));
  apply_resources(p, c, ext);
  apply_mounts(p.mounts, c);
  apply_exec_allowlist(p, c, host.memfd_noexec);
  ext.landlock = landlock_block(p);
  ext.exec = p.exec;
  ext.seccomp = seccomp_filter(p, pp.allowed);
  apply_env(p, *c.process);
  apply_mesh_env(p.mesh, *c.process);
  if (p.mesh.active()) {
    // A TCP end lives on the container's loopback: an empty namespace leaves lo down.
    bool tcp = (p.mesh.edges && std::ranges::any_of(*p.mesh.edges, [](const Edge& e) { return e.tcp; })) ||
               (p.mesh.accepts && p.mesh.accepts->tcp);
    if (tcp && p.network == Network::none)
      return fail("policy " + p.id + ": tcp edges need \"network\": \"loopback\" (lo is down in an empty namespace)");
    ext.mesh = p.mesh;
  }
  if (p.secrets) {
    // The KMS answers only this container's certificate, which needs a role.
    if (!p.mesh.active()) return fail("policy " + p.id + ": secrets needs a \"role\" (the KMS answers only the container's certificate)");
    ext.secrets = p.secrets;
    // Where the workload finds its KMS: the same path in every container. The hooks and mounts
    // name per-container host paths, added once the id is known (kms/host/plan: create, `policy map`).
    std::erase_if(c.process->env, [](const std::string& e) { return e.starts_with("SHARNESS_KMS_SOCKET="); });
    c.process->env.push_back(kms_socket_env());
  }
  if (p.egress) {  // the door itself is the egress sidecar's (egress/plan.hpp)
    ext.egress = p.egress;
    apply_egress_env(*p.egress, *c.process);
  }
  c.annotations[kAnnotationId] = p.id;
  c.annotations[kAnnotationHash] = p.hash;

  auto bounds = pp.explained;
  bounds.insert(bounds.end(), ext.bounds.begin(), ext.bounds.end());  // the join replacements
  ext.bounds = std::move(bounds);
  return {};
}

}  // namespace sh::policy
