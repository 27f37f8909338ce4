// looser_sections(): one rule per field, the same order as docs/policy.md's composition table.
#include "spec-mapping/no_looser.hpp"

#include <algorithm>

#include "oci/landlock.hpp"
#include "spec-mapping/syscall_groups.hpp"

namespace sh::policy {
namespace {

template <class T>
bool has(const std::vector<T>& v, const T& x) {
  return std::ranges::find(v, x) != v.end();
}

std::string list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (const auto& s : v) out += (out.size() > 1 ? ", " : "") + s;
  return out + "]";
}

std::string ports_text(const std::vector<uint16_t>& v) {
  std::vector<std::string> s;
  for (auto p : v) s.push_back(std::to_string(p));
  return list(s);
}

// What is in `v` and not in `of`.
template <class T>
std::vector<T> extra(const std::vector<T>& v, const std::vector<T>& of) {
  std::vector<T> out;
  for (const auto& x : v)
    if (!has(of, x)) out.push_back(x);
  return out;
}

std::string uid_text(const std::optional<Uid>& u) {
  if (!u) return "the config's";
  return u->ephemeral ? "ephemeral" : std::to_string(u->value);
}

// The gid a side means: its own, else its uid's (a throwaway uid brings a throwaway gid).
std::optional<Uid> effective_gid(const Identity& id) {
  if (id.gid) return Uid{false, *id.gid};
  return id.uid;
}

// Does the floor's id allow the client's? A throwaway id allows only a throwaway one; a fixed
// one that id or a throwaway one.
bool id_within(const Uid& client, const Uid& floor) {
  return client.ephemeral || (!floor.ephemeral && client.value == floor.value);
}

std::string cpu_text(const Cpu& c) { return std::to_string(c.quota) + " us per " + std::to_string(c.period) + " us"; }

std::string edge_text(const Edge& e) {
  return e.to + " over " + (e.tcp ? "tcp port " + std::to_string(e.port) : std::string("unix"));
}

std::string edges_text(const std::optional<std::vector<Edge>>& v) {
  if (!v || v->empty()) return "none";
  std::vector<std::string> s;
  for (const auto& e : *v) s.push_back(edge_text(e));
  return list(s);
}

std::string accepts_text(const std::optional<Accepts>& a) {
  if (!a) return "none";
  return list(a->roles) + " over " + (a->tcp ? "tcp port " + std::to_string(a->port) : std::string("unix"));
}

bool beneath(const std::string& dir, const std::string& path) {
  return dir == path || dir == "/" || (path.starts_with(dir) && path[dir.size()] == '/');
}

std::string rights_text(uint64_t access) { return list(oci::landlock_names(oci::LandlockKind::fs, access)); }

const uint64_t kExecute = oci::find_landlock_right(oci::LandlockKind::fs, "execute")->bit;

struct Checker {
  std::vector<Looser> out;
  void add(std::string section, std::string client, std::string floor) {
    out.push_back(Looser{std::move(section), std::move(client), std::move(floor)});
  }

  // A limit both state: the client's must not be above the floor's.
  template <class T, class F>
  void at_most(const char* section, const std::optional<T>& c, const std::optional<T>& f, F text) {
    if (c && f && *c > *f) add(section, text(*c), text(*f));
  }

  void identity(const Identity& c, const Identity& f) {
    if (c.uid && f.uid && !id_within(*c.uid, *f.uid)) add("identity.uid", uid_text(c.uid), uid_text(f.uid));
    auto fg = effective_gid(f);
    if (c.gid && fg && !id_within(Uid{false, *c.gid}, *fg))
      add("identity.gid", std::to_string(*c.gid), fg->ephemeral ? "ephemeral (with the uid)" : std::to_string(fg->value));
    if (c.capabilities && f.capabilities) {
      auto more = extra(*c.capabilities, *f.capabilities);
      if (!more.empty()) add("identity.capabilities", list(more), list(*f.capabilities));
    }
  }

  void limits(const Policy& c, const Policy& f) {
    at_most("network", c.network, f.network, [](Network n) { return std::string(network_name(n)); });
    if (c.memory && f.memory) {
      at_most("memory.limit", c.memory->limit, f.memory->limit, format_size);
      at_most("memory.addressSpace", c.memory->address_space, f.memory->address_space, format_size);
    }
    if (c.cpu && f.cpu &&
        (unsigned __int128)c.cpu->quota * f.cpu->period > (unsigned __int128)f.cpu->quota * c.cpu->period)
      add("cpu", cpu_text(*c.cpu), cpu_text(*f.cpu));
    if (c.pids && f.pids && f.pids->effective_limit() > 0 &&
        (c.pids->effective_limit() == 0 || c.pids->effective_limit() > f.pids->effective_limit()))
      add("pids.limit", c.pids->effective_limit() ? std::to_string(c.pids->effective_limit()) : "none",
          f.pids->fork ? std::to_string(f.pids->effective_limit()) : "1 (fork: false)");
    at_most("wallClock.seconds", c.wall_clock_seconds, f.wall_clock_seconds,
            [](uint64_t s) { return std::to_string(s) + " s"; });
    if (c.priority && f.priority) {
      const Priority &cp = *c.priority, &fp = *f.priority;
      if (cp.oom_score_adj_min < fp.oom_score_adj_min)
        add("priority.oomScoreAdjMin", std::to_string(cp.oom_score_adj_min), std::to_string(fp.oom_score_adj_min));
      if (cp.nice_min < fp.nice_min) add("priority.niceMin", std::to_string(cp.nice_min), std::to_string(fp.nice_min));
      if (cp.realtime && !fp.realtime) add("priority.realtime", "true", "false");
    }
  }

  void syscalls(const Syscalls& c, const Syscalls& f) {
    if (c.default_action < f.default_action)
      add("syscalls.defaultAction", action_name(c.default_action), action_name(f.default_action));
    if (c.allow == f.allow) return;
    // Names were checked at parse: expansion cannot fail here.
    auto ec = expand(c.allow).value_or(std::set<std::string>{}), ef = expand(f.allow).value_or(std::set<std::string>{});
    std::vector<std::string> more;
    std::ranges::set_difference(ec, ef, std::back_inserter(more));
    if (!more.empty())
      add("syscalls.allow", list(more), "an allowlist of " + std::to_string(ef.size()) + " syscalls without them");
  }

  void mounts(const Mounts& c, const Mounts& f) {
    std::vector<std::string> fpaths;
    for (const auto& t : f.tmpfs) fpaths.push_back(t.path + (t.size ? " " + format_size(*t.size) : "") + (t.exec ? " exec" : ""));
    for (const auto& t : c.tmpfs) {
      auto it = std::ranges::find(f.tmpfs, t.path, &Tmpfs::path);
      bool ok = it != f.tmpfs.end() && (!it->size || (t.size && *t.size <= *it->size)) && (!t.exec || it->exec);
      if (!ok)
        add("mounts.tmpfs " + t.path, (t.size ? format_size(*t.size) : std::string("no size limit")) + (t.exec ? ", exec" : ""),
            fpaths.empty() ? "none" : list(fpaths));
    }
    for (const auto& b : c.readonly_binds)
      if (!has(f.readonly_binds, b)) {
        std::vector<std::string> fb;
        for (const auto& x : f.readonly_binds) fb.push_back(x.source + " at " + x.destination);
        add("mounts.readonlyBinds", b.source + " at " + b.destination, fb.empty() ? "none" : list(fb));
      }
  }

  // Every right the client grants at a path must come from some floor rule above it (Landlock
  // adds up the rights of every rule on the way down).
  void files(const Policy& c, const Policy& f) {
    if (c.files && f.files)
      for (const auto& r : *c.files) {
        uint64_t granted = 0;
        for (const auto& fr : *f.files)
          if (beneath(fr.path, r.path)) granted |= fr.access;
        if (uint64_t more = r.access & ~granted)
          add("files " + r.path, rights_text(more), granted ? rights_text(granted) : "no right there");
      }
    // With an allowlist on the floor, execute comes from its pins only.
    if (c.files && f.exec && !f.files)
      for (const auto& r : *c.files)
        if (r.access & kExecute) add("files " + r.path, "[execute]", "execute only on its exec pins");
  }

  void ports(const Ports& c, const Ports& f) {
    auto bind = extra(c.bind, f.bind), connect = extra(c.connect, f.connect);
    if (!bind.empty()) add("ports.bind", ports_text(bind), ports_text(f.bind));
    if (!connect.empty()) add("ports.connect", ports_text(connect), ports_text(f.connect));
  }

  void exec(const Policy& c, const Policy& f) {
    if (!c.exec) return;
    for (const auto& pin : *c.exec) {
      bool ok = f.exec ? has(*f.exec, pin)
              : f.files ? std::ranges::any_of(*f.files, [&](const FileRule& r) {
                            return (r.access & kExecute) && beneath(r.path, pin.path);
                          })
                        : true;
      if (!ok)
        add("exec " + pin.path, "sha256 " + pin.sha256.substr(0, 12) + "…",
            f.exec ? "not one of its " + std::to_string(f.exec->size()) + " pins" : "no execute right there");
    }
  }

  // The grant sections: none on the floor is none, unless the operator lets this policy add it.
  void grants(const Policy* f, const Policy& c, const Grants& add_ok) {
    const Mesh none;
    const Mesh& fm = f ? f->mesh : none;
    const Mesh& cm = c.mesh;
    if (cm.role && (fm.role ? *cm.role != *fm.role : !add_ok.mesh.role))
      add("role", "\"" + *cm.role + "\"", fm.role ? "\"" + *fm.role + "\"" : "none");
    if (cm.edges && !cm.edges->empty()) {
      if (!fm.edges && !add_ok.mesh.edges) add("edges", edges_text(cm.edges), "none");
      if (fm.edges) {
        auto more = extra(*cm.edges, *fm.edges);
        if (!more.empty()) add("edges", edges_text(more), edges_text(fm.edges));
      }
    }
    if (cm.accepts) {
      bool ok = fm.accepts ? cm.accepts->tcp == fm.accepts->tcp && cm.accepts->port == fm.accepts->port &&
                                 extra(cm.accepts->roles, fm.accepts->roles).empty()
                           : add_ok.mesh.accepts;
      if (!ok) add("accepts", accepts_text(cm.accepts), accepts_text(fm.accepts));
    }
    if (c.secrets) {
      const auto& cs = *c.secrets;
      if (!f || !f->secrets) {
        if (!add_ok.secrets) add("secrets", "vaults " + list(cs.vaults), "none");
      } else {
        const auto& fs = *f->secrets;
        for (auto [name, cl, fl] : {std::tuple{"secrets.vaults", &cs.vaults, &fs.vaults},
                                    {"secrets.hosts", &cs.hosts, &fs.hosts},
                                    {"secrets.operations", &cs.operations, &fs.operations}})
          if (auto more = extra(*cl, *fl); !more.empty()) add(name, list(more), list(*fl));
        if (cs.ttl > fs.ttl) add("secrets.ttl", std::to_string(cs.ttl) + " s", std::to_string(fs.ttl) + " s");
        if (cs.allow_weaker_memory && !fs.allow_weaker_memory) add("secrets.allowWeakerMemory", "true", "false");
        if (cs.workload_may_ask && !fs.workload_may_ask) add("secrets.workloadMayAsk", "true", "false");
      }
    }
    if (c.egress) egress(f && f->egress ? &*f->egress : nullptr, *c.egress, add_ok.egress);
  }

  // Each client rule must lie within one floor rule, its credential too: a credential the
  // floor does not tie to that host is named on its own.
  void egress(const EgressPolicy* f, const EgressPolicy& c, bool may_add) {
    if (!f) {
      if (!may_add && !c.rules.empty()) add("egress", describe_rule(c.rules[0]) + (c.rules.size() > 1 ? ", …" : ""), "none");
      return;
    }
    std::vector<std::string> frules;
    for (const auto& r : f->rules) frules.push_back(describe_rule(r));
    for (const auto& r : c.rules) {
      if (std::ranges::any_of(f->rules, [&](const EgressRule& o) { return rule_within(r, o); })) continue;
      EgressRule bare = r;
      bare.credential.reset();
      if (r.credential && std::ranges::any_of(f->rules, [&](const EgressRule& o) { return rule_within(bare, o); }))
        add("egress.rules credential", "vault " + r.credential->vault + " for " + r.host,
            "no rule of the floor ties that credential to those requests");
      else
        add("egress.rules", describe_rule(r), frules.empty() ? "none" : list(frules));
    }
    auto count = [](uint64_t n) { return std::to_string(n); };
    at_most("egress.budgets.requests", c.budgets.requests, f->budgets.requests, count);
    at_most("egress.budgets.bytes", c.budgets.bytes, f->budgets.bytes, format_size);
    at_most("egress.budgets.requestsPerSecond", c.budgets.requests_per_second, f->budgets.requests_per_second, count);
  }
};

}  // namespace

std::vector<Looser> looser_sections(const Policy* floor, const Policy& client, const Grants& may_add) {
  Checker k;
  if (floor) {
    const Policy& f = *floor;
    if (client.best_effort && !f.best_effort) k.add("bestEffort", "true", "false");
    k.identity(client.identity, f.identity);
    k.limits(client, f);
    if (client.syscalls && f.syscalls) k.syscalls(*client.syscalls, *f.syscalls);
    if (client.devices && f.devices) {
      auto more = extra(*client.devices, *f.devices);
      if (!more.empty()) k.add("devices", list(more), list(*f.devices));
    }
    k.mounts(client.mounts, f.mounts);
    k.files(client, f);
    if (client.ports && f.ports) k.ports(*client.ports, *f.ports);
    k.exec(client, f);
    // namespaces, maskedPaths, readonlyPaths and scope union; noNewPrivileges, readonlyRoot and
    // bindsReadOnly OR: whatever the client states there only adds to the floor's.
  }
  k.grants(floor, client, may_add);
  return k.out;
}

std::string describe(const Looser& l) { return l.section + " " + l.client + " (the floor's: " + l.floor + ")"; }

}  // namespace sh::policy
