// pause/resume, update, pids, stats and events: each opens the container, checks that it is
// alive, and acts on its cgroup.
#include "runtime/lifecycle/ops.hpp"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/json.hpp"
#include "base/log.hpp"
#include "runtime/lifecycle/floor.hpp"
#include "runtime/lifecycle/systemd_scope.hpp"
#include "runtime/linux/apparmor.hpp"
#include "oci/spec13.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/landlock.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/seccomp.hpp"

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

bool exists(const char* path) { return ::access(path, F_OK) == 0; }

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

// The namespaces we create or join, those this kernel has (/proc/self/ns/<name>).
std::vector<std::string> host_namespaces() {
  std::vector<std::string> out;
  for (const char* t : {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"}) {
    if (ns::clone_flag(t) == 0) continue;
    if (exists(("/proc/self/ns/" + std::string(ns::proc_name(t))).c_str())) out.emplace_back(t);
  }
  return out;
}

// Every capability of this kernel that a config can name (libcap may not know the newest).
std::vector<std::string> host_capabilities() {
  std::vector<std::string> out;
  for (int c = 0; c <= caps::last_cap(); ++c) {
    std::string n = caps::name(c);
    auto back = caps::parse(n);
    if (n.starts_with("CAP_") && back && *back == c) out.push_back(std::move(n));
  }
  return out;
}

oci::Features::Seccomp seccomp_features() {
  oci::Features::Seccomp s;
  // EINVAL: a kernel without CONFIG_SECCOMP.
  s.enabled = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  if (!s.enabled) return s;
  // libseccomp's API level says what the kernel takes: 3 adds LOG and KILL_PROCESS, 5 NOTIFY.
  const unsigned api = ::seccomp_api_get();
  const std::pair<const char*, unsigned> actions[] = {
      {"SCMP_ACT_ALLOW", 1}, {"SCMP_ACT_ERRNO", 1}, {"SCMP_ACT_KILL", 1}, {"SCMP_ACT_KILL_PROCESS", 3},
      // Not SCMP_ACT_NOTIFY: create refuses it until the listener fd reaches listenerPath.
      {"SCMP_ACT_KILL_THREAD", 1}, {"SCMP_ACT_LOG", 3}, {"SCMP_ACT_TRACE", 1},
      {"SCMP_ACT_TRAP", 1},
  };
  for (const auto& [name, level] : actions)
    if (api >= level && seccomp::parse_action(name, std::nullopt)) s.actions.emplace_back(name);
  for (const char* op : {"SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_LE", "SCMP_CMP_LT",
                         "SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE"})
    if (seccomp::parse_op(op)) s.operators.emplace_back(op);
  for (const char* a : {"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM", "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
                        "SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
                        "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PARISC", "SCMP_ARCH_PARISC64",
                        "SCMP_ARCH_PPC", "SCMP_ARCH_PPC64", "SCMP_ARCH_PPC64LE", "SCMP_ARCH_RISCV64",
                        "SCMP_ARCH_S390", "SCMP_ARCH_S390X", "SCMP_ARCH_SH", "SCMP_ARCH_SHEB", "SCMP_ARCH_X32",
                        "SCMP_ARCH_X86", "SCMP_ARCH_X86_64"})
    if (seccomp::parse_arch(a)) s.archs.emplace_back(a);
  s.known_flags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                   "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"};
  // A flag is supported when a filter asking for it compiles: libseccomp refuses what it
  // or the kernel cannot do when the attribute is set.
  for (const auto& flag : s.known_flags) {
    oci::Seccomp probe;
    probe.default_action = "SCMP_ACT_ALLOW";
    probe.flags = {flag};
    if (seccomp::Filter::compile(probe)) s.supported_flags.push_back(flag);
  }
  return s;
}

// In the probe child: plain syscalls only. Returns the exit code (0: idmap works).
int idmap_probe_child() {
  ::alarm(5);  // a stuck probe must not hang `features`
  if (::unshare(CLONE_NEWNS) < 0) return 1;
  int ready[2], hold[2];
  if (::pipe2(ready, O_CLOEXEC) < 0 || ::pipe2(hold, O_CLOEXEC) < 0) return 1;
  // The mapping's owner: a helper in a new user namespace, alive until we hold an fd of it.
  pid_t helper = ::fork();
  if (helper < 0) return 1;
  if (helper == 0) {
    char c = 0;
    ::close(hold[1]);  // else it would never see EOF on hold
    if (::unshare(CLONE_NEWUSER) < 0) ::_exit(1);
    if (::write(ready[1], &c, 1) != 1) ::_exit(1);
    while (::read(hold[0], &c, 1) < 0 && errno == EINTR) {
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(hold[0]);
  char c;
  if (::read(ready[0], &c, 1) != 1) return 1;
  const char map[] = "0 100000 65536\n";
  char path[64];
  for (const char* file : {"uid_map", "gid_map"}) {
    snprintf(path, sizeof path, "/proc/%d/%s", int(helper), file);
    int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, map, sizeof map - 1) != ssize_t(sizeof map - 1)) return 1;
    ::close(fd);
  }
  snprintf(path, sizeof path, "/proc/%d/ns/user", int(helper));
  int userns = ::open(path, O_RDONLY | O_CLOEXEC);
  ::close(hold[1]);
  ::waitpid(helper, nullptr, 0);
  if (userns < 0) return 1;
  // A detached tmpfs: it is never attached anywhere, and goes with its fd.
  int fs = ::fsopen("tmpfs", FSOPEN_CLOEXEC);
  if (fs < 0 || ::fsconfig(fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) < 0) return 1;
  int mnt = ::fsmount(fs, FSMOUNT_CLOEXEC, 0);
  if (mnt < 0) return 1;
  struct mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_IDMAP;
  attr.userns_fd = uint64_t(userns);
  return ::mount_setattr(mnt, "", AT_EMPTY_PATH, &attr, sizeof attr) == 0 ? 0 : 1;
}

// Can this kernel idmap a mount (tmpfs has allowed it since 6.3)? Asked in a forked child
// with its own mount namespace, so the probe leaves nothing behind.
bool idmap_supported() {
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) ::_exit(idmap_probe_child());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

oci::Features host_features() {
  oci::Features f;
  f.hooks = {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"};
  f.mount_options = accepted_mount_options();
  f.linux.namespaces = host_namespaces();
  f.linux.capabilities = host_capabilities();
  // Both cgroup versions (and hybrid) are implemented; systemd (and a user manager) through
  // sharness-systemd on a v2 host; rdma refused.
  f.linux.cgroup = {.v1 = true, .v2 = true, .systemd = true, .systemd_user = true, .rdma = false};
  f.linux.seccomp = seccomp_features();
  // Claimed where the launch plan applies a profile (the kernel answers for AppArmor); SELinux
  // labels are refused (not implemented), so never claimed.
  f.linux.apparmor = apparmor::kernel_answers();
  f.linux.selinux = false;
  // linux.intelRdt is refused (with the field named) whether or not the host has resctrl.
  f.linux.intel_rdt = {.enabled = false, .schemata = false, .monitoring = false};
  f.linux.idmap_mounts = idmap_supported();
  f.linux.net_devices = true;  // moved over rtnetlink (runtime/linux/netdev.cpp)
  f.linux.memory_policy = {.modes = oci::memory_policy_mode_names(), .flags = oci::memory_policy_flag_names()};
  auto ll = landlock::supported();
  f.linux.landlock = {.enabled = ll.abi > 0, .abi = ll.abi, .fs = ll.fs, .net = ll.net, .scoped = ll.scoped,
                      .classes = {{"files", ll.abi >= 1},
                                  {"ports", ll.abi >= 4},
                                  {"scope", ll.abi >= 6},
                                  {"exec", ll.abi >= 1 && exists("/proc/sys/vm/memfd_noexec")}}};
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
