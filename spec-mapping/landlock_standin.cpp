#include "spec-mapping/landlock_standin.hpp"

#include <algorithm>

#include "spec-mapping/landlock_map.hpp"

namespace sh::policy {
namespace {

using oci::LandlockKind;

bool has(const std::vector<std::string>& v, std::string_view s) { return std::ranges::find(v, s) != v.end(); }

// A new network namespace: network "none" or "loopback" (apply replaces a join with a new one).
bool new_netns(const Policy& p) { return (p.network && *p.network != Network::host) || has(p.namespaces, "network"); }

// An edge proxy enters the container's network namespace for a TCP end of the mesh.
bool mesh_tcp(const Policy& p) {
  if (!p.mesh.active()) return false;
  if (p.mesh.edges && std::ranges::any_of(*p.mesh.edges, [](const Edge& e) { return e.tcp; })) return true;
  return p.mesh.accepts && p.mesh.accepts->tcp;
}

// Devices whose ioctls change nothing without CAP_SYS_ADMIN (drivers/char/mem.c has none for
// null, zero, full; drivers/char/random.c's RNDADDENTROPY and the like ask CAP_SYS_ADMIN).
bool inert_devices(const std::vector<std::string>& devices) {
  return std::ranges::all_of(devices, [](const std::string& d) {
    return d == "null" || d == "zero" || d == "full" || d == "random" || d == "urandom";
  });
}

}  // namespace

std::optional<StandIn> stand_in(const Policy& p, LandlockKind kind, std::string_view right) {
  if (kind == LandlockKind::net && p.network == Network::none)
    return StandIn{"the empty network namespace",
                   "network \"none\": lo is down and nothing else is there, so no port can be reached or bound "
                   "for anyone outside",
                   StandInNeeds::network_ns};
  if (kind == LandlockKind::scope && right == "abstract_unix_socket" && new_netns(p) && !mesh_tcp(p))
    return StandIn{"the network namespace",
                   "abstract UNIX socket names are per network namespace, and this one is the container's own",
                   StandInNeeds::network_ns};
  if (kind == LandlockKind::scope && right == "signal" && (has(p.namespaces, "pid") || p.exec))
    return StandIn{"the pid namespace", "no process outside it has a pid the workload can name",
                   StandInNeeds::pid_ns};
  if (kind == LandlockKind::fs && right == "truncate" && p.mounts.readonly_root && p.mounts.binds_readonly &&
      p.identity.uid && p.identity.uid->ephemeral)
    return StandIn{"the read-only root and binds",
                   "the root and every bind mount are read-only (EROFS) and the throwaway uid owns no file, so "
                   "what can be truncated lies on the container's own tmpfs mounts",
                   StandInNeeds::mount_ns};
  if (kind == LandlockKind::fs && right == "ioctl_dev" && p.devices && inert_devices(*p.devices) &&
      p.identity.capabilities && p.identity.capabilities->empty())
    return StandIn{"the devices cgroup",
                   "only " + [&] {
                     std::string s;
                     for (const auto& d : *p.devices) s += (s.empty() ? "" : ", ") + d;
                     return s.empty() ? std::string("no device") : s;
                   }() + " can be opened, and their ioctls change nothing without CAP_SYS_ADMIN, which is not kept",
                   StandInNeeds::devices_cgroup};
  return std::nullopt;
}

std::vector<Shortfall> landlock_shortfall(const Policy& p, int abi) {
  std::vector<Shortfall> out;
  auto block = landlock_block(p);
  if (!block) return out;
  for (const auto& r : oci::landlock_rights()) {
    uint64_t asked = r.kind == LandlockKind::fs ? block->handled_fs : r.kind == LandlockKind::net ? block->handled_net
                                                                                                 : block->scoped;
    if (!(asked & r.bit) || r.abi <= abi) continue;
    out.push_back(Shortfall{r.kind, std::string(r.name), r.abi, stand_in(p, r.kind, r.name)});
  }
  return out;
}

std::vector<oci::LandlockStandIn> landlock_stand_ins(const Policy& p) {
  auto block = landlock_block(p);
  return block ? block->stand_ins : std::vector<oci::LandlockStandIn>{};
}

std::string needs_text(const Shortfall& s, int host_abi) {
  std::string linux(oci::landlock_abi_linux(s.abi));
  return "landlock " + std::string(oci::landlock_kind_noun(s.kind)) + " " + s.right + " needs Landlock ABI " +
         std::to_string(s.abi) + (linux.empty() ? "" : " (Linux " + linux + ")") + "; this kernel has " +
         (host_abi > 0 ? "ABI " + std::to_string(host_abi) : std::string("no Landlock"));
}

std::string stood_in_text(const Shortfall& s) {
  return "landlock " + std::string(oci::landlock_kind_noun(s.kind)) + " " + s.right + " (ABI " +
         std::to_string(s.abi) + "): stood in for by " + (s.stood_in ? s.stood_in->by : std::string("nothing"));
}

}  // namespace sh::policy
