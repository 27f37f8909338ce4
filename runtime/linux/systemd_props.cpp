// OCI resources to systemd unit properties (the pure half of the systemd cgroup driver).
#include "runtime/linux/systemd_props.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "runtime/linux/cgroups.hpp"

namespace sh::systemd {
namespace {

constexpr uint64_t kDefaultPeriod = 100000;  // the kernel's cfs period, µs (v1 and v2)

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

std::optional<uint64_t> number(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A unit name's characters, as systemd accepts them (unit_name_is_valid): [A-Za-z0-9:_.\-@].
bool unit_chars(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '_' ||
           c == '.' || c == '-' || c == '@' || c == '\\';
  });
}

Result<void> check_slice(std::string_view slice, std::string_view what) {
  auto bad = [&] { return fail(std::string(what) + ": invalid slice name \"" + std::string(slice) + "\""); };
  if (slice == "-.slice") return {};
  if (!slice.ends_with(".slice") || !unit_chars(slice)) return bad();
  std::string_view base = slice.substr(0, slice.size() - 6);
  if (base.empty() || base.front() == '-' || base.back() == '-' || base.find("--") != std::string_view::npos)
    return bad();
  return {};
}

uint64_t limit_or_infinity(int64_t v) { return v < 0 ? kInfinity : uint64_t(v); }

// OCI memory.swap is memory+swap (v1 memsw); MemorySwapMax is swap alone, as v2 has it.
Result<std::optional<uint64_t>> swap_max(const oci::MemoryResources& m) {
  if (!m.swap || *m.swap == 0) return std::nullopt;
  if (*m.swap < 0) return std::optional<uint64_t>(kInfinity);
  if (!m.limit || *m.limit <= 0)
    return fail("linux.resources.memory.swap: a swap limit needs a memory limit on cgroup v2");
  if (*m.limit > *m.swap)
    return fail("linux.resources.memory.swap: " + std::to_string(*m.swap) + " (memory+swap) is below the memory limit " +
                std::to_string(*m.limit));
  return std::optional<uint64_t>(uint64_t(*m.swap - *m.limit));
}

// Later properties of the same name replace earlier ones (a unified key after the typed field).
void put(Properties& out, std::string name, Value v) {
  auto it = std::find_if(out.begin(), out.end(), [&](const Property& p) { return p.name == name; });
  if (it != out.end())
    it->value = std::move(v);
  else
    out.push_back(Property{std::move(name), std::move(v)});
}

Result<uint64_t> unified_limit(const std::string& key, std::string_view v) {
  v = trim(v);
  if (v == "max") return kInfinity;
  if (auto n = number(v)) return *n;
  return fail("linux.resources.unified[\"" + key + "\"]: \"" + std::string(v) + "\" is not a number or \"max\"");
}

// The unified keys with a property of their own (the others are only written to the files).
Result<void> unified_properties(Properties& out, const std::map<std::string, std::string>& kv) {
  static const std::map<std::string, std::string, std::less<>> limits = {
      {"memory.max", "MemoryMax"}, {"memory.high", "MemoryHigh"},      {"memory.low", "MemoryLow"},
      {"memory.min", "MemoryMin"}, {"memory.swap.max", "MemorySwapMax"}, {"pids.max", "TasksMax"}};
  for (const auto& [key, value] : kv) {
    const std::string what = "linux.resources.unified[\"" + key + "\"]";
    if (auto it = limits.find(key); it != limits.end()) {
      put(out, it->second, TRY(unified_limit(key, value)));
    } else if (key == "cpu.weight") {
      auto n = number(trim(value));
      if (!n || *n < 1 || *n > 10000) return fail(what + ": \"" + value + "\" is not a weight 1..10000");
      put(out, "CPUWeight", *n);
    } else if (key == "cpu.max") {
      auto f = split(trim(value), ' ');
      if (f.size() > 2) return fail(what + ": expected \"<quota|max> [period]\", got \"" + value + "\"");
      std::optional<uint64_t> period = f.size() == 2 ? number(f[1]) : std::optional<uint64_t>(kDefaultPeriod);
      std::optional<uint64_t> quota = f[0] == "max" ? std::optional<uint64_t>(kInfinity) : number(f[0]);
      if (!period || *period == 0 || !quota || *quota == 0)
        return fail(what + ": expected \"<quota|max> [period]\", got \"" + value + "\"");
      if (f.size() == 2) put(out, "CPUQuotaPeriodUSec", *period);
      put(out, "CPUQuotaPerSecUSec", *quota == kInfinity ? kInfinity : quota_per_sec(int64_t(*quota), *period));
    } else if (key == "cpuset.cpus" || key == "cpuset.mems") {
      put(out, key == "cpuset.cpus" ? "AllowedCPUs" : "AllowedMemoryNodes", TRY(cpuset_mask(trim(value), what)));
    }
  }
  return {};
}

// A device rule's node class for DeviceAllow: "char"/"block" for c/b.
std::vector<std::string> classes(const std::string& type) {
  if (type == "c") return {"char"};
  if (type == "b") return {"block"};
  return {"char", "block"};
}

// The name /proc/devices gives a major in a section ("Character devices:", "Block devices:").
std::optional<std::string> major_name(std::string_view proc_devices, bool block, int64_t major) {
  bool in = false;
  for (auto line : split(proc_devices, '\n')) {
    line = trim(line);
    if (line.empty()) continue;
    if (line.ends_with(':')) {
      in = (line == "Block devices:") == block && (line == "Character devices:" || line == "Block devices:");
      continue;
    }
    if (!in) continue;
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos) continue;
    auto n = number(line.substr(0, sp));
    if (n && int64_t(*n) == major) return std::string(trim(line.substr(sp + 1)));
  }
  return std::nullopt;
}

bool wildcard(const std::optional<int64_t>& v) { return !v || *v < 0; }

std::string rule_text(const oci::DeviceRule& r) {
  return std::string(r.allow ? "allow " : "deny ") + cgroups::device_rule_string(r);
}

// access minus the letters of `take`, in rwm order.
std::string without(const std::string& access, const std::string& take) {
  std::string out;
  for (char c : std::string("rwm"))
    if (access.find(c) != std::string::npos && take.find(c) == std::string::npos) out += c;
  return out;
}

}  // namespace

Result<Unit> unit_for(const std::optional<std::string>& cgroups_path, const std::string& id, bool rootless) {
  const std::string what = "linux.cgroupsPath";
  std::string spec = cgroups_path && !cgroups_path->empty() ? *cgroups_path : ":sharness:" + id;
  auto parts = split(spec, ':');
  if (parts.size() != 3)
    return fail(what + ": expected \"slice:prefix:name\" with --systemd-cgroup, got \"" + spec + "\"");
  std::string_view slice = parts[0], prefix = parts[1], name = parts[2];
  if (name.empty()) return fail(what + ": \"" + spec + "\" has no unit name");
  if (name.ends_with(".slice"))
    return fail(what + ": \"" + spec + "\" names a slice unit; the systemd driver makes a scope for each container");
  Unit u;
  u.slice = slice.empty() ? (rootless ? "user.slice" : "system.slice") : std::string(slice);
  TRYV(check_slice(u.slice, what));
  u.name = (prefix.empty() ? std::string(name) : std::string(prefix) + "-" + std::string(name)) + ".scope";
  if (!unit_chars(u.name) || u.name.size() > 255 || (!prefix.empty() && !unit_chars(prefix)))
    return fail(what + ": \"" + spec + "\" does not make a valid unit name (" + u.name + ")");
  return u;
}

Properties scope_properties(const Unit& u, pid_t init_pid, const std::string& id) {
  return {
      {"Description", std::string("sharness container " + id)},
      {"Slice", u.slice},
      {"PIDs", std::vector<uint32_t>{uint32_t(init_pid)}},
      {"Delegate", true},
      {"MemoryAccounting", true},
      {"CPUAccounting", true},
      {"IOAccounting", true},
      {"TasksAccounting", true},
      {"DefaultDependencies", false},
  };
}

uint64_t quota_per_sec(int64_t quota, uint64_t period) {
  if (quota < 0) return kInfinity;
  if (period == 0) period = kDefaultPeriod;
  // quota µs per period µs, as µs per second; whole percent (10 ms) rounded up, as systemd
  // keeps it, so the container never gets less than it asked for.
  unsigned __int128 q = (unsigned __int128)uint64_t(quota) * 1000000 / period;
  if (q % 10000) q = (q / 10000 + 1) * 10000;
  return q > kInfinity - 1 ? kInfinity - 1 : uint64_t(q);
}

Result<std::vector<uint8_t>> cpuset_mask(std::string_view list, std::string_view what) {
  std::vector<uint8_t> mask;
  auto bad = [&] { return fail(std::string(what) + ": \"" + std::string(list) + "\" is not a CPU or node list"); };
  if (trim(list).empty()) return bad();
  for (auto part : split(trim(list), ',')) {
    part = trim(part);
    size_t dash = part.find('-');
    auto lo = number(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : number(part.substr(dash + 1));
    // 8192 CPUs: the kernel's largest NR_CPUS; a bigger number is a typo, not a request.
    if (!lo || !hi || *lo > *hi || *hi >= 8192) return bad();
    if (mask.size() <= *hi / 8) mask.resize(*hi / 8 + 1, 0);
    for (uint64_t i = *lo; i <= *hi; ++i) mask[i / 8] |= uint8_t(1u << (i % 8));
  }
  return mask;
}

Result<Properties> device_properties(const std::vector<oci::DeviceRule>& rules, std::string_view proc_devices) {
  Properties out;
  if (rules.empty()) return out;
  const std::string what = "linux.resources.devices";
  // Allowed so far, per class: every node (no major), a whole major (no minor), or one node.
  struct Entry {
    std::string cls;
    std::optional<int64_t> major, minor;
    std::string access;
  };
  std::vector<Entry> allow;
  bool allow_all = false, default_deny = false;
  auto num = [](const std::optional<int64_t>& v) { return wildcard(v) ? std::nullopt : v; };
  // a covers b: every node b names is one a names.
  auto covers = [](const Entry& a, const Entry& b) {
    return a.cls == b.cls && (!a.major || (b.major == a.major && (!a.minor || b.minor == a.minor)));
  };
  for (const auto& r : rules) {
    if (r.access.empty() || r.access.find_first_not_of("rwm") != std::string::npos)
      return fail(what + ": " + rule_text(r) + ": access \"" + r.access + "\" is not made of r, w, m");
    if (r.type != "a" && r.type != "c" && r.type != "b")
      return fail(what + ": " + rule_text(r) + ": type \"" + r.type + "\" is not a, c or b");
    if (wildcard(r.major) && !wildcard(r.minor))
      return fail(what + ": " + rule_text(r) + ": a minor number on every major is not expressible in DeviceAllow=");
    bool every = r.type == "a" && wildcard(r.major) && without("rwm", r.access).empty();
    if (every) {
      allow.clear();
      allow_all = r.allow;  // allow-all: no restriction; deny-all: the list starts over
      default_deny = !r.allow;
      continue;
    }
    for (const auto& cls : classes(r.type)) {
      Entry e{cls, num(r.major), num(r.minor), without(r.access, "")};
      if (r.allow) {
        if (allow_all) continue;
        auto it = std::find_if(allow.begin(), allow.end(), [&](const Entry& x) {
          return x.cls == e.cls && x.major == e.major && x.minor == e.minor;
        });
        if (it == allow.end())
          allow.push_back(e);
        else
          it->access = without("rwm", without(without("rwm", it->access), e.access));  // union
        continue;
      }
      if (!default_deny || allow_all)
        return fail(what + ": " + rule_text(r) + ": systemd holds device rules as an allow list (DeviceAllow=), " +
                    "and this deny comes where everything is allowed");
      for (auto& a : allow) {
        if (covers(e, a)) {
          a.access = without(a.access, e.access);  // the deny takes this access away
        } else if (covers(a, e) && without(a.access, without("rwm", e.access)) != "") {
          return fail(what + ": " + rule_text(r) + ": takes part of a wider allowed rule away, which systemd's " +
                      "DeviceAllow= cannot express");
        }
      }
      std::erase_if(allow, [](const Entry& x) { return x.access.empty(); });
    }
  }
  if (allow_all || !default_deny) {
    // Everything allowed (or a list with no deny-all, where nothing is denied): no restriction.
    out.push_back({"DevicePolicy", std::string("auto")});
    out.push_back({"DeviceAllow", DeviceAllow{}});
    return out;
  }
  DeviceAllow list;
  for (const auto& a : allow) {
    std::string node;
    if (!a.major) {
      node = a.cls + "-*";
    } else if (!a.minor) {
      // A whole major goes by its driver's name; a major nothing registered has no nodes to allow.
      auto name = major_name(proc_devices, a.cls == "block", *a.major);
      if (!name) continue;
      node = a.cls + "-" + *name;
    } else {
      node = "/dev/" + a.cls + "/" + std::to_string(*a.major) + ":" + std::to_string(*a.minor);
    }
    list.emplace_back(std::move(node), a.access);
  }
  out.push_back({"DevicePolicy", std::string("strict")});
  out.push_back({"DeviceAllow", std::move(list)});
  return out;
}

Result<Properties> resource_properties(const oci::Resources& r, std::string_view proc_devices) {
  Properties out;
  if (r.memory) {
    const auto& m = *r.memory;
    if (m.limit && *m.limit != 0) put(out, "MemoryMax", limit_or_infinity(*m.limit));
    if (m.reservation && *m.reservation != 0) put(out, "MemoryLow", limit_or_infinity(*m.reservation));
    if (auto s = TRY(swap_max(m))) put(out, "MemorySwapMax", *s);
  }
  if (r.cpu) {
    const auto& c = *r.cpu;
    if (c.shares && *c.shares != 0) put(out, "CPUWeight", cgroups::shares_to_weight(*c.shares));
    bool has_period = c.period && *c.period != 0;
    if (has_period) put(out, "CPUQuotaPeriodUSec", *c.period);
    // A period alone keeps the quota as it is (runc would lift it to infinity).
    if (c.quota && *c.quota != 0) put(out, "CPUQuotaPerSecUSec", quota_per_sec(*c.quota, has_period ? *c.period : 0));
    if (c.cpus && !c.cpus->empty()) put(out, "AllowedCPUs", TRY(cpuset_mask(*c.cpus, "linux.resources.cpu.cpus")));
    if (c.mems && !c.mems->empty())
      put(out, "AllowedMemoryNodes", TRY(cpuset_mask(*c.mems, "linux.resources.cpu.mems")));
  }
  if (r.pids) put(out, "TasksMax", r.pids->limit > 0 ? uint64_t(r.pids->limit) : kInfinity);
  for (auto& p : TRY(device_properties(r.devices, proc_devices))) put(out, std::move(p.name), std::move(p.value));
  TRYV(unified_properties(out, r.unified));
  return out;
}

// ---- the helper's argv form ----------------------------------------------------------------
namespace {
bool clean(std::string_view s) { return s.find_first_of(std::string_view("\0\n", 2)) == std::string_view::npos; }
}  // namespace

std::string encode(const Property& p) {
  static const char* hex = "0123456789abcdef";
  std::string out = p.name + "=";
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          out += v ? "b:1" : "b:0";
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          out += "t:" + std::to_string(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out += "s:" + v;
        } else if constexpr (std::is_same_v<T, std::vector<uint32_t>>) {
          out += "au:";
          for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
        } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
          out += "ay:";
          for (uint8_t b : v) out += std::string{hex[b >> 4], hex[b & 15]};
        } else {
          out += "a(ss):";
          for (size_t i = 0; i < v.size(); ++i) out += (i ? ";" : "") + v[i].first + " " + v[i].second;
        }
      },
      p.value);
  return out;
}

Result<Property> decode(std::string_view arg) {
  auto bad = [&](std::string why) { return fail("systemd property \"" + std::string(arg) + "\": " + why); };
  size_t eq = arg.find('='), colon = arg.find(':', eq == std::string_view::npos ? 0 : eq);
  if (eq == std::string_view::npos || eq == 0 || colon == std::string_view::npos) return bad("expected Name=sig:value");
  std::string name(arg.substr(0, eq));
  if (!std::all_of(name.begin(), name.end(), [](char c) { return isalnum((unsigned char)c); }))
    return bad("not a property name");
  std::string_view sig = arg.substr(eq + 1, colon - eq - 1), v = arg.substr(colon + 1);
  if (!clean(v)) return bad("control character in the value");
  if (sig == "b") {
    if (v != "0" && v != "1") return bad("a boolean is 0 or 1");
    return Property{name, v == "1"};
  }
  if (sig == "t") {
    auto n = number(v);
    if (!n) return bad("not an unsigned number");
    return Property{name, *n};
  }
  if (sig == "s") return Property{name, std::string(v)};
  if (sig == "au") {
    std::vector<uint32_t> out;
    if (!v.empty())
      for (auto x : split(v, ',')) {
        auto n = number(x);
        if (!n || *n > UINT32_MAX) return bad("not a list of 32-bit numbers");
        out.push_back(uint32_t(*n));
      }
    return Property{name, std::move(out)};
  }
  if (sig == "ay") {
    if (v.size() % 2) return bad("odd number of hex digits");
    std::vector<uint8_t> out;
    auto digit = [](char c) -> int {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    for (size_t i = 0; i < v.size(); i += 2) {
      int hi = digit(v[i]), lo = digit(v[i + 1]);
      if (hi < 0 || lo < 0) return bad("not lower-case hex");
      out.push_back(uint8_t(hi * 16 + lo));
    }
    return Property{name, std::move(out)};
  }
  if (sig == "a(ss)") {
    DeviceAllow out;
    if (!v.empty())
      for (auto e : split(v, ';')) {
        size_t sp = e.find(' ');
        if (sp == std::string_view::npos || sp == 0 || e.find(' ', sp + 1) != std::string_view::npos)
          return bad("expected \"<node> <access>\" entries");
        out.emplace_back(std::string(e.substr(0, sp)), std::string(e.substr(sp + 1)));
      }
    return Property{name, std::move(out)};
  }
  return bad("unknown signature \"" + std::string(sig) + "\"");
}

}  // namespace sh::systemd
