// The runtime side of create: load the bundle, claim the id, make the cgroup, clone3 the
// init into its namespaces, write maps, run the runtime-namespace hooks, wait for `ready`,
// record the state. On any failure everything made so far is undone (Cleanup).
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/fault.hpp"
#include "base/file.hpp"
#include "base/log.hpp"
#include "hooks/hooks.hpp"
#include "runtime/lifecycle/container.hpp"
#include "oci/config_write.hpp"
#include "oci/landlock.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/host_facts.hpp"
#include "runtime/linux/landlock.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"
#include "runtime/lifecycle/floor.hpp"
#include "runtime/lifecycle/init.hpp"
#include "runtime/lifecycle/process_launch.hpp"
#include "runtime/lifecycle/restore.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/pin_cache.hpp"
#include "runtime/lifecycle/preserved_fds.hpp"
#include "runtime/lifecycle/policy_cache.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "runtime/lifecycle/systemd_scope.hpp"
#include "runtime/lifecycle/denial_reader.hpp"
#include "runtime/lifecycle/watchdog.hpp"
#include "runtime/lifecycle/watchdog_record.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/extension.hpp"
#include "runtime/lifecycle/sync.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/apparmor.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/sealed_exe.hpp"
#include "runtime/linux/syscall_recorder.hpp"
#include "runtime/linux/terminal.hpp"

namespace sh::lifecycle {

namespace {

// The initial user namespace maps every id to itself: "0 0 4294967295". A map it cannot read
// (no /proc) says no: what needs host root is then refused, never granted on a guess.
bool read_in_initial_userns() {
  auto m = read_file("/proc/self/uid_map", 4096);
  if (!m) return false;
  std::string_view v = *m;
  size_t nl = v.find('\n');
  std::string line(v.substr(0, nl));
  unsigned long a = 1, b = 1, n = 0;
  return std::sscanf(line.c_str(), "%lu %lu %lu", &a, &b, &n) == 3 && a == 0 && b == 0 && n == 4294967295ul &&
         (nl == std::string_view::npos || v.substr(nl + 1).empty());
}

// Read once a process: the runtime never changes its own user namespace (only helpers it
// forks unshare one), and a create under a policy asked twice (the floor, then the resources).
bool in_initial_userns() {
  static const bool initial = read_in_initial_userns();
  return initial;
}

// --rootless true|false|auto, as runc has it: auto is rootless for a caller whose euid is not 0,
// and for root in a user namespace other than the initial one with cgroupfs (rootless Podman runs
// the runtime as 0 in its own user namespace). It decides only whether a cgroup the caller may
// not write is a warning (id maps are written by what the caller may do, see ns::plan_id_maps).
bool rootless(const Globals& g) {
  if (g.rootless != "auto") return g.rootless == "true";
  return ::geteuid() != 0 || (!g.systemd_cgroup && !in_initial_userns());
}

// Why an unwritable cgroup is an error although rootless: what asked for it.
std::string rootless_cgroup_hint(const policy::Extension* ext) {
  std::string why = ext && ext->wall_clock_seconds ? "policy " + ext->policy_id + " sets a wall clock"
                                                   : "the config sets limits in linux.resources";
  return " (rootless: " + why + ", which needs a cgroup this user may write: put cgroupsPath in a cgroup " +
         "delegated to uid " + std::to_string(::geteuid()) + ")";
}

// Every capability name must be known now: a typo fails create, not start. An ambient
// capability the kernel will not raise is a warning here, and left out at start.
Result<void> check_capabilities(const oci::Capabilities& c) {
  const std::pair<const char*, const std::optional<std::vector<std::string>>*> sets[] = {
      {"bounding", &c.bounding}, {"effective", &c.effective}, {"inheritable", &c.inheritable},
      {"permitted", &c.permitted}, {"ambient", &c.ambient}};
  bool any = false;
  for (auto& [name, set] : sets) {
    if (*set) TRYV(caps::parse_list(**set, std::string("config.json: process.capabilities.") + name));
    any = any || *set;
  }
  // runc leaves the runtime's own sets (all, for root) to a config without the object; we keep
  // the bounding set and grant nothing (DESIGN.md §6.5), and say so.
  if (!any)
    log::warn("config.json: no process.capabilities: the process gets no capabilities (effective, permitted, "
              "inheritable, ambient empty; the bounding set kept), where runc would leave the runtime's own");
  return caps::warn_ambient_left_out(c, "config.json: process.capabilities.ambient");
}

// A set the kernel will refuse at start (a capability this runtime does not hold, as Docker's
// --privileged lists CAP_BPF to a runtime whose own bounding set lacks it) fails create, as
// runc's does, naming the capability. In a user namespace (new or joined) init holds every
// capability of that namespace: nothing to check.
Result<void> check_capabilities_raisable(const oci::Config& c) {
  for (const auto& n : c.linux.namespaces)
    if (n.type == "user") return {};
  auto bad = TRY(caps::first_unraisable(c.process->capabilities, TRY(caps::held_now())));
  if (!bad.empty()) return fail("config.json: " + bad);
  return {};
}

// The device cgroup list the container gets: cgroups::container_device_rules, as runc builds
// it; a policy's device list is exact (nothing added to it). Rootless, none is written, as in runc:
// an unprivileged runtime may not write the device controller, and its user namespace cannot
// make device nodes (they are bind mounts of the host's).
oci::Resources effective_resources(const oci::Config& c, const policy::Extension* ext, bool rootless) {
  oci::Resources r = c.linux.resources.value_or(oci::Resources{});
  r.devices = rootless ? std::vector<oci::DeviceRule>{}
                       : cgroups::container_device_rules(r.devices, c.linux.devices, ext && ext->devices);
  return r;
}

Result<Fd> listen_start_socket(const ContainerDir& dir) {
  Fd s(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("start socket");
  struct sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = dir.fd_path("start.sock");
  if (path.size() >= sizeof addr.sun_path) return fail("start socket path too long");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) return sys_error("bind " + path);
  if (::listen(s.get(), 1) < 0) return sys_error("listen " + path);
  return s;
}

// The time namespace and a joined pid namespace apply to children only: enter them in
// the runtime right before clone3 (the runtime exits soon after).
Result<void> enter_for_children(const oci::Config& c, const ns::Plan& plan) {
  for (auto& j : plan.joins)
    if ((j.flag == CLONE_NEWPID || j.flag == CLONE_NEWTIME) && ::setns(j.fd.get(), j.flag) < 0)
      return sys_error("join namespace " + j.path);
  if (plan.new_flags & CLONE_NEWTIME) {
    if (::unshare(CLONE_NEWTIME) < 0) return sys_error("unshare time namespace");
    std::string offs;
    for (auto& [clock, o] : c.linux.time_offsets)
      offs += clock + " " + std::to_string(o.secs) + " " + std::to_string(o.nanosecs) + "\n";
    if (!offs.empty()) TRYV(write_file("/proc/self/timens_offsets", offs));
  }
  return {};
}

// The state's `owner`: the caller's name from /etc/passwd, read directly (getpwuid would load NSS
// modules, which a static binary cannot), or the number.
std::string owner_name() {
  std::string uid = std::to_string(::geteuid());
  auto text = read_file("/etc/passwd");
  if (!text) return uid;
  std::string_view rest = *text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    size_t a = line.find(':'), b = a == line.npos ? a : line.find(':', a + 1), c = b == line.npos ? b : line.find(':', b + 1);
    if (c != line.npos && line.substr(b + 1, c - b - 1) == uid && a > 0) return std::string(line.substr(0, a));
  }
  return uid;
}

}  // namespace

Result<void> write_pid_file(const std::string& path, pid_t pid) {
  // Atomic: a reader never sees an empty or partial file.
  std::string tmp = path + ".sharness-tmp";
  TRYV(write_file(tmp, std::to_string(pid), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644));
  if (::rename(tmp.c_str(), path.c_str()) < 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return sys_error("write pid file " + path, e);
  }
  return {};
}

oci::State to_state(const Record& r, Status s) {
  oci::State st;
  st.id = r.id;
  st.status = status_name(s);
  st.pid = (s == Status::stopped) ? 0 : r.pid;
  st.bundle = r.bundle;
  st.rootfs = r.rootfs;
  st.created = r.created;
  st.owner = r.owner;
  st.annotations = r.annotations;
  return st;
}

namespace {
bool is_claim(const std::string& annotation) {
  return annotation.starts_with("org.sharness.") && annotation != policy::kAnnotationPolicy;
}

// Only the runtime writes policy claims (DESIGN.md §3). A client's "sharness" block, or an
// org.sharness.* annotation other than org.sharness.policy (the installed policy it names, which
// select_policy resolves and intersects with the floor), would otherwise be enforced or reported
// as if this runtime had produced it: a role gets a leaf from the operator's CA, secrets get a KMS
// over the operator's vault, and `state` shows a policy id and hash that nothing enforced.
// Refused unless the runtime config says the bundle's author is the operator (trustBundleClaims).
Result<void> refuse_client_claims(const RuntimeConfig& rc, const oci::Config& c) {
  if (rc.trust_bundle_claims) return {};
  const std::string why =
      ": a policy claim, and only the runtime writes those (the operator's floor is --policy or the runtime "
      "config's defaultPolicy; a client names an installed policy with annotations." + std::string(policy::kAnnotationPolicy) +
      "; a config written by `policy apply` needs \"trustBundleClaims\": true in the runtime config)";
  if (c.sharness_json) return fail("config.json: sharness" + why);
  for (const auto& [k, v] : c.annotations)
    if (is_claim(k)) return fail("config.json: annotations." + k + why);
  return {};
}
}  // namespace

// The policy, if any, tightens the config in memory; what OCI cannot express lands in `ext`.
// `fixed`: which identity fields the floor holds exec to (floor.hpp).
Result<std::optional<policy::Extension>> apply_policy(const Globals& g, const CreateOptions& o, const RuntimeConfig& rc,
                                                      oci::Config& c, FloorIdentity& fixed) {
  TRYV(refuse_client_claims(rc, c));
  if (o.learn && (c.annotations.contains(policy::kAnnotationPolicy) || c.sharness_json))
    return fail("policy learn: the bundle's config names a policy (annotation " + std::string(policy::kAnnotationPolicy) +
                " or a sharness block): give it to policy learn as --from, on the original config");
  // The chosen policy's files are read at every create; the work derived from them alone is
  // read back from the policy cache when these exact files were prepared before on this host.
  host::Facts host;  // probed only for a policy
  std::optional<policy::Prepared> pp;
  if (o.learn) {
    if (o.learn_floor) {
      host = host::probe();
      pp = TRYC("policy " + o.learn_floor->id, policy::prepare(*o.learn_floor, host));
    }
  } else if (auto choice = TRY(read_policy_choice(rc, g.policy, c)); !choice.empty()) {
    host = host::probe();
    pp = TRY(prepared_policy(rc, choice, host, rc.policy_cache ? g.root : std::string()));
  }
  const policy::Policy* p = pp ? &pp->policy : nullptr;
  fixed.uid = p && p->identity.uid;
  fixed.gid = p && (p->identity.uid || p->identity.gid);
  if (c.sharness_json) {
    // `policy apply` tightened this config already: its block is what create enforces (the
    // stacked filter, Landlock, pins, throwaway uid, watchdog, edges, KMS), as for --policy.
    auto doc = TRY(json::Document::parse(*c.sharness_json, "config.json: sharness"));
    policy::Extension ext = TRYC("config.json: sharness", policy::parse_extension(doc.root()));
    if (p)
      return fail("config.json carries a \"sharness\" block (policy " + ext.policy_id +
                  " applied by `policy apply`) and create selected policy " + p->id +
                  ": give every policy to `policy apply --policy`, applied to the original config");
    TRYC("policy " + ext.policy_id, policy::require_available(ext.bounds, ext.best_effort));
    fixed = {true, true};  // `policy apply` wrote the user: exec is held to it
    TRYV(policy::refuse_config_hooks(ext, c.hooks));  // hooks added to the config after `policy apply`
    return std::optional<policy::Extension>(std::move(ext));
  }
  if (!p) return std::optional<policy::Extension>();
  policy::Extension ext;
  TRYC("policy " + p->id, policy::apply_prepared(*pp, c, ext, host));
  for (const auto& b : ext.bounds)
    if (b.note == policy::kConfigHeld) log::warn("policy " + p->id + ": " + b.mechanism);
  TRYC("policy " + p->id, policy::require_available(ext.bounds, ext.best_effort));
  c.sharness_json = policy::extension_to_json(ext);
  return std::optional<policy::Extension>(std::move(ext));
}

// Only device rules (which every config carries) and no limit at all.
bool no_limits(const oci::Resources& r) {
  return !r.memory && !r.cpu && !r.pids && !r.block_io && r.hugepage_limits.empty() && !r.network && r.unified.empty();
}

// Spawn the wall-clock watchdog over every hierarchy's cgroup.procs; it leaves its record in
// the state dir when it fires (watchdog_record.hpp).
Result<void> start_watchdog(const Record& rec, const ContainerDir& dir, const cgroups::Cgroup& cg, uint64_t seconds,
                            int init_pidfd) {
  std::vector<std::string> procs;
  for (auto& [ctrl, mnt] : cg.layout().v1_mounts) procs.push_back(mnt + rec.cgroup_path + "/cgroup.procs");
  if (!cg.layout().unified_mount.empty()) procs.push_back(cg.layout().unified_mount + rec.cgroup_path + "/cgroup.procs");
  std::error_code ec;
  auto record = std::filesystem::absolute(dir.path() + "/" + kWatchdogFiredFile, ec);
  if (ec) return sys_error("wall-clock watchdog: the absolute path of " + dir.path(), ec.value());
  TRYC("wall-clock watchdog", spawn_watchdog(rec.pid, rec.start_time, procs, seconds, record.string(), init_pidfd));
  return {};
}

Result<Launched> create(const Globals& g, const CreateOptions& o) {
  return TRY(create_container(g, o, std::nullopt)).launched;
}

namespace {

// A container being made: what create_container's steps hand each other.
struct Making {
  const Globals& g;
  const CreateOptions& o;
  Bundle b;
  RuntimeConfig rc;
  // What the client asked for, before the policy: the floor tells its repeats from requests.
  oci::Process asked_process;
  std::optional<oci::Resources> asked_resources;
  FloorIdentity fixed;  // which identity fields the floor holds exec to (floor.hpp)
  std::optional<policy::Extension> ext;
  ns::Plan plan;
  Record rec;
  std::optional<cgroups::Cgroup> cgroup;  // empty: rootless without one, or systemd's before init
  std::vector<netdev::Device> net_devices;
  oci::Resources res;  // what the cgroup holds: the config's limits, tightened by the policy
  // v1: the container's `tasks` files, which init writes itself (cgroups.hpp says why); closed
  // here once it is cloned.
  std::vector<cgroups::TasksFile> v1_tasks;
  // --systemd-cgroup: the scope systemd makes with init in it, and the limits it holds as properties.
  std::optional<systemd::Unit> unit;
  bool unit_user = false;
  systemd::Properties unit_props;
  // The host's cgroup mounts and mountinfo, read once before the clone (init's cgroup mount
  // reuses the text in its copy of our mount namespace).
  cgroups::Layout layout;
  oci::Config& c() { return b.config; }
  const policy::Extension* x() const { return ext ? &*ext : nullptr; }
};

// A half-made container's undo: the one teardown delete runs (tear_down), on what exists.
struct Undo {
  Making& m;
  ContainerDir& dir;
  Teardown how{.create_failed = true};
  bool armed = true;
  ~Undo() {
    if (armed) (void)tear_down(m.g.sidecars, dir, m.rec, how);
  }
};

Result<Making> read_inputs(const Globals& g, const CreateOptions& o, std::optional<Bundle> loaded) {
  Bundle b = loaded ? std::move(*loaded) : TRY(load_bundle(o.bundle));
  RuntimeConfig rc = TRY(load_runtime_config(g.config_path.empty() ? kDefaultRuntimeConfig : g.config_path,
                                             !g.config_path.empty()));
  oci::Process asked_process = b.config.process.value_or(oci::Process{});
  std::optional<oci::Resources> asked_resources = b.config.linux.resources;
  return Making{g, o, std::move(b), std::move(rc), std::move(asked_process), std::move(asked_resources), {}, {}, {},
                {}, {}, {}, {}, {}, {}, {}, {}, {}};
}

// What a policy cannot do for an unprivileged caller, refused before anything is made.
Result<void> refuse_unprivileged(const Sidecars sidecars, const policy::Extension& ext) {
  if (::geteuid() == 0 && in_initial_userns()) return {};
  std::string who = "policy " + ext.policy_id + ": ";
  std::string uid = ::geteuid() ? " (the runtime runs as uid " + std::to_string(::geteuid()) + ")"
                                : std::string(" (the runtime runs as root of a user namespace, not the host's)");
  if (ext.ephemeral_uid)
    return fail(who + "identity.uid \"ephemeral\" needs root: a throwaway host uid is claimed and switched to " +
                "with CAP_SETUID over the host's ids, which an unprivileged user does not have" + uid);
  for (const Sidecar* s : sidecars)
    if (s->wanted(ext)) return fail(who + s->needs_root + uid);
  return {};
}

// Everything create refuses is refused here, before anything is made.
Result<void> check_config(Making& m) {
  oci::Config& c = m.c();
  if (m.ext) TRYV(refuse_unprivileged(m.g.sidecars, *m.ext));
  bool has_console = !m.o.console_socket.empty() || m.o.console_fd >= 0;
  if (c.process->terminal && !has_console)
    return fail("cannot allocate a tty without --console-socket (process.terminal is true)");
  if (!c.process->terminal && has_console)
    return fail("--console-socket given but process.terminal is false");
  TRYV(check_capabilities(c.process->capabilities));
  TRYV(check_capabilities_raisable(c));
  // A profile the kernel does not have fails here, naming it, not at start.
  if (c.process->apparmor_profile && !c.process->apparmor_profile->empty())
    TRYV(apparmor::check_loaded(*c.process->apparmor_profile));
  if (c.process->landlock_json) {
    // A bad block or a right this kernel lacks (with best effort off) fails create here.
    auto ll = TRY(oci::parse_landlock(*c.process->landlock_json, "config.json: process.landlock"));
    auto n = TRY(landlock::negotiate(ll, landlock::abi_version()));
    if (!n.dropped.empty()) log::warn(landlock::describe(n));
  }
  if (m.ext && m.ext->landlock) {  // the policy's layer: what this kernel enforces of it, in the log
    auto n = TRYC("policy " + m.ext->policy_id, landlock::negotiate(*m.ext->landlock, landlock::abi_version()));
    (n.dropped.empty() && n.stood_in.empty() ? log::debug : log::warn)("policy " + m.ext->policy_id + ": " + landlock::describe(n));
  }
  m.plan = TRY(ns::plan(c));
  if (m.plan.joins_user() && (m.plan.new_flags & CLONE_NEWPID))
    return fail("joining a user namespace while creating a pid namespace is not supported");
  return {};
}

Result<void> claim_ephemeral_uid(Making& m) {
  if (!m.ext || !m.ext->ephemeral_uid) return {};
  if (m.o.restoring) {  // the image's processes run as the uid they had: that one, or none
    uint32_t uid = m.o.restoring->image.ephemeral_uid;
    if (uid < m.rc.ephemeral_first || uid - m.rc.ephemeral_first >= m.rc.ephemeral_count)
      return fail("restore: the checkpoint's throwaway uid " + std::to_string(uid) +
                  " is not in this runtime's ephemeralUids range");
    m.rec.ephemeral_uid = TRYC("restore: the checkpoint's throwaway uid " + std::to_string(uid) +
                                   " is held by another container or process (a checkpoint taken with "
                                   "--leave-running is restored once the original is gone)",
                               allocate_ephemeral_uid(m.g.root, uid, 1, m.o.id));
  } else {
    m.rec.ephemeral_uid = TRY(allocate_ephemeral_uid(m.g.root, m.rc.ephemeral_first, m.rc.ephemeral_count, m.o.id));
  }
  m.c().process->user.uid = m.rec.ephemeral_uid;
  if (m.ext->ephemeral_gid) m.c().process->user.gid = m.rec.ephemeral_uid;
  return {};
}

// `state` reports what this runtime applied: the policy and identity annotations come from
// what create enforces, never from the config's own (a trusted bundle's included).
void record_policy(Making& m) {
  std::erase_if(m.c().annotations, [](const auto& kv) { return is_claim(kv.first); });
  if (!m.ext) return;
  m.c().annotations[policy::kAnnotationId] = m.ext->policy_id;
  m.c().annotations[policy::kAnnotationHash] = m.ext->policy_hash;
}

// What the policy starts beside the container: each sidecar's host side, and the hooks,
// mounts and annotations that run and expose it.
Result<void> provision(Making& m) {
  if (!m.ext) return {};
  return provision_sidecars(m.g.sidecars, SidecarHost{m.g.root, m.o.id, m.g.config_path, m.rc}, *m.ext, m.c());
}

Result<void> save_config(Making& m, const ContainerDir& dir) {
  oci::Config& c = m.c();
  m.rec.bundle = m.b.path;
  m.rec.rootfs = m.b.rootfs;
  m.rec.created = log::now_rfc3339();
  m.rec.owner = owner_name();
  m.rec.annotations = c.annotations;
  m.rec.poststart_hooks = !c.hooks.poststart.empty();
  m.rec.poststop_hooks = !c.hooks.poststop.empty();
  // exec re-reads this: with a policy it is the tightened config with its sharness block.
  TRYV(dir.write_atomic("config.json", m.ext ? TRY(oci::config_to_json(c, false)) : m.b.config_text));
  fault::point("create.config-saved");
  if (m.ext) {  // the runtime's own record of the floor, for exec and update (floor.hpp)
    TRYV(save_floor(dir, make_floor(*m.ext, m.fixed, c, m.asked_process, m.asked_resources)));
    m.rec.floor = true;
  }
  return {};
}

Result<void> make_cgroup(Making& m, const ContainerDir& dir) {
  const Globals& g = m.g;
  oci::Config& c = m.c();
  m.layout = TRY(cgroups::detect_layout());
  const cgroups::Layout& layout = m.layout;
  // --systemd-cgroup: systemd makes the cgroup, as a scope unit, once init exists (hand_over).
  if (g.systemd_cgroup) {
    TRYV(systemd_scope::require_systemd(layout));
    m.unit_user = systemd_scope::user_bus(g);
    m.unit = TRY(systemd::unit_for(c.linux.cgroups_path, m.o.id, m.unit_user));
  }
  std::string resolved = TRY(cgroups::resolve_path(c.linux.cgroups_path, m.o.id, g.systemd_cgroup));
  // systemd's path is recorded once the scope is ours (start_scope): until then it may be another
  // container's live scope of the same name, which this create's undo must never kill.
  if (!m.unit) m.rec.cgroup_path = std::move(resolved);
  m.res = effective_resources(c, m.x(), m.unit_user || (rootless(g) && (::geteuid() != 0 || !in_initial_userns())));
  // Refused here, before anything exists, if systemd could not hold them.
  if (m.unit) m.unit_props = TRY(systemd::resource_properties(m.res, read_file("/proc/devices").value_or("")));
  // Recorded before it exists: a runtime killed from here on leaves a state that names the
  // cgroup, so `delete --force` removes it.
  TRYV(dir.save(m.rec));
  fault::point("create.state-saved");
  if (m.unit) return {};  // made with init in it, after the clone: init starts outside
  cgroups::Cgroup& cg = m.cgroup.emplace(layout, m.rec.cgroup_path);
  if (auto r = cg.create(&m.res); !r) {
    m.cgroup.reset();  // create() removes what it made
    const std::string path = std::exchange(m.rec.cgroup_path, {});  // nothing of ours there to undo
    // --rootless (or auto as non-root): a cgroup we may not write is a warning, as in runc,
    // unless the config asked for limits: those must never be dropped silently.
    // A policy's wall clock is watched through the cgroup: it is never dropped either.
    bool perm = r.error().err == EACCES || r.error().err == EPERM || r.error().err == EROFS;
    if (!rootless(g) || !perm || (c.linux.resources && !no_limits(*c.linux.resources)) ||
        (m.ext && m.ext->wall_clock_seconds))
      return fail(std::move(r.error()).context("cgroup " + path + (rootless(g) && perm ? rootless_cgroup_hint(m.x())
                                                                                       : std::string())));
    log::warn("rootless: no cgroup for container " + m.o.id + " (limits need a delegated cgroup): " +
              r.error().what());
    TRYV(dir.save(m.rec));
  }
  fault::point("create.cgroup-made");
  return {};
}

// init, cloned into its namespaces (and its cgroup, on pure v2), and our ends of its sockets.
struct Init {
  pid_t pid = 0;
  Fd pidfd, sock;
  bool in_cgroup = false;  // clone3 put it there
};

Result<Init> clone_init(Making& m, const ContainerDir& dir) {
  const Globals& g = m.g;
  const CreateOptions& o = m.o;
  oci::Config& c = m.c();
  const ns::Plan& plan = m.plan;
  const policy::Extension* ext = m.x();
  Fd listener;
  if (!o.start_at_once) listener = TRY(listen_start_socket(dir));
  int sp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return sys_error("socketpair");
  Fd parent_sock(sp[0]), child_sock(sp[1]);
  Fd console;
  if (!o.console_socket.empty()) console = TRY(terminal::connect_console_socket(o.console_socket));
  if (o.console_fd >= 0) console = Fd(::fcntl(o.console_fd, F_DUPFD_CLOEXEC, 3));

  // clone3 straight into the cgroup on pure v2; otherwise the runtime moves init in before
  // `go` and init unshares its cgroup namespace afterwards, so its root is the container's.
  int cgfd = m.cgroup ? TRY(m.cgroup->open_v2_dir()) : -1;
  Fd cg_dir(cgfd);
  // Joining a user namespace: init joins it first, then unshares the rest itself.
  unsigned long flags = plan.joins_user() ? 0 : plan.new_flags;
  flags &= ~(unsigned long)CLONE_NEWTIME;
  bool cgroupns_later = false;
  if ((flags & CLONE_NEWCGROUP) && !cg_dir) {
    flags &= ~(unsigned long)CLONE_NEWCGROUP;
    cgroupns_later = true;
  }
  if (plan.joins_user()) cgroupns_later = false;  // init unshares everything after joining

  // Out here, before init exists: compile errors surface as before, and the cache under our
  // state root never needs to be reachable (or an fd open) inside the container.
  auto filters = TRY(compile_filters({c.linux.seccomp ? &*c.linux.seccomp : nullptr,
                                      ext && ext->seccomp ? &*ext->seccomp : nullptr},
                                     m.rc.seccomp_cache ? g.root : std::string()));
  std::optional<seccomp::Filter> recording;
  if (o.learn) recording = TRY(recorder::recording_filter());
  InitContext ctx;
  ctx.config = &c;
  ctx.recording = recording ? &*recording : nullptr;
  ctx.deny_write_execute = ext && ext->deny_write_execute;
  ctx.plan = &plan;
  ctx.id = o.id;
  ctx.rootfs = m.b.rootfs;
  ctx.sync_fd = child_sock.get();
  ctx.listen_fd = listener.get();
  ctx.console_fd = console.get();
  ctx.no_pivot = o.no_pivot;
  ctx.no_new_keyring = o.no_new_keyring;
  ctx.cgroupns_after_join = cgroupns_later;
  ctx.preserve_fds = o.preserve_fds;
  ctx.state_dir_fd = dir.fd();
  ctx.host_fds = m.cgroup ? m.cgroup->kept_fds() : cgroups::kept_root_fds();
  if (cg_dir) ctx.host_fds.push_back(cg_dir.get());
  // v1 hierarchies: init joins them itself, without an RCU grace period (cgroups.hpp).
  if (!cg_dir && m.cgroup) m.v1_tasks = TRY(m.cgroup->open_v1_tasks());
  ctx.cgroup_tasks = &m.v1_tasks;
  ctx.filters = &filters;
  if (ext && ext->landlock) ctx.policy_landlock = &*ext->landlock;
  std::vector<exec_allowlist::Hashed> pin_hashes;
  if (ext && ext->exec) {
    ctx.exec_pins = &*ext->exec;
    pin_hashes = hash_pins(g.root, m.b.rootfs, *ext->exec);
    ctx.pin_hashes = &pin_hashes;
  }
  // A network namespace we create gets lo up, as runc and crun do; a joined one is left as it
  // is. A policy's network "none" keeps lo down on purpose (docs/policy.md).
  ctx.loopback_up = (plan.new_flags & CLONE_NEWNET) && !(ext && ext->network == "none");
  ctx.audit_session = records_denials(m.x());
  if (ext && ext->devices) ctx.only_devices = &*ext->devices;
  ctx.host_mountinfo = &m.layout.mountinfo;

  // Idmapped binds must be made out here when init gets a user namespace (see rootfs.hpp);
  // init inherits the fds with its copy of our fd table.
  std::vector<std::pair<size_t, Fd>> premade;
  if (plan.new_user() || plan.joins_user()) premade = TRY(rootfs::premake_idmapped_mounts(c));
  ctx.premade_mounts = &premade;
  // linux.netDevices: looked up (and their addresses read) here, in the host's namespace.
  m.net_devices = TRY(netdev::prepare(c.linux.net_devices));
  ctx.net_devices = &m.net_devices;

  TRYV(enter_for_children(c, plan));
  int pidfd = -1;
  struct clone_args args{};
  args.flags = flags | CLONE_PIDFD | (cg_dir ? CLONE_INTO_CGROUP : 0);
  args.pidfd = reinterpret_cast<uint64_t>(&pidfd);
  args.exit_signal = SIGCHLD;
  args.cgroup = cg_dir ? uint64_t(cg_dir.get()) : 0;
  long pid = ::syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0) return sys_error("clone3 container init");
  if (pid == 0) {
    parent_sock.reset();  // so the child sees EOF if the runtime dies
    init_main(ctx);
  }
  return Init{pid_t(pid), Fd(pidfd), std::move(parent_sock), bool(cg_dir)};
}

// --systemd-cgroup: the scope, with init in it (PIDs) and the limits systemd holds as
// properties, then what else the config asks written to its files. Errors name the unit and
// the D-Bus error. From here the state names the unit, so the teardown stops it.
Result<void> start_scope(Making& m, const ContainerDir& dir, pid_t pid) {
  const systemd::Unit& unit = *m.unit;
  systemd::Properties props = systemd::scope_properties(unit, pid, m.o.id);
  props.insert(props.end(), m.unit_props.begin(), m.unit_props.end());
  TRYVC("--systemd-cgroup", systemd_scope::start(unit.name, m.unit_user, props));
  m.rec.systemd_unit = unit.name;
  m.rec.systemd_user = m.unit_user;
  m.rec.cgroup_path = TRYC("--systemd-cgroup: the cgroup of " + unit.name, systemd_scope::cgroup_of(pid));
  TRYV(dir.save(m.rec));
  // Limits go only where systemd put init: its own scope's directory, nothing else.
  if (!m.rec.cgroup_path.ends_with("/" + unit.name))
    return fail("--systemd-cgroup: " + unit.name + " started, but init (pid " + std::to_string(pid) +
                ") is in cgroup " + m.rec.cgroup_path + ", not the unit's");
  cgroups::Cgroup& cg = m.cgroup.emplace(m.layout, m.rec.cgroup_path);
  TRYVC("cgroup " + m.rec.cgroup_path + " (" + unit.name + ")", cg.adopt(&m.res));
  return {};
}

// Out here, in the host's namespaces: init's id maps, its cgroup (when clone3 could not put it
// there), the network devices into its network namespace.
Result<void> hand_over(Making& m, const ContainerDir& dir, const Init& init) {
  oci::Config& c = m.c();
  const pid_t pid = init.pid;
  if (m.plan.new_user()) TRYV(ns::write_id_maps(pid, c.linux.uid_mappings, c.linux.gid_mappings));
  if (m.unit) TRYV(start_scope(m, dir, pid));
  m.v1_tasks.clear();  // init joined its v1 cgroups itself, through these
  if (!m.unit && m.cgroup && !init.in_cgroup)
    TRYVC("cgroup " + m.rec.cgroup_path, m.cgroup->add_pid(pid, /*except_v1=*/true));
  if (!m.net_devices.empty()) {
    // Into init's new network namespace, or the one it joins (validate refused the host's).
    auto* net = c.find_namespace("network");
    std::string where = net && !net->path.empty() ? net->path : "/proc/" + std::to_string(pid) + "/ns/net";
    Fd netns = TRY(open_file(where, O_RDONLY));
    TRYV(netdev::move_all(m.net_devices, netns.get(), "the container's network namespace " + where));
  }
  m.rec.pid = pid;
  auto st = proc::stat(pid);
  m.rec.start_time = st ? st->start_time : 0;
  return {};
}

// `go` to init, then the prestart and createRuntime hooks when it asks, until it is `ready`.
Result<void> wait_ready(Making& m, Init& init, Undo& undo) {
  oci::Config& c = m.c();
  // init gone without a word (killed from outside, crashed): say how it ended.
  auto init_died = [&]() -> std::unexpected<Error> {
    int status = 0;
    ::waitpid(init.pid, &status, 0);
    undo.how.child = 0;
    return fail("container init exited unexpectedly, without a message (" + describe_wait_status(status) + ")");
  };
  auto send_to_init = [&](sync::Msg type, const std::string& payload) -> Result<void> {
    auto r = sync::send(init.sock.get(), type, payload);
    if (!r && (r.error().err == EPIPE || r.error().err == ECONNRESET)) return init_died();
    return r;
  };
  std::string creating = oci::hook_state_json(to_state(m.rec, Status::creating));
  TRYV(send_to_init(sync::Msg::go, creating));
  fault::point("create.go-sent");

  for (;;) {
    auto msg = TRY(sync::recv(init.sock.get()));
    if (!msg) return init_died();
    if (msg->type == sync::Msg::error) return fail(msg->payload);
    if (msg->type == sync::Msg::hooks_request) {
      // From here the hooks may have started something (the sidecars): a failed create runs
      // the poststop hooks, as delete would (and as runc does).
      undo.how.poststop = &c.hooks.poststop;
      auto r = hooks::run(c.hooks.prestart, "prestart", creating);
      if (r) r = hooks::run(c.hooks.create_runtime, "createRuntime", creating);
      if (!r) {
        (void)sync::send(init.sock.get(), sync::Msg::error, r.error().what());
        return fail(r.error());
      }
      fault::point("create.hooks-run");
      TRYV(send_to_init(sync::Msg::hooks_done, creating));
      continue;
    }
    if (msg->type == sync::Msg::ready) return {};
    return fail("protocol error: unexpected message from container init");
  }
}

Result<void> save_state(Making& m, const ContainerDir& dir) {
  fault::point("create.init-ready");  // init waits at the barrier; the state has no pid yet
  TRYV(dir.save(m.rec));
  fault::point("create.saved");
  if (!m.o.pid_file.empty()) TRYV(write_pid_file(m.o.pid_file, m.rec.pid));
  fault::point("create.pid-file-written");
  return {};
}

// The clock runs from create (init's start): a Boundary outside the container that ends with it.
// A restored container gets what it had left (restore refused one with nothing left).
// `init_pidfd`: clone3's pidfd of init, or -1 (the watchdog then opens one and checks the pid).
Result<void> start_wall_clock(Making& m, const ContainerDir& dir, int init_pidfd) {
  if (!m.ext || !m.ext->wall_clock_seconds || !m.cgroup) return {};
  uint64_t spent = (m.rec.wall_clock_spent_ms + 999) / 1000;
  return start_watchdog(m.rec, dir, *m.cgroup, *m.ext->wall_clock_seconds - spent, init_pidfd);
}

// restore: in place of clone_init, hand_over and wait_ready, CRIU brings the processes back into
// the cgroup made above (restore.hpp), and the prestart and createRuntime hooks run once their
// namespaces exist, as runc runs them.
Result<Launched> bring_back(Making& m, ContainerDir& dir, Undo& undo) {
  const ImageRecord& image = m.o.restoring->image;
  if (m.ext && m.ext->wall_clock_seconds && image.wall_clock_spent_ms >= *m.ext->wall_clock_seconds * 1000)
    return fail("restore: the checkpoint had used all of policy " + m.ext->policy_id + "'s wall clock (" +
                std::to_string(*m.ext->wall_clock_seconds) + " s)");
  m.rec.wall_clock_spent_ms = image.wall_clock_spent_ms;
  RestoreHost h{m.c(), m.b.path, m.b.rootfs, dir,
                // CRIU moves the restored tasks into the cgroup itself; it joins only a systemd
                // scope, which cannot be made empty (and holds no limit before it exists).
                [&](pid_t criu) -> Result<const cgroups::Cgroup*> {
                  if (m.unit) TRYV(start_scope(m, dir, criu));
                  return m.cgroup ? &*m.cgroup : nullptr;
                },
                [&](pid_t pid) -> Result<void> {
                  undo.how.poststop = &m.c().hooks.poststop;
                  Record r = m.rec;
                  r.pid = pid;
                  std::string creating = oci::hook_state_json(to_state(r, Status::creating));
                  TRYV(hooks::run(m.c().hooks.prestart, "prestart", creating));
                  return hooks::run(m.c().hooks.create_runtime, "createRuntime", creating);
                }};
  Launched l = TRY(restore_processes(*m.o.restoring, h));
  undo.how.child = l.pid;
  m.rec.pid = l.pid;
  auto st = proc::stat(l.pid);
  m.rec.start_time = st ? st->start_time : 0;
  m.rec.started = true;
  return l;
}

// The denials reader (denial_reader.hpp), for a container under a policy that has a bound whose
// refusals the kernel audits: subscribed now, before the workload runs; read by a process of its
// own, or (o.own_denials: a foreground run) handed back to the caller. An unprivileged runtime
// cannot read the audit log: it says so.
Result<std::optional<DenialReader>> start_denial_reader(const Making& m, const ContainerDir& dir) {
  if (m.ext && (m.ext->seccomp || m.ext->landlock) && ::geteuid() != 0)
    log::warn("denials are not recorded: reading the audit log needs root (CAP_AUDIT_READ)");
  if (!records_denials(m.x())) return std::nullopt;
  // Not a bound but the record of one: a reader that cannot start is said, never fatal.
  auto r = DenialReader::open(m.rec.pid, m.rec.start_time, dir.path() + "/" + kDenialLog);
  if (r && m.o.own_denials) return std::move(*r);
  Result<void> forked = r ? std::move(*r).fork_off() : fail(std::move(r.error()));
  if (!forked) log::warn("denials are not recorded: " + forked.error().what());
  return std::nullopt;
}

}  // namespace

// create, in this order (each step one function above); on any failure Undo tears down what
// exists, by delete's own teardown:
//   read the bundle and the runtime config -> apply the policy (floor x client) -> refuse what
//   create refuses -> claim the id (the state dir) -> claim the throwaway uid -> annotate the
//   policy -> provision the sidecars the policy asks for -> save the config and the floor ->
//   make the cgroup -> clone3 init -> write its maps, move it in -> `go`, run the
//   prestart/createRuntime hooks when it asks, wait for `ready` -> save the state and the pid
//   file -> start the wall-clock watchdog and the denials reader.
// restore (o.restoring) takes the same steps, with the checkpoint's policy and throwaway uid, and
// CRIU bringing the processes back (bring_back) where init is cloned, handed over and waited for.
Result<Created> create_container(const Globals& g, const CreateOptions& o, std::optional<Bundle> loaded) {
  TRYV(check_preserved_fds(o.preserve_fds));  // before we open anything
  TRYV(validate_id(o.id));
  Making m = TRY(read_inputs(g, o, std::move(loaded)));
  m.ext = TRY(apply_policy(g, o, m.rc, m.c(), m.fixed));
  if (o.restoring) TRYVC("restore", same_policy(o.restoring->image, m.x()));
  TRYV(check_config(m));
  ContainerDir dir = TRY(Store(g.root).create(o.id));
  m.rec.id = o.id;
  Undo undo{m, dir};
  fault::point("create.claimed");
  TRYV(claim_ephemeral_uid(m));
  record_policy(m);
  TRYV(provision(m));
  TRYV(save_config(m, dir));
  TRYV(make_cgroup(m, dir));
  Created out;
  if (o.restoring) {
    out.launched = TRY(bring_back(m, dir, undo));
  } else {
    Init init = TRY(clone_init(m, dir));
    undo.how.child = init.pid;
    fault::point("create.cloned");
    TRYV(hand_over(m, dir, init));
    TRYV(wait_ready(m, init, undo));
    out.launched.pid = m.rec.pid;
    out.launched.pidfd = std::move(init.pidfd);
    if (o.start_at_once) out.init_sock = std::move(init.sock);
  }
  TRYV(save_state(m, dir));
  // clone3's pidfd pins init itself; a restored init's was opened by pid: the watchdog checks it.
  TRYV(start_wall_clock(m, dir, m.o.restoring ? -1 : out.launched.pidfd.get()));
  out.denials = TRY(start_denial_reader(m, dir));
  undo.armed = false;
  out.poststart = poststart_of(m.c());
  out.rec = std::move(m.rec);
  out.dir = std::move(dir);
  return out;
}

}  // namespace sh::lifecycle
