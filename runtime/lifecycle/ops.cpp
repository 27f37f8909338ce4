// pause/resume, update, pids, stats and events: each opens the container, checks that it is
// alive, and acts on its cgroup.
#include "runtime/lifecycle/ops.hpp"

#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/json.hpp"
#include "base/log.hpp"
#include "runtime/lifecycle/floor.hpp"
#include "runtime/lifecycle/systemd_scope.hpp"
#include "oci/spec13.hpp"
#include "runtime/linux/landlock.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/rootfs.hpp"

namespace sh::lifecycle {

namespace {

Result<cgroups::Cgroup> cgroup_of(const Record& r) {
  if (r.cgroup_path.empty()) return fail("container " + r.id + " has no cgroup");
  auto layout = TRY(cgroups::detect_layout());
  return cgroups::Cgroup(std::move(layout), r.cgroup_path);
}

// A container that has processes: its locked (or not) dir, its record and status.
struct Live {
  ContainerDir dir;
  Record rec;
  Status status;
};

Result<Live> open_live(const Globals& g, const std::string& id, Lock lock) {
  Store store(g.root);
  ContainerDir dir = TRY(store.open(id, lock));
  Record rec = TRY(dir.load());
  Status s = status_of(rec);
  if (s == Status::stopped) return fail("container " + id + " is not running (it is stopped)");
  if (s == Status::creating) return fail("container " + id + " is not running (it is being created)");
  return Live{std::move(dir), std::move(rec), s};
}

}  // namespace

// ---- pause / resume ------------------------------------------------------------------------

Result<void> pause(const Globals& g, const std::string& id) {
  Live c = TRY(open_live(g, id, Lock::exclusive));
  if (c.status != Status::running)
    return fail("container " + id + " is not running (it is " + status_name(c.status) + ")");
  auto cg = TRY(cgroup_of(c.rec));
  if (auto r = cg.freeze(true); !r) {
    // A freeze that failed half way can leave some tasks frozen: never leave it like that.
    if (auto t = cg.freeze(false); !t) log::warn("pause " + id + ": thaw after failure: " + t.error().what());
    return fail(std::move(r.error()).context("pause container " + id));
  }
  return {};
}

Result<void> resume(const Globals& g, const std::string& id) {
  Live c = TRY(open_live(g, id, Lock::exclusive));
  if (c.status != Status::paused)
    return fail("container " + id + " is not paused (it is " + status_name(c.status) + ")");
  auto cg = TRY(cgroup_of(c.rec));
  TRYVC("resume container " + id, cg.freeze(false));
  return {};
}

// ---- pids ------------------------------------------------------------------------------------

Result<std::vector<pid_t>> pids(const Globals& g, const std::string& id) {
  // A reader, like state: no lock, so a hook of a create still holding it may ask too.
  Live c = TRY(open_live(g, id, Lock::none));
  auto cg = TRY(cgroup_of(c.rec));
  return TRYC("list processes of container " + id, cg.pids());
}

// ---- update ----------------------------------------------------------------------------------

Result<void> update(const Globals& g, const std::string& id, const oci::Resources& res) {
  Live c = TRY(open_live(g, id, Lock::exclusive));
  // Created under a policy: no limit goes above the floor create recorded (floor.hpp).
  oci::Resources held = res;
  if (auto floor = TRY(load_floor(c.dir, c.rec))) TRYV(hold_update(*floor, held));
  auto cg = TRY(cgroup_of(c.rec));
  // --systemd-cgroup: the unit's properties first (SetUnitProperties, until the unit goes), so
  // systemd does not put back the old values later, then the files, as at create.
  if (!c.rec.systemd_unit.empty()) {
    auto props = TRYC("update container " + id, systemd::resource_properties(held));
    if (!props.empty()) TRYVC("update container " + id, systemd_scope::set(c.rec.systemd_unit, c.rec.systemd_user, props));
  }
  TRYVC("update container " + id, cg.update(held));
  return {};
}

const std::vector<std::vector<std::string>>& update_flags() {
  static const std::vector<std::vector<std::string>> k = {
      {"memory"},        {"memory-reservation"}, {"memory-swap"},     {"kernel-memory"},
      {"kernel-memory-tcp"}, {"cpu-share", "cpu-shares"}, {"cpu-period"}, {"cpu-quota"},
      {"cpu-rt-period"}, {"cpu-rt-runtime"},     {"cpuset-cpus"},     {"cpuset-mems"},
      {"pids-limit"},    {"blkio-weight"},       {"l3-cache-schema"}, {"mem-bw-schema"},
  };
  return k;
}

namespace {

std::unexpected<Error> bad_value(const std::string& flag, const std::string& value, const std::string& why) {
  return fail("invalid value \"" + value + "\" for --" + flag + ": " + why);
}

template <class T>
Result<T> parse_int(const std::string& flag, const std::string& value, T lo, T hi) {
  T v{};
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < lo || v > hi)
    return bad_value(flag, value, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

// cpuset lists: "0-3,5,7-8".
Result<std::string> parse_cpuset(const std::string& flag, const std::string& value) {
  bool ok = true;
  size_t i = 0;
  auto number = [&] {
    size_t start = i;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') ++i;
    return i > start;
  };
  do {
    ok = number();
    if (ok && i < value.size() && value[i] == '-') {
      ++i;
      ok = number();
    }
  } while (ok && i < value.size() && value[i] == ',' && ++i);
  if (!ok || i != value.size()) return bad_value(flag, value, "expected a list like 0-3,5");
  return value;
}

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

}  // namespace

Result<int64_t> parse_memory_size(const std::string& flag, const std::string& value) {
  if (value == "-1") return -1;
  auto bad = [&] { return bad_value(flag, value, "expected a size like 1048576, 256m or 1g, or -1 for unlimited"); };
  size_t i = 0;
  auto digits = [&](size_t& count) {
    size_t start = i;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') ++i;
    count = i - start;
    return value.substr(start, count);
  };
  size_t n_int = 0, n_frac = 0;
  std::string whole = digits(n_int), frac;
  if (n_int == 0) return bad();
  if (i < value.size() && value[i] == '.') {
    ++i;
    frac = digits(n_frac);
    if (n_frac == 0) return bad();
  }
  static constexpr std::string_view kUnits = "kmgtp";
  auto unit_at = [&](size_t k) {
    return k < value.size() ? kUnits.find(char(std::tolower((unsigned char)value[k]))) : std::string_view::npos;
  };
  if (i < value.size() && value[i] == ' ' && unit_at(i + 1) != std::string_view::npos) ++i;  // "256 m"
  int shift = 0;
  if (i < value.size()) {
    auto u = unit_at(i);
    if (u != std::string_view::npos) {
      shift = int(u + 1) * 10;
      ++i;
      if (i < value.size() && (value[i] == 'i' || value[i] == 'I')) ++i;
    }
  }
  if (i < value.size() && (value[i] == 'b' || value[i] == 'B')) ++i;
  if (i != value.size()) return bad();
  // Exact arithmetic: whole * 2^shift + frac * 2^shift / 10^len(frac), truncated.
  if (n_int > 19) return bad_value(flag, value, "too large");
  unsigned __int128 mult = (unsigned __int128)1 << shift;
  unsigned __int128 total = (unsigned __int128)std::stoull(whole) * mult;
  if (!frac.empty()) {
    frac.resize(std::min<size_t>(frac.size(), 18));
    unsigned __int128 scale = 1;
    for (size_t k = 0; k < frac.size(); ++k) scale *= 10;
    total += (unsigned __int128)std::stoull(frac) * mult / scale;
  }
  if (total > (unsigned __int128)kI64Max) return bad_value(flag, value, "too large");
  return int64_t(total);
}

Result<oci::Resources> update_resources(std::optional<oci::Resources> json,
                                        const std::map<std::string, std::string>& flags) {
  oci::Resources r = json ? std::move(*json) : oci::Resources{};
  auto mem = [&]() -> oci::MemoryResources& { return r.memory ? *r.memory : r.memory.emplace(); };
  auto cpu = [&]() -> oci::CpuResources& { return r.cpu ? *r.cpu : r.cpu.emplace(); };
  for (const auto& [flag, value] : flags) {
    if (value.empty()) continue;  // runc: an empty value means the flag was not given
    if (flag == "memory") {
      mem().limit = TRY(parse_memory_size(flag, value));
    } else if (flag == "memory-reservation") {
      mem().reservation = TRY(parse_memory_size(flag, value));
    } else if (flag == "memory-swap") {
      mem().swap = TRY(parse_memory_size(flag, value));
    } else if (flag == "kernel-memory") {
      mem().kernel = TRY(parse_memory_size(flag, value));
    } else if (flag == "kernel-memory-tcp") {
      mem().kernel_tcp = TRY(parse_memory_size(flag, value));
    } else if (flag == "cpu-share") {
      cpu().shares = TRY(parse_int<uint64_t>(flag, value, 0, std::numeric_limits<uint64_t>::max()));
    } else if (flag == "cpu-period") {
      cpu().period = TRY(parse_int<uint64_t>(flag, value, 0, std::numeric_limits<uint64_t>::max()));
    } else if (flag == "cpu-quota") {
      cpu().quota = TRY(parse_int<int64_t>(flag, value, -1, kI64Max));
    } else if (flag == "cpu-rt-period") {
      cpu().realtime_period = TRY(parse_int<uint64_t>(flag, value, 0, std::numeric_limits<uint64_t>::max()));
    } else if (flag == "cpu-rt-runtime") {
      cpu().realtime_runtime = TRY(parse_int<int64_t>(flag, value, -1, kI64Max));
    } else if (flag == "cpuset-cpus") {
      cpu().cpus = TRY(parse_cpuset(flag, value));
    } else if (flag == "cpuset-mems") {
      cpu().mems = TRY(parse_cpuset(flag, value));
    } else if (flag == "pids-limit") {
      int64_t v = TRY(parse_int<int64_t>(flag, value, std::numeric_limits<int64_t>::min(), kI64Max));
      r.pids = oci::PidsResources{v < 0 ? -1 : v};
    } else if (flag == "blkio-weight") {
      uint16_t w = TRY(parse_int<uint16_t>(flag, value, 0, 1000));
      if (w != 0 && w < 10) return bad_value(flag, value, "expected 10..1000 (or 0 for unchanged)");
      if (!r.block_io) r.block_io.emplace();
      r.block_io->weight = w;
    } else if (flag == "l3-cache-schema" || flag == "mem-bw-schema") {
      return fail("--" + flag + ": Intel RDT is not supported by this runtime");
    } else {
      return fail("update: unknown resource flag --" + flag);
    }
  }
  // runc reads 0 as "leave as is" for these; the cgroup code would read it as "unlimited".
  if (r.pids && r.pids->limit == 0) r.pids.reset();
  if (r.block_io && r.block_io->weight == uint16_t(0)) r.block_io->weight.reset();
  // Device rules are fixed at create: re-writing a v1 list starts with deny-all, which would
  // briefly cut a running container off its devices. runc's update ignores them too.
  if (!r.devices.empty()) {
    log::debug("update: linux.resources.devices ignored (device rules are set at create)");
    r.devices.clear();
  }
  return r;
}

// ---- durations -------------------------------------------------------------------------------

Result<std::chrono::nanoseconds> parse_duration(const std::string& flag, const std::string& value) {
  auto bad = [&](const std::string& why) { return bad_value(flag, value, why); };
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1},     {"us", 1e3},      {"\xc2\xb5s", 1e3}, {"\xce\xbcs", 1e3},  // µs (micro sign, mu)
      {"ms", 1e6},   {"s", 1e9},       {"m", 60e9},        {"h", 3600e9},
  };
  if (value.empty()) return bad("expected a duration like 500ms, 5s or 1m");
  long double total = 0;
  size_t i = 0;
  while (i < value.size()) {
    size_t start = i;
    while (i < value.size() && (std::isdigit((unsigned char)value[i]) || value[i] == '.')) ++i;
    std::string num = value.substr(start, i - start);
    if (num.empty() || num == "." || std::count(num.begin(), num.end(), '.') > 1)
      return bad("expected a duration like 500ms, 5s or 1m");
    size_t ustart = i;
    while (i < value.size() && !std::isdigit((unsigned char)value[i]) && value[i] != '.') ++i;
    std::string_view unit = std::string_view(value).substr(ustart, i - ustart);
    const double* scale = nullptr;
    for (const auto& [name, s] : kUnits)
      if (name == unit) scale = &s;
    if (!scale) return bad(unit.empty() ? "missing unit (ns, us, ms, s, m, h)" : "unknown unit \"" + std::string(unit) + "\"");
    total += std::stold(num) * *scale;
  }
  if (total < 1) return bad("must be greater than 0");
  if (total > 9.2e18L) return bad("too large");
  return std::chrono::nanoseconds(int64_t(total));
}

// ---- stats and events ------------------------------------------------------------------------

std::string stats_event_json(const std::string& id, const cgroups::Cgroup::Stats& s) {
  json::Writer w;
  w.begin_object().kv("type", "stats").kv("id", id).key("data").begin_object();
  w.key("cpu").begin_object().key("usage").begin_object().key("total").uinteger(s.cpu_usage_ns);
  w.end_object().end_object();
  w.key("memory").begin_object().key("usage").begin_object();
  w.key("usage").uinteger(s.memory_usage).key("limit").uinteger(s.memory_limit).key("max").uinteger(s.memory_max_usage);
  w.end_object().key("raw").begin_object().end_object().end_object();
  w.key("pids").begin_object().key("current").uinteger(s.pids_current).key("limit").uinteger(s.pids_limit);
  w.end_object();
  w.end_object().end_object();
  return w.str();
}

std::string oom_event_json(const std::string& id) {
  json::Writer w;
  w.begin_object().kv("type", "oom").kv("id", id).end_object();
  return w.str();
}

Result<cgroups::Cgroup::Stats> stats(const Globals& g, const std::string& id) {
  Live c = TRY(open_live(g, id, Lock::none));
  auto cg = TRY(cgroup_of(c.rec));
  return TRYC("stats of container " + id, cg.stats());
}

Result<void> events(const Globals& g, const std::string& id, std::chrono::nanoseconds interval,
                    const std::function<bool(const std::string& line)>& emit) {
  // No lock held for the stream's life: delete must not wait for a watcher.
  Live c = TRY(open_live(g, id, Lock::none));
  auto cg = TRY(cgroup_of(c.rec));
  Fd pidfd = init_pidfd(c.rec);
  if (!pidfd) return {};  // stopped between the status check and now
  uint64_t ooms = TRYC("stats of container " + id, cg.stats()).oom_kills;
  for (;;) {
    bool exited = proc::exits_within(pidfd.get(), interval);
    // Sampled even when init just exited: an OOM kill of init is the event worth reporting.
    auto s = cg.stats();
    if (s && s->oom_kills > ooms) {
      if (!emit(oom_event_json(id))) return {};
      ooms = s->oom_kills;
    }
    if (exited || status_of(c.rec) == Status::stopped) return {};
    if (!s) return fail(std::move(s.error()).context("stats of container " + id));
    if (!emit(stats_event_json(id, *s))) return {};
  }
}

}  // namespace sh::lifecycle

// ---- features ------------------------------------------------------------------------------
namespace sh::lifecycle {
namespace {

// Candidates are the names this runtime's option parser has; keeping only those it really
// takes as options (not as filesystem data) keeps the list honest if the parser changes.
std::vector<std::string> accepted_mount_options() {
  static constexpr const char* kCandidates[] = {
      "async",     "atime",      "bind",        "defaults",     "dev",           "diratime",    "dirsync",
      "exec",      "idmap",      "iversion",    "lazytime",     "loud",          "mand",        "noatime",
      "nodev",     "nodiratime", "noexec",      "noiversion",   "nolazytime",    "nomand",      "norelatime",
      "nostrictatime", "nosuid", "nosymfollow", "private",      "ratime",        "rbind",       "rdev",
      "rdiratime", "relatime",   "remount",     "rexec",        "ridmap",        "rnoatime",    "rnodev",
      "rnodiratime", "rnoexec",  "rnorelatime", "rnostrictatime", "rnosuid",     "rnosymfollow", "ro",
      "rprivate",  "rrelatime",  "rro",         "rrw",          "rshared",       "rslave",      "rstrictatime",
      "rsuid",     "rsymfollow", "runbindable", "rw",           "shared",        "silent",      "slave",
      "strictatime", "suid",     "symfollow",   "sync",         "tmpcopyup",     "unbindable",
  };
  std::vector<std::string> out;
  for (const char* o : kCandidates) {
    auto f = rootfs::parse_mount_options({o});
    if (f.data.empty()) out.emplace_back(o);
  }
  return out;
}

}  // namespace

oci::Features host_features(const host::Facts& host) {
  oci::Features f;
  f.hooks = {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"};
  f.mount_options = accepted_mount_options();
  f.linux.namespaces.assign(host.namespaces.begin(), host.namespaces.end());
  f.linux.capabilities = host.capabilities;
  // Both cgroup versions (and hybrid) are implemented; systemd (and a user manager) through
  // sharness-systemd on a v2 host; rdma refused.
  f.linux.cgroup = {.v1 = true, .v2 = true, .systemd = true, .systemd_user = true, .rdma = false};
  f.linux.seccomp.enabled = host.seccomp && host.seccomp_detail;
  if (f.linux.seccomp.enabled) {
    const auto& s = *host.seccomp_detail;
    f.linux.seccomp = {true, s.actions, s.operators, s.archs, s.known_flags, s.supported_flags};
  }
  // Claimed where the launch plan applies a profile (the kernel answers for AppArmor); SELinux
  // labels are refused (not implemented), so never claimed.
  f.linux.apparmor = host.apparmor;
  f.linux.selinux = false;
  // linux.intelRdt is refused (with the field named) whether or not the host has resctrl.
  f.linux.intel_rdt = {.enabled = false, .schemata = false, .monitoring = false};
  f.linux.idmap_mounts = host.idmap_mounts;
  f.linux.net_devices = true;  // moved over rtnetlink (runtime/linux/netdev.cpp)
  f.linux.memory_policy = {.modes = oci::memory_policy_mode_names(), .flags = oci::memory_policy_flag_names()};
  auto ll = landlock::supported(host.landlock_abi);
  f.linux.landlock = {.enabled = ll.abi > 0, .abi = ll.abi, .fs = ll.fs, .net = ll.net, .scoped = ll.scoped,
                      .classes = {{"files", ll.abi >= 1},
                                  {"ports", ll.abi >= 4},
                                  {"scope", ll.abi >= 6},
                                  {"exec", ll.abi >= 1 && host.memfd_noexec}}};
  f.annotations["org.sharness.landlock.abi"] = std::to_string(ll.abi);
  const struct scmp_version* v = ::seccomp_version();
  f.annotations["io.github.seccomp.libseccomp.version"] =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->micro);
  f.annotations["org.opencontainers.runc.checkpoint.enabled"] = "false";
  // The policy annotation changes what the container may do (it can only tighten, but a
  // client that strips unknown annotations should know this one matters).
  f.unsafe_annotations = {"org.sharness.policy"};
  return f;
}

}  // namespace sh::lifecycle
