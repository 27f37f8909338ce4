// OCI resources to cgroup v1 files (Documentation/admin-guide/cgroup-v1/*).
#include <fcntl.h>

#include <cerrno>

#include "base/file.hpp"
#include "base/log.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/cgroups_impl.hpp"

namespace sh::cgroups {

std::string device_rule_string(const oci::DeviceRule& r) {
  auto num = [](const std::optional<int64_t>& v) { return v && *v >= 0 ? std::to_string(*v) : std::string("*"); };
  return r.type + " " + num(r.major) + ":" + num(r.minor) + " " + r.access;
}

std::vector<oci::DeviceRule> container_device_rules(const std::vector<oci::DeviceRule>& asked,
                                                    const std::vector<oci::Device>& created, bool exact) {
  std::vector<oci::DeviceRule> out;
  auto add = [&](bool allow, std::string type, std::optional<int64_t> major, std::optional<int64_t> minor,
                 std::string access) {
    oci::DeviceRule d;
    d.allow = allow;
    d.type = std::move(type);
    d.major = major;
    d.minor = minor;
    d.access = std::move(access);
    out.push_back(std::move(d));
  };
  add(false, "a", std::nullopt, std::nullopt, "rwm");
  out.insert(out.end(), asked.begin(), asked.end());
  if (exact) return out;
  add(true, "c", std::nullopt, std::nullopt, "m");
  add(true, "b", std::nullopt, std::nullopt, "m");
  for (auto [major, minor] : {std::pair{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 2}})
    add(true, "c", major, minor, "rwm");
  add(true, "c", 136, std::nullopt, "rwm");  // /dev/pts/*
  for (const auto& d : created)
    if (d.type == "c" || d.type == "b" || d.type == "u") add(true, d.type == "u" ? "c" : d.type, d.major, d.minor, "rwm");
  return out;
}

namespace detail::v1 {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool is_deny_all(const oci::DeviceRule& r) {
  bool wild_major = !r.major || *r.major < 0, wild_minor = !r.minor || *r.minor < 0;
  return !r.allow && r.type == "a" && wild_major && wild_minor && r.access == "rwm";
}

Result<void> check_rule(const oci::DeviceRule& r, size_t i) {
  std::string what = "linux.resources.devices[" + std::to_string(i) + "]";
  if (r.type != "a" && r.type != "b" && r.type != "c") return fail(what + ".type: must be a, b or c");
  if (r.access.empty() || r.access.find_first_not_of("rwm") != std::string::npos)
    return fail(what + ".access: must be a combination of r, w and m");
  return {};
}

std::string dev(const oci::BlockIoDevice& d) { return std::to_string(d.major) + ":" + std::to_string(d.minor); }

// CFQ's blkio.weight went away with the legacy block layer; BFQ offers blkio.bfq.weight.
std::string weight_file(const Dir& d, const char* cfq, const char* bfq) {
  if (d.has(cfq)) return cfq;
  if (d.has(bfq)) return bfq;
  return "";
}

}  // namespace

Result<void> memory(const Dir& d, const oci::MemoryResources& m, bool updating) {
  if (m.kernel || m.kernel_tcp)
    log::debug("linux.resources.memory.kernel/kernelTCP: deprecated by the kernel, ignored");
  if (m.swappiness && *m.swappiness != UINT64_MAX && *m.swappiness > 100)
    return fail("linux.resources.memory.swappiness: " + std::to_string(*m.swappiness) + " is not in 0..100");
  if (updating && m.check_before_update.value_or(false) && m.limit && *m.limit > 0) {
    uint64_t usage = parse_u64(TRY(d.read("memory.usage_in_bytes"))).value_or(0);
    if (uint64_t(*m.limit) < usage)
      return fail("linux.resources.memory.limit: " + str(*m.limit) + " is below the current usage " +
                  std::to_string(usage));
  }
  // memsw is memory+swap and must stay >= the memory limit. Lifting the memory limit
  // alone would leave memsw below it, so an unlimited memory limit lifts memsw too.
  // A sentinel instead of std::optional: g++ 12 -O2 warns (falsely) about an optional here.
  constexpr int64_t kUnset = INT64_MIN;
  int64_t memsw_v = m.swap && *m.swap != 0 ? *m.swap : kUnset;
  if (memsw_v == kUnset && m.limit && *m.limit == -1) memsw_v = -1;
  std::optional<int64_t> memsw;
  if (memsw_v != kUnset) memsw = memsw_v;
  if (memsw && !d.has("memory.memsw.limit_in_bytes")) {
    if (m.swap && *m.swap != 0)
      log::warn("linux.resources.memory.swap: swap accounting is off on this host (no " +
                d.file_path("memory.memsw.limit_in_bytes") + "): swap limit not applied");
    memsw.reset();
  }
  std::optional<int64_t> limit = m.limit && *m.limit != 0 ? m.limit : std::nullopt;
  if (limit && memsw)
    TRYV(write_pair(d, "memory.limit_in_bytes", str(*limit), "memory.memsw.limit_in_bytes", str(*memsw)));
  else if (limit)
    TRYV(d.write("memory.limit_in_bytes", str(*limit)));
  else if (memsw)
    TRYV(d.write("memory.memsw.limit_in_bytes", str(*memsw)));
  if (m.reservation && *m.reservation != 0) TRYV(d.write("memory.soft_limit_in_bytes", str(*m.reservation)));
  if (m.swappiness && *m.swappiness != UINT64_MAX) TRYV(d.write("memory.swappiness", std::to_string(*m.swappiness)));
  // Writing 0 only matters to undo an earlier 1.
  if (m.disable_oom_killer && (*m.disable_oom_killer || updating))
    TRYV(d.write("memory.oom_control", *m.disable_oom_killer ? "1" : "0"));
  return {};
}

Result<void> cpu(const Dir& d, const oci::CpuResources& c) {
  if (c.shares && *c.shares != 0) TRYV(d.write("cpu.shares", std::to_string(*c.shares)));
  // The quota/period ratio is checked against the parent on each write: the order that
  // works depends on the old values, so write_pair tries both.
  std::optional<std::string> period, quota;
  if (c.period && *c.period != 0) period = std::to_string(*c.period);
  if (c.quota && *c.quota != 0) quota = *c.quota < 0 ? "-1" : str(*c.quota);
  if (period && quota)
    TRYV(write_pair(d, "cpu.cfs_period_us", *period, "cpu.cfs_quota_us", *quota));
  else if (period)
    TRYV(d.write("cpu.cfs_period_us", *period));
  else if (quota)
    TRYV(d.write("cpu.cfs_quota_us", *quota));
  if (c.burst) {
    if (d.has("cpu.cfs_burst_us"))
      TRYV(d.write("cpu.cfs_burst_us", std::to_string(*c.burst)));
    else
      log::warn("linux.resources.cpu.burst: kernel has no cpu.cfs_burst_us: not applied");
  }
  std::optional<std::string> rt_period, rt_runtime;
  if (c.realtime_period && *c.realtime_period != 0) rt_period = std::to_string(*c.realtime_period);
  if (c.realtime_runtime && *c.realtime_runtime != 0) rt_runtime = str(*c.realtime_runtime);
  if ((rt_period || rt_runtime) && !d.has("cpu.rt_runtime_us"))
    return fail("linux.resources.cpu.realtimeRuntime/realtimePeriod: kernel lacks RT group scheduling (no " +
                d.file_path("cpu.rt_runtime_us") + ")");
  if (rt_period && rt_runtime)
    TRYV(write_pair(d, "cpu.rt_period_us", *rt_period, "cpu.rt_runtime_us", *rt_runtime));
  else if (rt_period)
    TRYV(d.write("cpu.rt_period_us", *rt_period));
  else if (rt_runtime)
    TRYV(d.write("cpu.rt_runtime_us", *rt_runtime));
  if (c.idle) {
    if (d.has("cpu.idle"))
      TRYV(d.write("cpu.idle", str(*c.idle)));
    else
      log::warn("linux.resources.cpu.idle: kernel has no cpu.idle: not applied");
  }
  return {};
}

// A weight of 0 means "not set" (Docker always sends "weight": 0), as in runc and crun.
Result<void> blkio(const Dir& d, const oci::BlockIoResources& b) {
  if (b.weight && *b.weight != 0) {
    std::string f = weight_file(d, "blkio.weight", "blkio.bfq.weight");
    if (f.empty())
      log::warn("linux.resources.blockIO.weight: no proportional-weight I/O scheduler (no blkio.weight): not applied");
    else
      TRYV(d.write(f, std::to_string(*b.weight)));
  }
  if (b.leaf_weight && *b.leaf_weight != 0) {
    if (d.has("blkio.leaf_weight"))
      TRYV(d.write("blkio.leaf_weight", std::to_string(*b.leaf_weight)));
    else
      log::warn("linux.resources.blockIO.leafWeight: no blkio.leaf_weight on this kernel: not applied");
  }
  for (const auto& w : b.weight_device) {
    if (w.weight && *w.weight != 0) {
      std::string f = weight_file(d, "blkio.weight_device", "blkio.bfq.weight_device");
      if (f.empty())
        log::warn("linux.resources.blockIO.weightDevice: no blkio.weight_device: not applied to " + dev(w));
      else
        TRYV(d.write(f, dev(w) + " " + std::to_string(*w.weight)));
    }
    if (w.leaf_weight && *w.leaf_weight != 0) {
      if (d.has("blkio.leaf_weight_device"))
        TRYV(d.write("blkio.leaf_weight_device", dev(w) + " " + std::to_string(*w.leaf_weight)));
      else
        log::warn("linux.resources.blockIO.weightDevice.leafWeight: no blkio.leaf_weight_device: not applied");
    }
  }
  const std::pair<const std::vector<oci::BlockIoDevice>*, const char*> throttles[] = {
      {&b.throttle_read_bps, "blkio.throttle.read_bps_device"},
      {&b.throttle_write_bps, "blkio.throttle.write_bps_device"},
      {&b.throttle_read_iops, "blkio.throttle.read_iops_device"},
      {&b.throttle_write_iops, "blkio.throttle.write_iops_device"},
  };
  for (const auto& [list, file] : throttles)
    for (const auto& t : *list) TRYV(d.write(file, dev(t) + " " + std::to_string(t.rate)));
  return {};
}

Result<void> devices(const Dir& d, const std::vector<oci::DeviceRule>& rules) {
  // Each write(2) is one rule to the kernel: devices.allow and devices.deny are opened once
  // each, not once per rule (a container's dozen rules were a dozen opens).
  Fd files[2];
  std::string last;
  for (size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    TRYV(check_rule(r, i));
    // "a" resets the list to deny-everything, the usual first rule.
    std::string entry = (r.allow ? "+" : "-") + (is_deny_all(r) ? std::string("a") : device_rule_string(r));
    if (entry == last) continue;  // the same rule again changes nothing (deny-all, then the config's)
    const char* file = r.allow ? "devices.allow" : "devices.deny";
    Fd& f = files[r.allow];
    if (!f) f = Fd(::openat(d.fd.get(), file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!f) return sys_error("open " + d.file_path(file));
    TRYV(write_all(f.get(), std::string_view(entry).substr(1), d.file_path(file)));
    last = std::move(entry);
  }
  return {};
}

Result<void> freeze(const Dir& d, bool frozen) {
  const std::string want = frozen ? "FROZEN" : "THAWED";
  // While FREEZING, writing FROZEN again is how the kernel docs say to retry stragglers.
  auto done = [&]() -> Result<bool> {
    TRYV(d.write("freezer.state", want));
    return TRY(d.read_trimmed("freezer.state")) == want;
  };
  if (TRY(wait_until(done, 2000))) return {};
  if (frozen) (void)d.write("freezer.state", "THAWED");
  return std::unexpected(Error{ETIMEDOUT, "freeze " + d.file_path("freezer.state") + ": not " + want + " after 2s"});
}

Result<bool> is_frozen(const Dir& d) { return TRY(d.read_trimmed("freezer.state")) == "FROZEN"; }

}  // namespace detail::v1
}  // namespace sh::cgroups
