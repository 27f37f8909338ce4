#include "spec-mapping/explain.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <set>
#include <string_view>

#include "base/file.hpp"
#include "base/text.hpp"
#include "runtime/linux/landlock.hpp"
#include "spec-mapping/landlock_map.hpp"
#include "spec-mapping/seccomp_map.hpp"

namespace sh::policy {
namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// The cgroup controllers this host offers, read once per probe: /proc/cgroups (name, hierarchy
// id, cgroup count, enabled; id 0 means "not on a v1 hierarchy") and the cgroup.controllers of a
// cgroup2 hierarchy (at /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host).
struct Controllers {
  std::set<std::string, std::less<>> v1, v2;
  bool v2_mounted = false;  // at /sys/fs/cgroup: device rules are eBPF programs on any v2 cgroup
  bool has(std::string_view name) const { return v1.contains(name) || v2.contains(name); }
};

Controllers controllers() {
  Controllers c;
  if (auto text = read_file("/proc/cgroups", 1 << 16))
    for (std::string_view rest = *text; !rest.empty();) {
      size_t nl = rest.find('\n');
      std::string line(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      char n[64];
      long hierarchy = 0, count = 0, enabled = 0;
      if (!line.starts_with('#') && std::sscanf(line.c_str(), "%63s %ld %ld %ld", n, &hierarchy, &count, &enabled) == 4 &&
          enabled == 1 && hierarchy > 0)
        c.v1.insert(n);
    }
  for (const char* root : {"/sys/fs/cgroup/cgroup.controllers", "/sys/fs/cgroup/unified/cgroup.controllers"}) {
    auto text = read_file(root, 4096);
    if (!text) continue;
    if (root[15] == 'c') c.v2_mounted = true;  // "/sys/fs/cgroup/c..."
    for (auto& w : words(*text)) c.v2.insert(std::move(w));
  }
  return c;
}

const char* proc_ns(const std::string& oci) {
  if (oci == "mount") return "mnt";
  if (oci == "network") return "net";
  return nullptr;
}

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

// What of the policy's Landlock block this host's ABI lacks, for one kind: "ioctl_dev (ABI 5)".
std::string lacking(const oci::LandlockConfig& block, int abi, oci::LandlockKind kind) {
  oci::LandlockConfig c = block;
  c.disable_best_effort = false;  // list everything missing rather than stop at the first
  auto n = landlock::negotiate(c, abi);
  std::string out;
  if (!n) return out;
  for (const auto& name : n->dropped)
    if (auto* r = oci::find_landlock_right(kind, name))
      out += (out.empty() ? "" : ", ") + name + " (ABI " + std::to_string(r->abi) + ")";
  return out;
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
  auto missing = [&](oci::LandlockKind kind, const std::string& what) {
    if (abi <= 0) return std::string("this kernel has no Landlock (or it is disabled at boot)");
    std::string l = lacking(*block, abi, kind);
    return l.empty() ? l : "kernel " + in_use + " lacks " + l + ": " + what + " NOT enforced";
  };
  if (p.files) {
    std::string why = missing(oci::LandlockKind::fs, "those rights are");
    b.add(in_use + ": file rules for " + std::to_string(p.files->size()) +
              " paths, every filesystem right handled (denied unless a rule grants it)",
          why.empty(), why);
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
    b.add("no memfd execution: vm.memfd_noexec=2 in the container's pid namespace" +
              std::string(seccomp_too ? "; seccomp denies memfd_create() too" : ""),
          b.host.memfd_noexec, "this kernel has no vm.memfd_noexec (Linux 6.3+)");
  }
  if (p.ports) {
    std::string why = missing(oci::LandlockKind::net, "TCP port rules are");
    auto [bind, connect] = ports_with_edges(p);  // the mesh's TCP ends included
    b.add(in_use + ": TCP bind only to " + ports_text(bind) + ", connect only to " + ports_text(connect),
          why.empty(), why);
  }
  if (block->scoped) {
    std::string why = missing(oci::LandlockKind::scope, "those scopes are");
    b.add(in_use + ": scoped to the container's domain: " + join(*p.scope), why.empty(), why);
  }
}

}  // namespace

HostProbe probe_host() {
  HostProbe h;
  Controllers c = controllers();
  h.memory_cgroup = c.has("memory");
  h.cpu_cgroup = c.has("cpu");
  h.pids_cgroup = c.has("pids");
  h.devices_cgroup = c.v1.contains("devices") || c.v2_mounted;
  // EINVAL when the kernel has no CONFIG_SECCOMP; else our own mode (0: none yet).
  h.seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  h.no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0;
  long fd = syscall(SYS_pidfd_open, getpid(), 0);
  if (fd >= 0) {
    h.pidfd = true;
    ::close(int(fd));
  }
  h.landlock_abi = landlock::abi_version();
  h.memfd_noexec = exists("/proc/sys/vm/memfd_noexec");
#ifdef SYS_memfd_secret
  long sfd = syscall(SYS_memfd_secret, O_CLOEXEC);
  if (sfd >= 0) ::close(int(sfd));
  h.memfd_secret = sfd >= 0;
#endif
  for (std::string ns : {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"}) {
    const char* name = proc_ns(ns);
    if (exists("/proc/self/ns/" + (name ? std::string(name) : ns))) h.namespaces.insert(ns);
  }
  return h;
}

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
  return std::move(b.out);
}

std::vector<Bound> explain(const Policy& p) { return explain(p, probe_host()); }

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
