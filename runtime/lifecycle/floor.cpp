// The floor held against exec and update (floor.hpp). Pure functions over the OCI model,
// unit-tested in tests/unit/test_floor.cpp; the persistence is floor.json in the state dir.
#include "runtime/lifecycle/floor.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <type_traits>

#include "base/file.hpp"
#include "base/json.hpp"
#include "oci/config_write.hpp"
#include "runtime/linux/capabilities.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::lifecycle {

namespace {

constexpr const char* kFloorFile = "floor.json";

// Only the parts of a process the floor holds.
oci::Process held_part(const oci::Process& p) {
  oci::Process out;
  out.user = p.user;
  out.capabilities = p.capabilities;
  out.no_new_privileges = p.no_new_privileges;
  out.rlimits = p.rlimits;
  out.oom_score_adj = p.oom_score_adj;
  out.scheduler = p.scheduler;
  out.io_priority = p.io_priority;
  return out;
}

void write_part(json::Writer& w, std::string_view key, const oci::Process& p, const oci::Resources& r) {
  oci::Config c;
  c.process = p;
  c.linux.resources = r;
  w.key(key).begin_object();
  oci::write_config_members(w, c);
  w.end_object();
}

Result<void> read_part(const json::Document& doc, std::string_view key, oci::Process& p, oci::Resources& r) {
  auto v = TRY(doc.root().need(key));
  TRYV(v.expect_object());
  json::Writer w;
  w.value(v.raw());
  oci::Config c = TRY(oci::parse_config(w.str(), doc.origin() + ": " + std::string(key)));
  if (!c.process) return fail(doc.origin() + ": " + std::string(key) + ".process: required");
  p = std::move(*c.process);
  r = c.linux.resources.value_or(oci::Resources{});
  return {};
}

std::string with(const Floor& f, const std::string& value) { return "(" + f.policy_id + ": " + value + ")"; }

// ---- exec -------------------------------------------------------------------------------

bool has(const std::vector<std::string>& v, const std::string& s) { return std::ranges::find(v, s) != v.end(); }

// Names as the kernel spells them ("cap_kill" -> "CAP_KILL"); unknown names are an error.
Result<std::vector<std::string>> normalise(const std::vector<std::string>& names, const std::string& what) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    int cap = TRYC(what, caps::parse(n));
    std::string name = caps::name(cap);
    if (!has(out, name)) out.push_back(std::move(name));
  }
  return out;
}

std::string list_or_none(const std::vector<std::string>& v) {
  if (v.empty()) return "none";
  std::string s;
  for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
  return s;
}

Result<void> hold_capabilities(const Floor& f, oci::Process& p, const ExecFlags& flags) {
  if (!f.applied.capabilities.bounding) return {};  // init kept the runtime's whole bounding set
  auto allowed = TRY(normalise(*f.applied.capabilities.bounding, "floor: capabilities"));
  auto refuse = [&](const std::string& cap) {
    return fail("exec: capability " + cap + " is not in the floor's set " + with(f, list_or_none(allowed)));
  };
  for (const auto& c : flags.caps) {
    int n = TRYC("exec --cap", caps::parse(c));
    if (!has(allowed, caps::name(n))) return refuse(caps::name(n));
  }
  std::vector<std::string> asked;
  const auto& a = f.asked.capabilities;
  for (auto* set : {&a.bounding, &a.effective, &a.permitted, &a.inheritable, &a.ambient})
    if (*set)
      for (const auto& n : **set)
        if (auto cap = caps::parse(n)) asked.push_back(caps::name(*cap));
  auto& c = p.capabilities;
  if (!c.bounding) c.bounding = allowed;  // absent: the runtime's own set, whose meet is the floor's
  for (auto* set : {&c.bounding, &c.effective, &c.permitted, &c.inheritable, &c.ambient}) {
    if (!*set) continue;
    std::vector<std::string> kept;
    for (const auto& n : TRY(normalise(**set, "exec: process.capabilities"))) {
      if (has(allowed, n))
        kept.push_back(n);
      else if (!has(asked, n))  // the client's own create-time capability: dropped as create did
        return refuse(n);
    }
    **set = std::move(kept);
  }
  return {};
}

std::string id_pair(uint32_t uid, uint32_t gid) { return std::to_string(uid) + ":" + std::to_string(gid); }

Result<void> hold_user(const Floor& f, oci::Process& p, const ExecFlags& flags) {
  if (!f.fixes_uid && !f.fixes_gid) return {};
  const oci::User& fu = f.applied.user;
  const oci::User& au = f.asked.user;
  auto& u = p.user;
  bool uid_ok = !f.fixes_uid || u.uid == fu.uid;
  bool gid_ok = !f.fixes_gid || u.gid == fu.gid;
  bool gids_ok = !f.fixes_uid || std::ranges::all_of(u.additional_gids, [&](uint32_t g) {
    return std::ranges::find(fu.additional_gids, g) != fu.additional_gids.end();
  });
  if (uid_ok && gid_ok && gids_ok) return {};
  bool repeat = !flags.user && !flags.additional_gids && u.uid == au.uid && u.gid == au.gid &&
                u.additional_gids == au.additional_gids;
  if (!repeat) {
    std::string floor_user = (f.fixes_uid ? std::to_string(fu.uid) : std::string("*")) + ":" +
                             (f.fixes_gid ? std::to_string(fu.gid) : std::string("*"));
    if (!uid_ok || !gid_ok)
      return fail("exec: user " + id_pair(u.uid, u.gid) + " is not the floor's user " + with(f, floor_user));
    std::vector<std::string> gids;
    for (auto g : fu.additional_gids) gids.push_back(std::to_string(g));
    for (auto g : u.additional_gids)
      if (std::ranges::find(fu.additional_gids, g) == fu.additional_gids.end())
        return fail("exec: additional gid " + std::to_string(g) + " is not in the floor's " +
                    with(f, list_or_none(gids)));
  }
  // The client's own create-time user: what create gave it.
  if (f.fixes_uid) {
    u.uid = fu.uid;
    u.additional_gids = fu.additional_gids;
  }
  if (f.fixes_gid) u.gid = fu.gid;
  return {};
}

std::string rlimit_value(uint64_t v) { return v == RLIM_INFINITY ? "unlimited" : std::to_string(v); }

Result<void> hold_rlimits(const Floor& f, oci::Process& p) {
  for (const auto& fr : f.applied.rlimits) {
    auto it = std::ranges::find_if(p.rlimits, [&](const oci::Rlimit& r) { return r.type == fr.type; });
    if (it == p.rlimits.end()) {  // absent, the process would keep the runtime's own limit
      p.rlimits.push_back(fr);
      continue;
    }
    if (it->hard <= fr.hard) continue;  // the soft limit is the process's own to raise up to hard
    auto asked = std::ranges::find_if(f.asked.rlimits, [&](const oci::Rlimit& r) { return r.type == fr.type; });
    bool repeat = asked != f.asked.rlimits.end() && asked->hard == it->hard && asked->soft == it->soft;
    if (!repeat)
      return fail("exec: rlimit " + fr.type + " " + rlimit_value(it->hard) + " is above the floor's " +
                  with(f, rlimit_value(fr.hard)));
    it->hard = fr.hard;
    it->soft = std::min(it->soft, it->hard);
  }
  return {};
}

// oomScoreAdj, scheduler and ioPriority are applied while the exec'd child still has the
// runtime's privileges: each may only tighten what init got. Where init got none (it kept the
// runtime's own), the bound is the kernel's default: oomScoreAdj 0, nice 0, no real-time
// policy, best-effort I/O priority 4 (a nice-0 process's).

std::string oom_floor(const Floor& f) {
  return f.applied.oom_score_adj ? std::to_string(*f.applied.oom_score_adj) : "0 (not set at create)";
}

Result<void> hold_oom_score_adj(const Floor& f, oci::Process& p) {
  if (!p.oom_score_adj) p.oom_score_adj = f.applied.oom_score_adj;  // else the runtime's own
  if (!p.oom_score_adj || *p.oom_score_adj >= f.applied.oom_score_adj.value_or(0)) return {};
  if (f.asked.oom_score_adj == p.oom_score_adj) {  // the client's own create-time value
    p.oom_score_adj = f.applied.oom_score_adj;
    return {};
  }
  return fail("exec: oomScoreAdj " + std::to_string(*p.oom_score_adj) + " is below the floor's " +
              with(f, oom_floor(f)));
}

bool same_scheduler(const oci::Scheduler& a, const oci::Scheduler& b) {
  return a.policy == b.policy && a.nice == b.nice && a.priority == b.priority && a.flags == b.flags &&
         a.runtime == b.runtime && a.deadline == b.deadline && a.period == b.period;
}

// Only these share the CPU by nice value; anything else (FIFO, RR, DEADLINE, an unknown name)
// is held as real-time.
bool fair_policy(const std::string& policy) {
  return policy == "SCHED_OTHER" || policy == "SCHED_BATCH" || policy == "SCHED_IDLE";
}

std::string scheduler_text(const oci::Scheduler& s) {
  if (!fair_policy(s.policy)) return s.policy + " priority " + std::to_string(s.priority.value_or(0));
  return s.policy + " nice " + std::to_string(s.nice.value_or(0));
}

Result<void> hold_scheduler(const Floor& f, oci::Process& p) {
  const auto& fs = f.applied.scheduler;
  // Left out, the runtime's own (nice 0): init's instead, unless that is real-time.
  if (!p.scheduler && fs && fair_policy(fs->policy)) p.scheduler = fs;
  if (!p.scheduler) return {};
  const oci::Scheduler& s = *p.scheduler;
  // A real-time policy only as the floor's; an idle floor stays idle (SCHED_OTHER is more CPU).
  bool not_floors = fair_policy(s.policy) ? fs && fs->policy == "SCHED_IDLE" && s.policy != "SCHED_IDLE"
                                          : !fs || !same_scheduler(s, *fs);
  int floor_nice = fs && fair_policy(fs->policy) ? fs->nice.value_or(0) : 0;
  std::string beyond;
  if (not_floors)
    beyond = "exec: scheduler " + scheduler_text(s) + " is not the floor's ";
  else if (fair_policy(s.policy) && s.nice.value_or(0) < floor_nice)
    beyond = "exec: scheduler nice " + std::to_string(s.nice.value_or(0)) + " is below the floor's ";
  if (beyond.empty()) return {};
  if (f.asked.scheduler && same_scheduler(*f.asked.scheduler, s)) {  // the client's own: what create gave
    p.scheduler = fs;
    return {};
  }
  return fail(beyond + with(f, fs ? scheduler_text(*fs) : "SCHED_OTHER nice 0 (not set at create)"));
}

// Lower is more I/O: RT 0-7, then BE 0-7, then IDLE. An unknown class ranks as RT.
int io_rank(const oci::IoPriority& p) {
  if (p.io_class == "IOPRIO_CLASS_IDLE") return 16;
  if (p.io_class == "IOPRIO_CLASS_BE") return 8 + p.priority;
  return p.priority;
}

std::string io_text(const oci::IoPriority& p) { return p.io_class + " " + std::to_string(p.priority); }

Result<void> hold_io_priority(const Floor& f, oci::Process& p) {
  static const oci::IoPriority kDefault{"IOPRIO_CLASS_BE", 4};
  const oci::IoPriority& floor = f.applied.io_priority.value_or(kDefault);
  // Left out, the runtime's own (best-effort 4): init's instead, unless that is real-time.
  if (!p.io_priority && f.applied.io_priority && io_rank(floor) >= io_rank(kDefault)) p.io_priority = floor;
  if (!p.io_priority) return {};
  if (io_rank(*p.io_priority) >= io_rank(floor)) return {};
  if (f.asked.io_priority && f.asked.io_priority->io_class == p.io_priority->io_class &&
      f.asked.io_priority->priority == p.io_priority->priority) {
    p.io_priority = f.applied.io_priority;
    return {};
  }
  return fail("exec: ioPriority " + io_text(*p.io_priority) + " is above the floor's " +
              with(f, io_text(floor) + (f.applied.io_priority ? "" : " (not set at create)")));
}

// ---- update -----------------------------------------------------------------------------

std::string describe(int64_t v, bool bytes) {
  if (v < 0) return "unlimited";
  std::string s = std::to_string(v);
  return bytes ? s + " (" + policy::format_size(uint64_t(v)) + ")" : s;
}

// One limit where absent or 0 means "unchanged" in a request and "none" on the floor, and a
// negative value means unlimited.
template <class T>
Result<void> hold_limit(const Floor& f, const char* what, std::optional<T>& req, const std::optional<T>& floor,
                        const std::optional<T>& asked, bool bytes = false) {
  auto negative = [](T v) {
    if constexpr (std::is_signed_v<T>) return v < T(0);
    return false;
  };
  if (!floor || *floor == T(0) || negative(*floor) || !req || *req == T(0)) return {};
  bool beyond = negative(*req) || *req > *floor;
  if (!beyond) return {};
  if (asked && *asked == *req) {  // the client's own create-time value: what create gave it
    req = floor;
    return {};
  }
  return fail(std::string("update: ") + what + " " + describe(int64_t(*req), bytes) + " is above the floor's " +
              with(f, describe(int64_t(*floor), bytes)));
}

template <class T, class Part>
std::optional<T> field(const std::optional<Part>& part, std::optional<T> Part::*member) {
  if (!part) return std::nullopt;
  return (*part).*member;
}

std::string cpu_share(int64_t quota, uint64_t period) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", double(quota) / double(period));
  return std::to_string(quota) + " per " + std::to_string(period) + " us, " + buf + " CPUs";
}

Result<void> hold_cpu_bandwidth(const Floor& f, oci::CpuResources& c, const std::optional<oci::CpuResources>& fc,
                                const std::optional<oci::CpuResources>& ac) {
  if (!fc || !fc->quota || *fc->quota <= 0) return {};
  int64_t fq = *fc->quota;
  uint64_t fp = fc->period && *fc->period ? *fc->period : 100000;
  bool has_q = c.quota && *c.quota != 0, has_p = c.period && *c.period != 0;
  if (!has_q && !has_p) return {};
  int64_t q = has_q ? *c.quota : fq;
  uint64_t p = has_p ? *c.period : fp;
  bool beyond = q < 0 || (unsigned __int128)uint64_t(q) * fp > (unsigned __int128)uint64_t(fq) * p;
  if (beyond) {
    bool repeat = ac && ac->quota == c.quota && (!has_p || ac->period == c.period);
    if (!repeat)
      return fail("update: CPU quota " + (q < 0 ? std::string("unlimited") : cpu_share(q, p)) +
                  " is above the floor's " + with(f, cpu_share(fq, fp)));
    q = fq;
    p = fp;
  }
  c.quota = q;  // both halves written: the ratio checked is the one the cgroup gets
  c.period = p;
  return {};
}

Result<void> hold_cpuset(const Floor& f, const char* what, std::optional<std::string>& req,
                         const std::optional<std::string>& floor, const std::optional<std::string>& asked) {
  if (!floor || floor->empty() || !req || req->empty()) return {};
  auto have = TRY(parse_cpu_list(*floor, std::string("floor: cpuset ") + what));
  auto want = TRY(parse_cpu_list(*req, std::string("update: cpuset ") + what));
  if (std::ranges::all_of(want, [&](unsigned n) { return std::ranges::binary_search(have, n); })) return {};
  if (asked && *asked == *req) {
    req = floor;
    return {};
  }
  return fail(std::string("update: cpuset ") + what + " " + *req + " is not within the floor's " + with(f, *floor));
}

Result<void> hold_throttles(const Floor& f, const char* what, std::vector<oci::BlockIoDevice>& req,
                            const std::vector<oci::BlockIoDevice>& floor, const std::vector<oci::BlockIoDevice>& asked) {
  for (auto& d : req) {
    auto same = [&](const oci::BlockIoDevice& o) { return o.major == d.major && o.minor == d.minor; };
    auto fl = std::ranges::find_if(floor, same);
    if (fl == floor.end() || fl->rate == 0) continue;
    if (d.rate != 0 && d.rate <= fl->rate) continue;  // 0 removes the throttle
    auto as = std::ranges::find_if(asked, same);
    if (as != asked.end() && as->rate == d.rate) {
      d.rate = fl->rate;
      continue;
    }
    std::string dev = std::to_string(d.major) + ":" + std::to_string(d.minor);
    return fail(std::string("update: blockIO ") + what + " " + dev + " " +
                (d.rate ? std::to_string(d.rate) : std::string("unlimited")) + " is above the floor's " +
                with(f, std::to_string(fl->rate)));
  }
  return {};
}

}  // namespace

Result<std::vector<unsigned>> parse_cpu_list(std::string_view list, const std::string& what) {
  std::vector<unsigned> out;
  auto bad = [&] { return fail(what + ": \"" + std::string(list) + "\" is not a list like 0-3,5"); };
  size_t i = 0;
  auto number = [&](unsigned& n) {
    auto [end, ec] = std::from_chars(list.data() + i, list.data() + list.size(), n);
    if (ec != std::errc() || end == list.data() + i || n > 65535) return false;
    i = size_t(end - list.data());
    return true;
  };
  while (i < list.size()) {
    unsigned lo = 0, hi = 0;
    if (!number(lo)) return bad();
    hi = lo;
    if (i < list.size() && list[i] == '-' && (++i, !number(hi))) return bad();
    if (hi < lo) return bad();
    for (unsigned n = lo; n <= hi; ++n) out.push_back(n);
    if (i < list.size() && (list[i] != ',' || ++i == list.size())) return bad();
  }
  std::ranges::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Floor make_floor(const policy::Extension& ext, FloorIdentity fixed, const oci::Config& applied,
                 const oci::Process& asked_process, const std::optional<oci::Resources>& asked_resources) {
  Floor f;
  f.policy_id = ext.policy_id;
  f.policy_hash = ext.policy_hash;
  f.fixes_uid = fixed.uid || ext.ephemeral_uid;
  f.fixes_gid = fixed.gid || ext.ephemeral_gid;
  if (applied.process) f.applied = held_part(*applied.process);
  f.applied_resources = applied.linux.resources.value_or(oci::Resources{});
  f.applied_resources.devices.clear();  // fixed at create; update never touches them
  f.asked = held_part(asked_process);
  f.asked_resources = asked_resources.value_or(oci::Resources{});
  f.asked_resources.devices.clear();
  return f;
}

std::string floor_to_json(const Floor& f) {
  json::Writer w;
  w.begin_object();
  w.key("policy").begin_object().kv("id", f.policy_id).kv("hash", f.policy_hash).end_object();
  w.kv("fixesUid", f.fixes_uid).kv("fixesGid", f.fixes_gid);
  write_part(w, "applied", f.applied, f.applied_resources);
  write_part(w, "asked", f.asked, f.asked_resources);
  w.end_object();
  return w.str();
}

Result<Floor> parse_floor(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  TRYV(root.expect_object());
  TRYV(root.only_keys({"policy", "fixesUid", "fixesGid", "applied", "asked"}));
  Floor f;
  auto pol = TRY(root.need("policy"));
  TRYV(pol.expect_object());
  f.policy_id = TRY(TRY(pol.need("id")).as_string());
  f.policy_hash = TRY(TRY(pol.need("hash")).as_string());
  f.fixes_uid = TRY(TRY(root.need("fixesUid")).as_bool());
  f.fixes_gid = TRY(TRY(root.need("fixesGid")).as_bool());
  TRYV(read_part(doc, "applied", f.applied, f.applied_resources));
  TRYV(read_part(doc, "asked", f.asked, f.asked_resources));
  return f;
}

Result<void> save_floor(const ContainerDir& dir, const Floor& f) {
  TRYVC("container " + dir.id() + ": save its floor", dir.write_atomic(kFloorFile, floor_to_json(f)));
  return {};
}

Result<std::optional<Floor>> load_floor(const ContainerDir& dir, const Record& rec) {
  if (!rec.floor) return std::optional<Floor>();
  // Fails closed: a container created under a floor is never exec'd or updated without it.
  auto text = read_file_at(dir.fd(), kFloorFile, 4u << 20);
  if (!text) return fail(Error(text.error()).context("container " + rec.id + ": read its floor"));
  return std::optional<Floor>(TRY(parse_floor(*text, dir.path() + "/" + kFloorFile)));
}

Result<void> hold_exec(const Floor& f, oci::Process& p, const ExecFlags& flags) {
  TRYV(hold_user(f, p, flags));
  TRYV(hold_capabilities(f, p, flags));
  if (f.applied.no_new_privileges) p.no_new_privileges = true;
  TRYV(hold_rlimits(f, p));
  TRYV(hold_oom_score_adj(f, p));
  TRYV(hold_scheduler(f, p));
  TRYV(hold_io_priority(f, p));
  return {};
}

Result<void> hold_update(const Floor& f, oci::Resources& r) {
  const oci::Resources& fl = f.applied_resources;
  const oci::Resources& as = f.asked_resources;
  if (r.memory) {
    auto& m = *r.memory;
    using M = oci::MemoryResources;
    TRYV(hold_limit(f, "memory limit", m.limit, field(fl.memory, &M::limit), field(as.memory, &M::limit), true));
    TRYV(hold_limit(f, "memory+swap limit", m.swap, field(fl.memory, &M::swap), field(as.memory, &M::swap), true));
    TRYV(hold_limit(f, "memory reservation", m.reservation, field(fl.memory, &M::reservation),
                    field(as.memory, &M::reservation), true));
    TRYV(hold_limit(f, "kernel memory limit", m.kernel, field(fl.memory, &M::kernel), field(as.memory, &M::kernel),
                    true));
    TRYV(hold_limit(f, "kernel TCP memory limit", m.kernel_tcp, field(fl.memory, &M::kernel_tcp),
                    field(as.memory, &M::kernel_tcp), true));
  }
  if (r.pids) {
    std::optional<int64_t> req = r.pids->limit;
    std::optional<int64_t> floor = fl.pids ? std::optional<int64_t>(fl.pids->limit) : std::nullopt;
    std::optional<int64_t> asked = as.pids ? std::optional<int64_t>(as.pids->limit) : std::nullopt;
    TRYV(hold_limit(f, "pids limit", req, floor, asked));
    r.pids->limit = *req;
  }
  if (r.cpu) {
    auto& c = *r.cpu;
    using C = oci::CpuResources;
    TRYV(hold_limit(f, "CPU shares", c.shares, field(fl.cpu, &C::shares), field(as.cpu, &C::shares)));
    TRYV(hold_cpu_bandwidth(f, c, fl.cpu, as.cpu));
    if (fl.cpu && fl.cpu->quota && *fl.cpu->quota > 0) {
      // Burst lets a cgroup run past its quota: with a CPU floor, none beyond the floor's (0 if unset).
      std::optional<uint64_t> floor_burst = field(fl.cpu, &C::burst).value_or(0);
      if (c.burst && *c.burst > *floor_burst) {
        if (!(as.cpu && as.cpu->burst == c.burst))
          return fail("update: CPU burst " + std::to_string(*c.burst) + " is above the floor's " +
                      with(f, std::to_string(*floor_burst)));
        c.burst = floor_burst;
      }
    }
    // Realtime runtime: a cgroup made at create has none unless the config gave one.
    int64_t floor_rt = field(fl.cpu, &C::realtime_runtime).value_or(0);
    if (c.realtime_runtime && *c.realtime_runtime != 0 &&
        (*c.realtime_runtime < 0 || *c.realtime_runtime > std::max<int64_t>(floor_rt, 0))) {
      if (!(as.cpu && as.cpu->realtime_runtime == c.realtime_runtime))
        return fail("update: CPU realtime runtime " + describe(*c.realtime_runtime, false) +
                    " is above the floor's " + with(f, std::to_string(std::max<int64_t>(floor_rt, 0))));
      c.realtime_runtime = floor_rt;
    }
    TRYV(hold_cpuset(f, "cpus", c.cpus, field(fl.cpu, &C::cpus), field(as.cpu, &C::cpus)));
    TRYV(hold_cpuset(f, "mems", c.mems, field(fl.cpu, &C::mems), field(as.cpu, &C::mems)));
  }
  if (r.block_io) {
    auto& b = *r.block_io;
    using B = oci::BlockIoResources;
    TRYV(hold_limit(f, "blockIO weight", b.weight, field(fl.block_io, &B::weight), field(as.block_io, &B::weight)));
    TRYV(hold_limit(f, "blockIO leaf weight", b.leaf_weight, field(fl.block_io, &B::leaf_weight),
                    field(as.block_io, &B::leaf_weight)));
    static const std::vector<oci::BlockIoDevice> none;
    auto fb = [&](auto member) -> const std::vector<oci::BlockIoDevice>& {
      return fl.block_io ? (*fl.block_io).*member : none;
    };
    auto ab = [&](auto member) -> const std::vector<oci::BlockIoDevice>& {
      return as.block_io ? (*as.block_io).*member : none;
    };
    TRYV(hold_throttles(f, "read bps", b.throttle_read_bps, fb(&B::throttle_read_bps), ab(&B::throttle_read_bps)));
    TRYV(hold_throttles(f, "write bps", b.throttle_write_bps, fb(&B::throttle_write_bps), ab(&B::throttle_write_bps)));
    TRYV(hold_throttles(f, "read iops", b.throttle_read_iops, fb(&B::throttle_read_iops), ab(&B::throttle_read_iops)));
    TRYV(hold_throttles(f, "write iops", b.throttle_write_iops, fb(&B::throttle_write_iops),
                        ab(&B::throttle_write_iops)));
  }
  for (auto& h : r.hugepage_limits) {
    auto fh = std::ranges::find_if(fl.hugepage_limits, [&](const oci::HugepageLimit& o) { return o.page_size == h.page_size; });
    if (fh == fl.hugepage_limits.end() || h.limit <= fh->limit) continue;
    auto ah = std::ranges::find_if(as.hugepage_limits, [&](const oci::HugepageLimit& o) { return o.page_size == h.page_size; });
    if (ah != as.hugepage_limits.end() && ah->limit == h.limit) {
      h.limit = fh->limit;
      continue;
    }
    return fail("update: hugepage limit " + h.page_size + " " + describe(int64_t(h.limit), true) +
                " is above the floor's " + with(f, describe(int64_t(fh->limit), true)));
  }
  for (auto& [key, value] : r.unified) {
    // A cgroup file written as is could undo any bound above (pids.max, memory.max, cpu.max):
    // only what create wrote, or the client repeating its own create-time entry, passes.
    auto fu = fl.unified.find(key);
    if (fu != fl.unified.end() && fu->second == value) continue;
    auto au = as.unified.find(key);
    if (au != as.unified.end() && au->second == value && fu != fl.unified.end()) {
      value = fu->second;
      continue;
    }
    return fail("update: linux.resources.unified[\"" + key + "\"] = \"" + value +
                "\" is refused under the floor " + with(f, fu == fl.unified.end() ? "not set" : fu->second) +
                ": a cgroup file written as is could pass the floor's bounds; use the typed fields");
  }
  return {};
}

}  // namespace sh::lifecycle
