// update: a container's new cgroup limits, from a resources document and runc's per-field flags
// (their values parsed here, so unit tests reach them), held to the floor create recorded.
#include "runtime/lifecycle/update.hpp"

#include <charconv>
#include <limits>

#include "base/log.hpp"
#include "runtime/lifecycle/floor.hpp"
#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/systemd_scope.hpp"

namespace sh::lifecycle {

Result<void> update(const Globals& g, const std::string& id, const oci::Resources& res) {
  Live c = TRY(open_live(g, id, Lock::exclusive));
  // Created under a policy: no limit goes above the floor create recorded (floor.hpp).
  oci::Resources held = res;
  if (auto floor = TRY(load_floor(c.dir, c.rec))) TRYV(hold_update(*floor, held));
  auto cg = TRY(live_cgroup(c.rec));
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

}  // namespace sh::lifecycle
