#include "spec-mapping/landlock_map.hpp"

#include "spec-mapping/egress_map.hpp"
#include "spec-mapping/landlock_standin.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace sh::policy {
namespace {

using oci::LandlockKind;

uint64_t bit(LandlockKind k, std::string_view name) { return oci::find_landlock_right(k, name)->bit; }

uint64_t all_fs_rights() {
  uint64_t m = 0;
  for (const auto& r : oci::landlock_rights())
    if (r.kind == LandlockKind::fs) m |= r.bit;
  return m;
}

bool has(const std::vector<std::string>& v, std::string_view s) { return std::ranges::find(v, s) != v.end(); }

}  // namespace

// The mesh already grants these ends; without them a ports section would cut the edges.
Ports ports_with_edges(const Policy& p) {
  if (!p.ports) return {};
  std::vector<uint16_t> bind = p.ports->bind, connect = p.ports->connect;
  if (p.mesh.active()) {
    if (p.mesh.edges)
      for (const auto& e : *p.mesh.edges)
        if (e.tcp) connect.push_back(e.port);
    if (p.mesh.accepts && p.mesh.accepts->tcp) bind.push_back(p.mesh.accepts->port);
  }
  if (p.egress) connect.push_back(kEgressProxyPort);  // the door, on the container's lo
  for (auto* v : {&bind, &connect}) {
    std::ranges::sort(*v);
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return {bind, connect};
}

std::optional<oci::LandlockConfig> landlock_block(const Policy& p) {
  if (!p.files && !p.ports && !p.scope && !p.exec) return std::nullopt;
  oci::LandlockConfig c;
  c.disable_best_effort = !p.best_effort;
  c.canonical_paths = true;  // compose.cpp compares paths lexically
  if (p.files) {
    c.handled_fs = all_fs_rights();
    for (const auto& r : *p.files) c.path_beneath.push_back(oci::LandlockPathRule{r.access, {r.path}});
    // The egress door's CA, which its sidecar binds there: every TLS client through the door reads it.
    if (p.egress)
      c.path_beneath.push_back(oci::LandlockPathRule{bit(LandlockKind::fs, "read_file") | bit(LandlockKind::fs, "read_dir"),
                                                     {kEgressTrustDir}});
  }
  if (p.exec) {
    const uint64_t execute = bit(LandlockKind::fs, "execute"), read = bit(LandlockKind::fs, "read_file");
    c.handled_fs |= execute;
    oci::LandlockPathRule pins{execute | (c.handled_fs & read), {}};
    for (const auto& pin : *p.exec) pins.paths.push_back(pin.path);
    if (!pins.paths.empty()) c.path_beneath.push_back(std::move(pins));
  }
  if (p.ports) {
    c.handled_net = bit(LandlockKind::net, "bind_tcp") | bit(LandlockKind::net, "connect_tcp");
    auto [bind, connect] = ports_with_edges(p);
    if (!bind.empty()) c.net_port.push_back(oci::LandlockPortRule{bit(LandlockKind::net, "bind_tcp"), bind});
    if (!connect.empty()) c.net_port.push_back(oci::LandlockPortRule{bit(LandlockKind::net, "connect_tcp"), connect});
  }
  if (p.scope)
    for (const auto& s : *p.scope) c.scoped |= bit(LandlockKind::scope, s);
  // A scope section that is empty ("scope": []) restricts nothing; Landlock refuses an empty
  // ruleset, and a block that handles nothing would be one.
  if (!c.handled_fs && !c.handled_net && !c.scoped) return std::nullopt;
  for (const auto& r : oci::landlock_rights()) {
    uint64_t asked = r.kind == LandlockKind::fs ? c.handled_fs : r.kind == LandlockKind::net ? c.handled_net : c.scoped;
    if (!(asked & r.bit)) continue;
    if (auto s = stand_in(p, r.kind, r.name)) c.stand_ins.push_back(oci::LandlockStandIn{r.kind, r.bit, s->by});
  }
  return c;
}

void apply_exec_allowlist(const Policy& p, oci::Config& c, bool memfd_noexec) {
  if (!p.exec) return;
  c.root.readonly = true;
  for (auto& m : c.mounts)
    if (!has(m.options, "ro") && !has(m.options, "noexec")) {
      std::erase(m.options, "exec");
      m.options.push_back("noexec");
    }
  auto pid = std::ranges::find_if(c.linux.namespaces, [](const oci::Namespace& n) { return n.type == "pid"; });
  if (pid == c.linux.namespaces.end()) c.linux.namespaces.push_back({"pid", ""});
  else pid->path.clear();  // the sysctl below must not land in a pid namespace shared with others
  // Before Linux 6.3 there is no such sysctl: explain says whether seccomp stands in for it
  // (no memfd_create in the allowlist) or the policy is refused.
  if (memfd_noexec) c.linux.sysctl.insert_or_assign(std::string("vm.memfd_noexec"), std::string(1, '2'));
}

}  // namespace sh::policy
