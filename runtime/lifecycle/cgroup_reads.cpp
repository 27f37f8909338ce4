// What the commands read of a living container's cgroup: its pids (ps), its stats, and the
// stream of stats and oom events (events, with its --interval parsed here).
#include "runtime/lifecycle/cgroup_reads.hpp"

#include <algorithm>
#include <string_view>

#include "base/json.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/linux/proc_info.hpp"

namespace sh::lifecycle {

Result<std::vector<pid_t>> pids(const Globals& g, const std::string& id) {
  // A reader, like state: no lock, so a hook of a create still holding it may ask too.
  Live c = TRY(open_live(g, id, Lock::none));
  auto cg = TRY(live_cgroup(c.rec));
  return TRYC("list processes of container " + id, cg.pids());
}

// ---- durations -------------------------------------------------------------------------------

Result<std::chrono::nanoseconds> parse_duration(const std::string& flag, const std::string& value) {
  auto bad = [&](const std::string& why) { return fail("invalid value \"" + value + "\" for --" + flag + ": " + why); };
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
  auto cg = TRY(live_cgroup(c.rec));
  return TRYC("stats of container " + id, cg.stats());
}

Result<void> events(const Globals& g, const std::string& id, std::chrono::nanoseconds interval,
                    const std::function<bool(const std::string& line)>& emit) {
  // No lock held for the stream's life: delete must not wait for a watcher.
  Live c = TRY(open_live(g, id, Lock::none));
  auto cg = TRY(live_cgroup(c.rec));
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
