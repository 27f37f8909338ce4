// OCI resources to cgroup v2 files (Documentation/admin-guide/cgroup-v2.rst).
#include <algorithm>
#include <cerrno>
#include <map>

#include "base/log.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/cgroups_impl.hpp"

namespace sh::cgroups {

uint64_t shares_to_weight(uint64_t shares) {
  if (shares == 0) return 0;  // unset
  shares = std::clamp<uint64_t>(shares, 2, 262144);
  // Linear map of [2, 262144] onto [1, 10000], the formula runc and crun agree on.
  return 1 + ((shares - 2) * 9999) / 262142;
}

namespace detail::v2 {
namespace {

std::string max_or(int64_t v) { return v < 0 ? "max" : std::to_string(v); }

std::string dev(const oci::BlockIoDevice& d) { return std::to_string(d.major) + ":" + std::to_string(d.minor); }

// OCI memory.swap is memory+swap (the v1 memsw); v2's memory.swap.max is swap alone.
Result<std::optional<std::string>> swap_value(const oci::MemoryResources& m) {
  if (!m.swap || *m.swap == 0) return std::nullopt;
  if (*m.swap < 0) return std::optional<std::string>("max");
  if (!m.limit || *m.limit <= 0)
    return fail("linux.resources.memory.swap: a swap limit needs a memory limit on cgroup v2");
  if (*m.limit > *m.swap)
    return fail("linux.resources.memory.swap: " + std::to_string(*m.swap) +
                " (memory+swap) is below the memory limit " + std::to_string(*m.limit));
  return std::optional<std::string>(std::to_string(*m.swap - *m.limit));
}

// BFQ takes the OCI range (1..1000) as is; io.weight (iocost) wants 1..10000.
std::optional<std::pair<std::string, uint64_t>> weight_target(const Dir& d, uint64_t w) {
  if (d.has("io.bfq.weight")) return std::pair<std::string, uint64_t>("io.bfq.weight", w);
  if (d.has("io.weight")) return std::pair<std::string, uint64_t>("io.weight", blkio_to_io_weight(w));
  return std::nullopt;
}

}  // namespace

uint64_t blkio_to_io_weight(uint64_t w) {
  if (w == 0) return 0;
  w = std::clamp<uint64_t>(w, 10, 1000);
  return 1 + (w - 10) * 9999 / 990;
}

Result<void> memory(const Dir& d, const oci::MemoryResources& m, bool updating) {
  if (m.kernel || m.kernel_tcp) log::debug("linux.resources.memory.kernel/kernelTCP: not on cgroup v2, ignored");
  if (m.swappiness && *m.swappiness != UINT64_MAX)
    log::warn("linux.resources.memory.swappiness: no per-cgroup swappiness on cgroup v2: not applied");
  if (m.disable_oom_killer.value_or(false))
    log::warn("linux.resources.memory.disableOOMKiller: cgroup v2 cannot disable the OOM killer: not applied");
  if (updating && m.check_before_update.value_or(false) && m.limit && *m.limit > 0) {
    uint64_t usage = parse_u64(TRY(d.read("memory.current"))).value_or(0);
    if (uint64_t(*m.limit) < usage)
      return fail("linux.resources.memory.limit: " + std::to_string(*m.limit) + " is below the current usage " +
                  std::to_string(usage));
  }
  auto swap = TRY(swap_value(m));
  if (swap) {
    if (d.has("memory.swap.max"))
      TRYV(d.write("memory.swap.max", *swap));
    else
      log::warn("linux.resources.memory.swap: swap accounting is off on this host (no " +
                d.file_path("memory.swap.max") + "): swap limit not applied");
  }
  if (m.limit && *m.limit != 0) TRYV(d.write("memory.max", max_or(*m.limit)));
  if (m.reservation && *m.reservation != 0) TRYV(d.write("memory.low", std::to_string(*m.reservation)));
  return {};
}

Result<void> cpu(const Dir& d, const oci::CpuResources& c) {
  if (c.shares && *c.shares != 0) TRYV(d.write("cpu.weight", std::to_string(shares_to_weight(*c.shares))));
  bool has_quota = c.quota && *c.quota != 0, has_period = c.period && *c.period != 0;
  if (has_quota || has_period) {
    // cpu.max is "quota period"; a period alone keeps the current quota.
    std::string quota;
    if (has_quota) {
      quota = max_or(*c.quota);
    } else {
      std::string cur = TRY(d.read_trimmed("cpu.max"));
      quota = cur.substr(0, cur.find(' '));
    }
    TRYV(d.write("cpu.max", has_period ? quota + " " + std::to_string(*c.period) : quota));
  }
  if (c.burst) {
    if (d.has("cpu.max.burst"))
      TRYV(d.write("cpu.max.burst", std::to_string(*c.burst)));
    else
      log::warn("linux.resources.cpu.burst: kernel has no cpu.max.burst: not applied");
  }
  if (c.idle) {
    if (d.has("cpu.idle"))
      TRYV(d.write("cpu.idle", std::to_string(*c.idle)));
    else
      log::warn("linux.resources.cpu.idle: kernel has no cpu.idle: not applied");
  }
  if ((c.realtime_runtime && *c.realtime_runtime != 0) || (c.realtime_period && *c.realtime_period != 0))
    log::warn("linux.resources.cpu.realtimeRuntime/realtimePeriod: no RT group scheduling on cgroup v2: not applied");
  return {};
}

// A weight of 0 means "not set" (Docker always sends "weight": 0), as in runc and crun.
Result<void> io(const Dir& d, const oci::BlockIoResources& b) {
  if (b.weight && *b.weight != 0) {
    if (auto t = weight_target(d, *b.weight))
      TRYV(d.write(t->first, std::to_string(t->second)));
    else
      log::warn("linux.resources.blockIO.weight: no io.weight/io.bfq.weight on this host: not applied");
  }
  if (b.leaf_weight && *b.leaf_weight != 0)
    log::warn("linux.resources.blockIO.leafWeight: not on cgroup v2: not applied");
  for (const auto& w : b.weight_device) {
    if (w.weight && *w.weight != 0) {
      if (auto t = weight_target(d, *w.weight))
        TRYV(d.write(t->first, dev(w) + " " + std::to_string(t->second)));
      else
        log::warn("linux.resources.blockIO.weightDevice: no io.weight/io.bfq.weight: not applied to " + dev(w));
    }
    if (w.leaf_weight && *w.leaf_weight != 0)
      log::warn("linux.resources.blockIO.weightDevice.leafWeight: not on cgroup v2: not applied");
  }
  // io.max takes every limit of one device on one line: "8:0 rbps=1048576 wiops=max".
  std::map<std::pair<int64_t, int64_t>, std::string> lines;
  const std::pair<const std::vector<oci::BlockIoDevice>*, const char*> throttles[] = {
      {&b.throttle_read_bps, "rbps"},
      {&b.throttle_write_bps, "wbps"},
      {&b.throttle_read_iops, "riops"},
      {&b.throttle_write_iops, "wiops"},
  };
  for (const auto& [list, key] : throttles)
    for (const auto& t : *list) {
      auto& line = lines[{t.major, t.minor}];
      if (line.empty()) line = dev(t);
      line += std::string(" ") + key + "=" + (t.rate == 0 ? std::string("max") : std::to_string(t.rate));
    }
  for (const auto& [_, line] : lines) TRYV(d.write("io.max", line));
  return {};
}

Result<void> check_unified_key(const std::string& key) {
  const std::string what = "linux.resources.unified[\"" + key + "\"]";
  if (key.empty() || key == "." || key == ".." || key.find('/') != std::string::npos ||
      key.find("..") != std::string::npos || key.find('\0') != std::string::npos)
    return fail(what + ": not a cgroup file name");
  if (key.find('.') == std::string::npos || key.front() == '.')
    return fail(what + ": expected <controller>.<file>");
  // These move or kill processes rather than bound them.
  if (key == "cgroup.procs" || key == "cgroup.threads" || key == "cgroup.kill")
    return fail(what + ": not a resource");
  return {};
}

Result<void> unified(Dirs& dirs, const std::map<std::string, std::string>& kv) {
  const Dir* d = TRY(dirs.unified());
  if (!d) return fail("linux.resources.unified: requires cgroup v2");
  for (const auto& [key, value] : kv) {
    TRYV(check_unified_key(key));
    std::string controller = key.substr(0, key.find('.'));
    if (controller != "cgroup") TRYVC("linux.resources.unified[\"" + key + "\"]", dirs.enable_v2(controller));
    TRYV(d->write(key, value));
  }
  return {};
}

Result<void> freeze(const Dir& d, bool frozen) {
  const char* want = frozen ? "1" : "0";
  TRYV(d.write("cgroup.freeze", want));
  auto done = [&]() -> Result<bool> {
    return keyed_value(TRY(d.read("cgroup.events")), "frozen") == uint64_t(frozen ? 1 : 0);
  };
  if (TRY(wait_until(done, 2000))) return {};
  if (frozen) (void)d.write("cgroup.freeze", "0");
  return std::unexpected(
      Error{ETIMEDOUT, "freeze " + d.file_path("cgroup.freeze") + ": cgroup.events not frozen " + want + " after 2s"});
}

Result<bool> is_frozen(const Dir& d) { return keyed_value(TRY(d.read("cgroup.events")), "frozen") == uint64_t(1); }

}  // namespace detail::v2
}  // namespace sh::cgroups
