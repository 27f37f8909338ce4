#include "spec-mapping/explain.hpp"

#include <cstdio>
#include <set>
#include <string_view>

#include "base/text.hpp"
#include "spec-mapping/landlock_map.hpp"
#include "spec-mapping/landlock_standin.hpp"
#include "spec-mapping/seccomp_map.hpp"

namespace sh::policy {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

struct Builder {
  const HostProbe& host;
  std::vector<Bound> out;
  std::set<std::string> allowed;  // the policy's syscalls expanded once (empty without a syscalls section)
  void add(std::string mech, bool available, std::string missing = "", const char* by = kBeforeExecve,
           std::string detail = "") {
    out.push_back(Bound{std::move(mech), available, by, available ? std::move(detail) : std::move(missing)});
  }
};

void identity(Builder& b, const Policy& p) {
  const Identity& id = p.identity;
  if (id.uid && id.uid->ephemeral)
    b.add("uid: a throwaway uid and gid that no other process or file on the host has", true);
  else if (id.uid)
    b.add("uid " + std::to_string(id.uid->value) + ", gid " + std::to_string(id.gid.value_or(id.uid->value)) +
              " (additional groups dropped)",
          true);
  else if (id.gid)
    b.add("gid " + std::to_string(*id.gid), true);
  if (id.capabilities) {
    if (id.capabilities->empty())
      b.add("capability sets empty (bounding, permitted, effective, inheritable, ambient)", true);
    else
      b.add("capabilities at most " + join(*id.capabilities) + " (in every set, bounding too)", true);
  }
  if (id.no_new_privileges) b.add("no_new_privs", b.host.no_new_privs, "prctl(PR_GET_NO_NEW_PRIVS) failed");
}

void namespaces(Builder& b, const Policy& p) {
  for (const auto& ns : p.namespaces)
    b.add(ns + " namespace (new)", b.host.namespaces.contains(ns), "this kernel has no " + ns + " namespace");
  if (p.network && *p.network != Network::host) {
    std::string what = *p.network == Network::none ? "network namespace (empty: only lo, left down)"
                                                   : "network namespace (only lo, up)";
    b.add(what, b.host.namespaces.contains("network"), "this kernel has no network namespace");
  }
}

void resources(Builder& b, const Policy& p) {
  if (p.memory && p.memory->limit)
    b.add("memory cgroup limit " + format_size(*p.memory->limit), b.host.memory_cgroup, "no memory cgroup controller");
  if (p.memory && p.memory->address_space) b.add("RLIMIT_AS " + format_size(*p.memory->address_space), true);
  if (p.memory && p.memory->deny_write_execute)
    b.add("memory-deny-write-execute: no writable and executable memory, nothing made executable after it was written "
          "(PR_SET_MDWE)",
          b.host.mdwe, "no PR_SET_MDWE on this kernel (Linux 6.3+)");
  if (p.cpu) {
    char share[32];
    std::snprintf(share, sizeof share, "%.2f", double(p.cpu->quota) / double(p.cpu->period));
    b.add("cpu cgroup quota " + std::to_string(p.cpu->quota) + " us per " + std::to_string(p.cpu->period) + " us (" +
              share + " CPU)",
          b.host.cpu_cgroup, "no cpu cgroup controller");
  }
  if (p.pids) {
    int64_t limit = p.pids->effective_limit();
    if (limit > 0) {
      std::string what = "pids cgroup limit " + std::to_string(limit);
      if (!p.pids->fork) what += " (fork: false, no new process)";
      b.add(what, b.host.pids_cgroup, "no pids cgroup controller");
      if (p.identity.uid && p.identity.uid->ephemeral)
        b.add("RLIMIT_NPROC " + std::to_string(limit) + " (the throwaway uid is the container's alone)", true);
    }
  }
  if (p.priority)
    b.add("priority: oomScoreAdj >= " + std::to_string(p.priority->oom_score_adj_min) + ", nice >= " +
              std::to_string(p.priority->nice_min) +
              (p.priority->realtime ? "" : ", no real-time scheduling or I/O class") + " (a config's are held to it)",
          true);
  if (p.hooks_from_config == false)
    b.add("no hooks from config.json (they would run on the host, as root): refused at create", true);
  if (p.wall_clock_seconds)
    b.add("wall-clock limit " + std::to_string(*p.wall_clock_seconds) + " s (runtime watchdog, SIGKILL)", b.host.pidfd,
          "pidfd_open(2) is not available", kWatchdog);
}

void syscalls(Builder& b, const Policy& p) {
  if (!p.syscalls) return;
  size_t n = b.allowed.size();
  const char* def = p.syscalls->default_action == DefaultAction::errno_eperm ? "default EPERM"
                    : p.syscalls->default_action == DefaultAction::kill     ? "default kill the process"
                                                                             : "default log and allow";
  b.add("seccomp allowlist (" + std::to_string(n) + " syscalls, " + def + ")", b.host.seccomp,
        "this kernel has no seccomp filter mode", kBeforeExecve,
        "clone/unshare only without CLONE_NEW* flags; clone3 answers ENOSYS; stacked on the config's own filter");
}

void devices(Builder& b, const Policy& p) {
  if (!p.devices) return;
  b.add("devices cgroup: only " + (p.devices->empty() ? std::string("none") : join(*p.devices)), b.host.devices_cgroup,
        "no devices cgroup controller");
}

void mounts(Builder& b, const Policy& p) {
  const Mounts& m = p.mounts;
  bool mnt = b.host.namespaces.contains("mount");
  const char* why = "this kernel has no mount namespace";
  if (m.readonly_root) b.add("read-only root filesystem", mnt, why);
  if (m.binds_readonly) b.add("bind mounts of the config made read-only", mnt, why);
  for (const auto& t : m.tmpfs)
    b.add("tmpfs " + t.path + (t.size ? " " + format_size(*t.size) : "") +
              (t.exec ? " (nosuid, nodev)" : " (nosuid, nodev, noexec)"),
          mnt, why);
  for (const auto& r : m.readonly_binds) b.add("read-only bind of " + r.source + " on " + r.destination, mnt, why);
  if (!m.masked_paths.empty()) b.add("masked paths (" + std::to_string(m.masked_paths.size()) + ")", mnt, why);
  if (!m.readonly_paths.empty()) b.add("read-only paths (" + std::to_string(m.readonly_paths.size()) + ")", mnt, why);
}

bool host_has(const HostProbe& h, StandInNeeds n) {
  switch (n) {
    case StandInNeeds::network_ns: return h.namespaces.contains("network");
    case StandInNeeds::pid_ns: return h.namespaces.contains("pid");
    case StandInNeeds::mount_ns: return h.namespaces.contains("mount");
    case StandInNeeds::devices_cgroup: return h.devices_cgroup;
  }
  return false;
}

std::string ports_text(const std::vector<uint16_t>& ports) {
  std::string s;
  for (auto p : ports) s += (s.empty() ? "" : " ") + std::to_string(p);
  return "[" + s + "]";
}

void landlock(Builder& b, const Policy& p) {
  auto block = landlock_block(p);
  if (!block) return;
  int abi = b.host.landlock_abi;
  std::string in_use = "Landlock ABI " + std::to_string(abi);
  auto gaps = landlock_shortfall(p, abi);
  auto covered = [&](const Shortfall& s) { return s.stood_in && host_has(b.host, s.stood_in->needs); };
  // What of one kind this ABI lacks that nothing stands in for ("" when nothing), and the
  // stand-ins it leans on instead ("truncate, ioctl_dev stood in for (below)").
  auto missing = [&](oci::LandlockKind kind) {
    std::string why;
    for (const auto& s : gaps)
      if (s.kind == kind && !covered(s)) why += (why.empty() ? "" : "; ") + needs_text(s, abi);
    if (!why.empty() && abi <= 0) return std::string("this kernel has no Landlock (or it is disabled at boot)");
    return why.empty() ? why : why + ": NOT enforced";
  };
  auto leaning = [&](oci::LandlockKind kind) {
    std::string names;
    for (const auto& s : gaps)
      if (s.kind == kind && covered(s)) names += (names.empty() ? "" : ", ") + s.right;
    return names.empty() ? names : "kernel " + in_use + " lacks " + names + ": stood in for (below)";
  };
  if (p.files) {
    std::string why = missing(oci::LandlockKind::fs);
    b.add(in_use + ": file rules for " + std::to_string(p.files->size()) +
              " paths, every filesystem right handled (denied unless a rule grants it)",
          why.empty(), why, kBeforeExecve, leaning(oci::LandlockKind::fs));
  }
  if (p.exec) {
    std::string names;
    for (const auto& pin : *p.exec) names += (names.empty() ? "" : ", ") + pin.path;
    std::string why = abi <= 0 ? "this kernel has no Landlock (or it is disabled at boot)" : "";
    b.add("exec allowlist: " + std::to_string(p.exec->size()) + " binaries pinned by SHA-256 (" + names +
              "), the only files with Landlock execute; read-only binds over them, read-only root, noexec on "
              "every writable mount",
          why.empty(), why);
    bool seccomp_too = p.syscalls && !b.allowed.contains("memfd_create");
    if (b.host.memfd_noexec || !seccomp_too)
      b.add("no memfd execution: vm.memfd_noexec=2 in the container's pid namespace" +
                std::string(seccomp_too ? "; seccomp denies memfd_create() too" : ""),
            b.host.memfd_noexec, "no vm.memfd_noexec to set (Linux 6.3+; only the host's root may write it)");
    else  // the seccomp allowlist holds it alone: no memfd can be made to execute
      b.add("no memfd execution: seccomp denies memfd_create()", true, "", kBeforeExecve,
            "no vm.memfd_noexec to set (Linux 6.3+; only the host's root may write it): seccomp stands in for it");
  }
  if (p.ports) {
    std::string why = missing(oci::LandlockKind::net);
    auto [bind, connect] = ports_with_edges(p);  // the mesh's TCP ends included
    b.add(in_use + ": TCP bind only to " + ports_text(bind) + ", connect only to " + ports_text(connect),
          why.empty(), why, kBeforeExecve, leaning(oci::LandlockKind::net));
  }
  if (block->scoped) {
    std::string why = missing(oci::LandlockKind::scope);
    b.add(in_use + ": scoped to the container's domain: " + join(*p.scope), why.empty(), why, kBeforeExecve,
          leaning(oci::LandlockKind::scope));
  }
  // One line per right this kernel lacks that another bound holds instead.
  for (const auto& s : gaps)
    if (covered(s))
      b.add(stood_in_text(s), true, "", kBeforeExecve,
            s.stood_in->why + "; " + needs_text(s, abi) + " to enforce it itself");
}

}  // namespace

std::vector<Bound> explain(const Policy& p, const HostProbe& host) {
  Builder b{host, {}, p.syscalls ? allowed_syscalls(*p.syscalls).value_or(std::set<std::string>{}) : std::set<std::string>{}};
  identity(b, p);
  namespaces(b, p);
  resources(b, p);
  syscalls(b, p);
  devices(b, p);
  mounts(b, p);
  for (auto& [mech, note] : mesh_checks(p.mesh))
    b.add(mech, true, "", "Boundary (checked by the edge proxies, outside the workload's uid)", note);
  landlock(b, p);
  if (p.secrets) {  // what the workload can ask for; the master keys stay with the KMS
    const bool weak = !b.host.memfd_secret && p.secrets->allow_weaker_memory;
    b.add(describe_secrets(*p.secrets), b.host.memfd_secret || weak,
          "this kernel has no memfd_secret(2) (Linux 5.14+, secretmem.enable): the KMS refuses to start "
          "unless the policy's secrets.allowWeakerMemory is true",
          kKmsSidecar,
          weak ? "WEAKER MODE on this kernel (no memfd_secret): the master keys sit in mlocked, MADV_DONTDUMP, "
                 "MADV_WIPEONFORK anonymous memory that root on the host can read via /proc/<pid>/mem"
               : "");
  }
  // The door (sharness-egress) is started by create's egress sidecar; it refuses rootless.
  if (p.egress)
    b.add(describe_egress(*p.egress), true, "", kEgressDoor,
          "its own uid and namespaces, the container's only listener; if it dies the container has no way out");
  return std::move(b.out);
}

std::string format_bound(const Bound& b) {
  std::string line = std::string(b.available ? "[ok]      " : "[MISSING] ") + b.mechanism + ": " + b.applied_by;
  if (!b.note.empty()) line += " (" + b.note + ")";
  return line;
}

Result<void> require_available(const std::vector<Bound>& bounds, bool best_effort) {
  std::string missing;
  for (const auto& b : bounds)
    if (!b.available) missing += (missing.empty() ? "" : "; ") + b.mechanism + ": " + b.note;
  if (missing.empty() || best_effort) return {};
  return fail("policy needs what this host lacks (set \"bestEffort\": true to run without): " + missing);
}

}  // namespace sh::policy
