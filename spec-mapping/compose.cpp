// intersect(): policy x policy. Every rule says how "allows less" is computed for one field.
#include "spec-mapping/compose.hpp"

#include <algorithm>
#include <iterator>

#include "oci/landlock.hpp"
#include "spec-mapping/canonical.hpp"
#include "spec-mapping/syscall_groups.hpp"

namespace sh::policy {
namespace {

// Absent is "no limit": the minimum of the present ones.
template <class T>
std::optional<T> min_opt(const std::optional<T>& a, const std::optional<T>& b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

// Absent is "everything": the intersection of the present ones (sorted, unique).
std::optional<std::vector<std::string>> meet(const std::optional<std::vector<std::string>>& a,
                                             const std::optional<std::vector<std::string>>& b) {
  if (!a) return b;
  if (!b) return a;
  std::vector<std::string> out;
  for (const auto& x : *a)
    if (std::ranges::find(*b, x) != b->end() && std::ranges::find(out, x) == out.end()) out.push_back(x);
  std::ranges::sort(out);
  return out;
}

std::vector<std::string> join(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out = a;
  for (const auto& x : b)
    if (std::ranges::find(out, x) == out.end()) out.push_back(x);
  return out;
}

// Two fixed ids that differ cannot both hold: a throwaway one is stricter than either.
std::optional<Uid> meet_uid(const std::optional<Uid>& a, const std::optional<Uid>& b) {
  if (!a) return b;
  if (!b) return a;
  if (a->ephemeral || b->ephemeral || a->value != b->value) return Uid{true, 0};
  return a;
}

// The gid a side means: its own, else its uid's (a throwaway uid brings a throwaway gid).
std::optional<Uid> effective_gid(const Identity& id) {
  if (id.gid) return Uid{false, *id.gid};
  return id.uid;
}

Identity meet_identity(const Identity& a, const Identity& b) {
  Identity out;
  out.uid = meet_uid(a.uid, b.uid);
  // The gids meet as the uids do, each side's gid being the one it means: a floor with a
  // throwaway uid (and so a throwaway gid) keeps its fresh gid against a client's gid 0.
  auto gid = meet_uid(effective_gid(a), effective_gid(b));
  if (gid && gid->ephemeral) {
    // A fresh gid follows a fresh uid (the runtime has no other way to pick one).
    out.uid = Uid{true, 0};
  } else if (gid && (a.gid || b.gid)) {
    out.gid = gid->value;
  }
  out.capabilities = meet(a.capabilities, b.capabilities);
  out.no_new_privileges = a.no_new_privileges || b.no_new_privileges;
  return out;
}

std::optional<Network> meet_network(const std::optional<Network>& a, const std::optional<Network>& b) {
  return min_opt(a, b);  // the enum is ordered none < loopback < host
}

std::optional<Memory> meet_memory(const std::optional<Memory>& a, const std::optional<Memory>& b) {
  if (!a || !b) return a ? a : b;
  return Memory{min_opt(a->limit, b->limit), min_opt(a->address_space, b->address_space),
                a->deny_write_execute || b->deny_write_execute};
}

// The smaller share of a CPU: compare quota/period as cross products (no rounding).
std::optional<Cpu> meet_cpu(const std::optional<Cpu>& a, const std::optional<Cpu>& b) {
  if (!a || !b) return a ? a : b;
  unsigned __int128 lhs = (unsigned __int128)a->quota * b->period, rhs = (unsigned __int128)b->quota * a->period;
  return lhs <= rhs ? a : b;
}

std::optional<Pids> meet_pids(const std::optional<Pids>& a, const std::optional<Pids>& b) {
  if (!a || !b) return a ? a : b;
  Pids out;
  out.fork = a->fork && b->fork;
  out.limit = out.fork ? min_opt(a->limit, b->limit) : std::optional<int64_t>(1);
  return out;
}

std::optional<Syscalls> meet_syscalls(const std::optional<Syscalls>& a, const std::optional<Syscalls>& b) {
  if (!a || !b) return a ? a : b;
  Syscalls out;
  out.default_action = std::max(a->default_action, b->default_action);
  if (a->allow == b->allow) {
    out.allow = a->allow;
    return out;
  }
  // Names were checked at parse: expansion cannot fail here; an unknown group yields nothing.
  auto ea = expand(a->allow).value_or(std::set<std::string>{});
  auto eb = expand(b->allow).value_or(std::set<std::string>{});
  std::ranges::set_intersection(ea, eb, std::back_inserter(out.allow));
  return out;
}

// tmpfs both grant, at the smaller size; exec only if both allow it.
std::vector<Tmpfs> meet_tmpfs(const std::vector<Tmpfs>& a, const std::vector<Tmpfs>& b) {
  std::vector<Tmpfs> out;
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.path == y.path) out.push_back(Tmpfs{x.path, min_opt(x.size, y.size), x.exec && y.exec});
  return out;
}

std::vector<Bind> meet_binds(const std::vector<Bind>& a, const std::vector<Bind>& b) {
  std::vector<Bind> out;
  for (const auto& x : a)
    if (std::ranges::find(b, x) != b.end()) out.push_back(x);
  return out;
}

Mounts meet_mounts(const Mounts& a, const Mounts& b) {
  Mounts out;
  out.readonly_root = a.readonly_root || b.readonly_root;
  out.binds_readonly = a.binds_readonly || b.binds_readonly;
  out.tmpfs = meet_tmpfs(a.tmpfs, b.tmpfs);
  out.readonly_binds = meet_binds(a.readonly_binds, b.readonly_binds);
  out.masked_paths = join(a.masked_paths, b.masked_paths);
  out.readonly_paths = join(a.readonly_paths, b.readonly_paths);
  return out;
}

// ---- Landlock ---------------------------------------------------------------------------
// Paths are compared lexically. That is exact because the runtime resolves a policy's rule
// paths without following any symlink (docs/landlock.md): lexical "beneath" is then the
// kernel's "beneath".

bool beneath(const std::string& dir, const std::string& path) {
  return dir == path || dir == "/" || (path.starts_with(dir) && path[dir.size()] == '/');
}

// A right at a place is allowed by both iff some rule of each grants it on an ancestor: the
// meet of "beneath a" and "beneath b" is "beneath the deeper one" when one holds the other.
std::optional<std::vector<FileRule>> meet_files(const std::optional<std::vector<FileRule>>& a,
                                                const std::optional<std::vector<FileRule>>& b) {
  if (!a || !b) return a ? a : b;
  std::vector<FileRule> out;
  auto add = [&](const std::string& path, uint64_t access) {
    if (!access) return;
    for (auto& r : out)
      if (r.path == path) return void(r.access |= access);
    out.push_back(FileRule{path, access});
  };
  for (const auto& x : *a)
    for (const auto& y : *b) {
      if (beneath(x.path, y.path)) add(y.path, x.access & y.access);
      else if (beneath(y.path, x.path)) add(x.path, x.access & y.access);
    }
  std::ranges::sort(out, {}, &FileRule::path);
  return out;
}

std::vector<uint16_t> meet_ports(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
  std::vector<uint16_t> out;
  std::ranges::set_intersection(a, b, std::back_inserter(out));
  return out;
}

std::optional<Ports> meet_ports(const std::optional<Ports>& a, const std::optional<Ports>& b) {
  if (!a || !b) return a ? a : b;
  return Ports{meet_ports(a->bind, b->bind), meet_ports(a->connect, b->connect)};
}

// Scopes restrict: the union.
std::optional<std::vector<std::string>> join_scope(const std::optional<std::vector<std::string>>& a,
                                                   const std::optional<std::vector<std::string>>& b) {
  if (!a || !b) return a ? a : b;
  auto out = join(*a, *b);
  std::ranges::sort(out);
  return out;
}

// The higher floor of each, real time only if both allow it; absent on one side: the other's.
std::optional<Priority> meet_priority(const std::optional<Priority>& a, const std::optional<Priority>& b) {
  if (!a || !b) return a ? a : b;
  return Priority{std::max(a->oom_score_adj_min, b->oom_score_adj_min), std::max(a->nice_min, b->nice_min),
                  a->realtime && b->realtime};
}

const uint64_t kExecute = oci::find_landlock_right(oci::LandlockKind::fs, "execute")->bit;

// Does this side let `path` be executed? Its allowlist must pin the same content, and its
// files section (when it has no allowlist of its own) must grant execute above it.
bool side_allows(const Policy& p, const Pin& pin) {
  if (p.exec) return std::ranges::find(*p.exec, pin) != p.exec->end();
  if (!p.files) return true;
  return std::ranges::any_of(*p.files, [&](const FileRule& r) { return (r.access & kExecute) && beneath(r.path, pin.path); });
}

// The pins both sides allow. With an allowlist in the result, execute leaves the files
// rules (it comes from the pins only), so a pin must be allowed by both sides as a whole.
void meet_exec(const Policy& a, const Policy& b, Policy& out) {
  if (!a.exec && !b.exec) return;
  std::vector<Pin> pins;
  for (const Policy* side : {&a, &b})
    if (side->exec)
      for (const auto& pin : *side->exec)
        if (side_allows(a, pin) && side_allows(b, pin) && std::ranges::find(pins, pin) == pins.end())
          pins.push_back(pin);
  std::ranges::sort(pins, {}, &Pin::path);
  out.exec = std::move(pins);
  if (out.files) {
    for (auto& r : *out.files) r.access &= ~kExecute;
    std::erase_if(*out.files, [](const FileRule& r) { return r.access == 0; });
  }
}

}  // namespace

Policy intersect(const Policy& floor, const Policy& tighter, const Grants& may_add) {
  // The same document (a client naming the floor itself): the floor, with its own id and hash,
  // which is exactly what is enforced.
  if (!floor.hash.empty() && floor.hash == tighter.hash) return floor;
  Policy out;
  // Always both ids, even when they are the same: a client's file that carries the floor's id
  // must not make a composition look like the floor.
  out.id = floor.id + "+" + tighter.id;
  out.version = kFormatVersion;
  out.description = "intersection of " + floor.id + " and " + tighter.id;
  out.best_effort = floor.best_effort && tighter.best_effort;
  out.identity = meet_identity(floor.identity, tighter.identity);
  out.namespaces = join(floor.namespaces, tighter.namespaces);
  std::ranges::sort(out.namespaces);
  out.network = meet_network(floor.network, tighter.network);
  out.memory = meet_memory(floor.memory, tighter.memory);
  out.cpu = meet_cpu(floor.cpu, tighter.cpu);
  out.pids = meet_pids(floor.pids, tighter.pids);
  out.wall_clock_seconds = min_opt(floor.wall_clock_seconds, tighter.wall_clock_seconds);
  out.priority = meet_priority(floor.priority, tighter.priority);
  // Config hooks: false (refused) on either side wins; absent on both stays absent.
  if (floor.hooks_from_config || tighter.hooks_from_config)
    out.hooks_from_config = floor.hooks_from_config.value_or(true) && tighter.hooks_from_config.value_or(true);
  out.syscalls = meet_syscalls(floor.syscalls, tighter.syscalls);
  out.devices = meet(floor.devices, tighter.devices);
  out.mounts = meet_mounts(floor.mounts, tighter.mounts);
  out.mesh = meet_mesh(floor.mesh, tighter.mesh, may_add.mesh);
  out.files = meet_files(floor.files, tighter.files);
  out.ports = meet_ports(floor.ports, tighter.ports);
  out.scope = join_scope(floor.scope, tighter.scope);
  meet_exec(floor, tighter, out);
  // A KMS grants keys from the operator's vault: absent on the floor is none (unless the
  // operator lets this policy add it), absent on the client is the floor's; both: the lists
  // intersected, the smaller ttl. An empty list leaves nothing to ask for, and create refuses it.
  if (floor.secrets && tighter.secrets) out.secrets = intersect_secrets(*floor.secrets, *tighter.secrets);
  else if (floor.secrets) out.secrets = floor.secrets;
  else if (may_add.secrets) out.secrets = tighter.secrets;
  // The door reaches out for the container, a grant as secrets is (egress.hpp has the rule
  // meet). No way out at all (network "none" on a side, or no rule that both allow) is no
  // door: lo alone is exactly what a door with no rule would enforce.
  if (floor.egress && tighter.egress) out.egress = intersect_egress(*floor.egress, *tighter.egress);
  else if (floor.egress) out.egress = floor.egress;
  else if (may_add.egress) out.egress = tighter.egress;
  if (out.network == Network::none || (out.egress && out.egress->rules.empty())) out.egress.reset();
  // Generated JSON always canonicalizes; an empty hash would only mean OpenSSL failed, and
  // the callers refuse it (runtime_config's composition, load_policies).
  auto canon = canonicalize(policy_to_json(out), "composed policy");
  out.hash = canon ? sha256_hex(*canon).value_or("") : "";
  return out;
}

}  // namespace sh::policy
