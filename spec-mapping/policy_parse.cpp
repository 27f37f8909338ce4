// policy.json -> Policy, strictly: every object lists its keys, every value is checked for
// type and range, every name (syscall, group, capability, device, namespace) must be known.
#include <seccomp.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include "base/file.hpp"
#include "base/lexical_path.hpp"
#include "oci/cap_names.hpp"
#include "oci/landlock.hpp"
#include "spec-mapping/canonical.hpp"
#include "spec-mapping/policy.hpp"
#include "spec-mapping/syscall_groups.hpp"

namespace sh::policy {

using json::Value;

const char* network_name(Network n) {
  switch (n) {
    case Network::none: return "none";
    case Network::loopback: return "loopback";
    case Network::host: return "host";
  }
  return "?";
}

const char* action_name(DefaultAction a) {
  switch (a) {
    case DefaultAction::log: return "log";
    case DefaultAction::errno_eperm: return "errno";
    case DefaultAction::kill: return "kill";
  }
  return "?";
}

bool Policy::same_rules(const Policy& o) const {
  return id == o.id && version == o.version && description == o.description && best_effort == o.best_effort &&
         identity == o.identity && namespaces == o.namespaces && network == o.network && memory == o.memory &&
         cpu == o.cpu && pids == o.pids && wall_clock_seconds == o.wall_clock_seconds && priority == o.priority &&
         syscalls == o.syscalls &&
         devices == o.devices && mounts == o.mounts && mesh == o.mesh && files == o.files && ports == o.ports &&
         scope == o.scope && exec == o.exec && secrets == o.secrets && egress == o.egress &&
         hooks_from_config == o.hooks_from_config;
}

const std::vector<DeviceInfo>& device_table() {
  static const std::vector<DeviceInfo> t = {
      {"null", "/dev/null", 1, 3},      {"zero", "/dev/zero", 1, 5},       {"full", "/dev/full", 1, 7},
      {"random", "/dev/random", 1, 8},  {"urandom", "/dev/urandom", 1, 9}, {"tty", "/dev/tty", 5, 0},
      {"console", "/dev/console", 5, 1}, {"ptmx", "/dev/ptmx", 5, 2},     {"pts", "/dev/pts", 136, -1},
      {"fuse", "/dev/fuse", 10, 229},   {"tun", "/dev/net/tun", 10, 200},  {"kvm", "/dev/kvm", 10, 232},
  };
  return t;
}

const DeviceInfo* find_device(std::string_view name) {
  for (const auto& d : device_table())
    if (d.name == name) return &d;
  return nullptr;
}

const std::vector<std::string_view>& reserved_sections() {
  static const std::vector<std::string_view> r;
  return r;
}

std::string format_size(uint64_t b) {
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  std::string unit = "bytes";
  for (int i = 3; i >= 0; --i) {
    uint64_t m = 1ull << (10 * (i + 1));
    if (b >= m && b % m == 0) return std::to_string(b / m) + " " + units[i];
  }
  return std::to_string(b) + " bytes";
}

Result<uint64_t> parse_size(const Value& v, uint64_t lo, uint64_t hi) {
  uint64_t bytes = 0;
  if (v.is_string()) {
    std::string s = YAJL_GET_STRING(v.raw());
    size_t digits = 0;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
    std::string unit = s.substr(digits);
    int shift = unit == "" ? 0 : unit == "KiB" ? 10 : unit == "MiB" ? 20 : unit == "GiB" ? 30 : unit == "TiB" ? 40 : -1;
    if (digits == 0 || digits > 15 || shift < 0)
      return fail(v.path() + ": \"" + s + "\" is not a size (an integer of bytes, or e.g. \"128MiB\": KiB, MiB, GiB, TiB)");
    bytes = std::stoull(s.substr(0, digits)) << shift;
    if ((bytes >> shift) != std::stoull(s.substr(0, digits))) return fail(v.path() + ": \"" + s + "\" is too large");
  } else if (v.is_number()) {
    auto u = v.as_uint();
    if (!u) return fail(v.path() + ": expected a size in bytes (a non-negative integer) or a string like \"128MiB\"");
    bytes = *u;
  } else {
    return fail(v.path() + ": expected a size in bytes (a non-negative integer) or a string like \"128MiB\"");
  }
  if (bytes < lo) return fail(v.path() + ": " + format_size(bytes) + " is below the minimum " + format_size(lo));
  if (bytes > hi) return fail(v.path() + ": " + format_size(bytes) + " is above the maximum " + format_size(hi));
  return bytes;
}

namespace {

// base/json.cpp's Value::error() leaves a space before ": " ("a.b : expected ..."): close it.
Error tidy(Error e) {
  for (size_t p; (p = e.msg.find(" : ")) != std::string::npos;) e.msg.replace(p, 3, ": ");
  return e;
}

// An object whose keys are all in `allowed`, each at most once.
Result<void> strict(const Value& v, std::initializer_list<std::string_view> allowed) {
  TRYV(v.expect_object());
  std::set<std::string_view> seen;
  for (size_t i = 0; i < v.raw()->u.object.len; ++i) {
    std::string_view k = v.raw()->u.object.keys[i];
    if (!seen.insert(k).second) return fail(v.child_path(k) + ": duplicate key");
  }
  return v.only_keys(allowed);
}

Result<std::string> str(const Value& v) { return v.as_string(); }

Result<bool> boolean(const Value& v) { return v.as_bool(); }

Result<int64_t> int_in(const Value& v, int64_t lo, int64_t hi) {
  if (!v.is_number() || !YAJL_IS_INTEGER(v.raw())) {
    if (v.is_number() && std::string(YAJL_GET_NUMBER(v.raw())).find_first_not_of("-0123456789") == std::string::npos)
      return fail(v.path() + ": " + YAJL_GET_NUMBER(v.raw()) + " is out of range [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "]");
    return v.as_int();  // the type error
  }
  return v.as_int_in(lo, hi);
}

// An array of strings, each checked by `check`, no duplicates.
Result<std::vector<std::string>> string_list(const Value& v,
                                             const std::function<Result<std::string>(const Value&, std::string)>& check) {
  std::vector<std::string> out;
  out.reserve(v.size());  // no reallocation: `seen` views the strings where they are
  std::unordered_set<std::string_view> seen;
  seen.reserve(v.size());
  TRYV(v.each_item([&](size_t, const Value& it) -> Result<void> {
    std::string s = TRY(check(it, TRY(it.as_string())));
    if (seen.contains(s)) return fail(it.path() + ": duplicate \"" + s + "\"");
    out.push_back(std::move(s));
    seen.insert(out.back());
    return {};
  }));
  return out;
}

Result<std::string> absolute_path(const Value& v, std::string s) {
  if (s.empty() || s[0] != '/') return fail(v.path() + ": \"" + s + "\" is not an absolute path");
  for (size_t pos = 0; pos <= s.size();) {
    size_t end = s.find('/', pos);
    if (end == std::string::npos) end = s.size();
    if (s.compare(pos, end - pos, "..") == 0) return fail(v.path() + ": \"" + s + "\" contains \"..\"");
    pos = end + 1;
  }
  if (s.find('\0') != std::string::npos) return fail(v.path() + ": path contains a NUL byte");
  return s;
}

// ---- sections -------------------------------------------------------------------------

Result<Identity> parse_identity(const Value& v) {
  TRYV(strict(v, {"uid", "gid", "capabilities", "noNewPrivileges"}));
  Identity id;
  if (auto u = v.get("uid")) {
    if (u->is_string()) {
      std::string s = TRY(u->as_string());
      if (s != "ephemeral") return fail(u->path() + ": expected a uid number or \"ephemeral\", got \"" + s + "\"");
      id.uid = Uid{true, 0};
    } else if (u->is_number()) {
      id.uid = Uid{false, uint32_t(TRY(int_in(*u, 0, 4294967294)))};
    } else {
      return fail(u->path() + ": expected a uid number or \"ephemeral\"");
    }
  }
  if (auto g = v.get("gid")) id.gid = uint32_t(TRY(int_in(*g, 0, 4294967294)));
  if (auto c = v.get("capabilities")) {
    auto caps = TRY(string_list(*c, [](const Value& it, std::string s) -> Result<std::string> {
      auto n = caps::parse(s);
      if (!n) return fail(it.path() + ": unknown capability \"" + s + "\"");
      return caps::name(*n);
    }));
    std::ranges::sort(caps);  // string_list already refused duplicates, "cap_kill" and "CAP_KILL" alike
    id.capabilities = std::move(caps);
  }
  if (auto n = v.get("noNewPrivileges")) id.no_new_privileges = TRY(boolean(*n));
  return id;
}

Result<std::vector<std::string>> parse_namespaces(const Value& v) {
  auto list = TRY(string_list(v, [](const Value& it, std::string s) -> Result<std::string> {
    static const std::set<std::string> known = {"cgroup", "ipc", "mount", "pid", "time", "user", "uts"};
    if (s == "network") return fail(it.path() + ": the network namespace is set by the \"network\" key");
    if (!known.contains(s))
      return fail(it.path() + ": unknown namespace \"" + s + "\" (cgroup, ipc, mount, pid, time, user, uts)");
    return s;
  }));
  std::ranges::sort(list);
  return list;
}

Result<Network> parse_network(const Value& v) {
  std::string s = TRY(v.as_string());
  if (s == "none") return Network::none;
  if (s == "loopback") return Network::loopback;
  if (s == "host") return Network::host;
  return fail(v.path() + ": expected \"none\", \"loopback\" or \"host\", got \"" + s + "\"");
}

Result<Memory> parse_memory(const Value& v) {
  TRYV(strict(v, {"limit", "addressSpace", "denyWriteExecute"}));
  Memory m;
  if (auto d = v.get("denyWriteExecute")) m.deny_write_execute = TRY(d->as_bool());
  if (auto l = v.get("limit")) m.limit = TRY(parse_size(*l, kMemoryMin, kMemoryMax));
  if (auto a = v.get("addressSpace")) m.address_space = TRY(parse_size(*a, kMemoryMin, kMemoryMax));
  return m;
}

Result<Cpu> parse_cpu(const Value& v) {
  TRYV(strict(v, {"quota", "period"}));
  Cpu c;
  if (auto p = v.get("period")) c.period = uint64_t(TRY(int_in(*p, kCpuPeriodMin, kCpuPeriodMax)));
  // More than 1024 CPUs' worth of quota is not a limit.
  c.quota = uint64_t(TRY(int_in(TRY(v.need("quota")), kCpuQuotaMin, int64_t(c.period) * 1024)));
  return c;
}

Result<Pids> parse_pids(const Value& v) {
  TRYV(strict(v, {"limit", "fork"}));
  Pids p;
  if (auto l = v.get("limit")) p.limit = TRY(int_in(*l, 1, kPidsMax));
  if (auto f = v.get("fork")) p.fork = TRY(boolean(*f));
  if (!p.fork && p.limit && *p.limit > 1)
    return fail(v.child_path("fork") + ": false means no new process (a limit of 1), but limit is " +
                std::to_string(*p.limit));
  return p;
}

Result<uint64_t> parse_wall_clock(const Value& v) {
  TRYV(strict(v, {"seconds"}));
  return uint64_t(TRY(int_in(TRY(v.need("seconds")), 1, int64_t(kWallClockMax))));
}

Result<Priority> parse_priority(const Value& v) {
  TRYV(strict(v, {"oomScoreAdjMin", "niceMin", "realtime"}));
  Priority p;
  if (auto o = v.get("oomScoreAdjMin")) p.oom_score_adj_min = int(TRY(int_in(*o, -1000, 1000)));
  if (auto n = v.get("niceMin")) p.nice_min = int(TRY(int_in(*n, -20, 19)));
  if (auto r = v.get("realtime")) p.realtime = TRY(boolean(*r));
  return p;
}

Result<Syscalls> parse_syscalls(const Value& v) {
  TRYV(strict(v, {"defaultAction", "allow"}));
  Syscalls s;
  if (auto d = v.get("defaultAction")) {
    std::string a = TRY(d->as_string());
    if (a == "errno") s.default_action = DefaultAction::errno_eperm;
    else if (a == "kill") s.default_action = DefaultAction::kill;
    else if (a == "log") s.default_action = DefaultAction::log;
    else return fail(d->path() + ": expected \"errno\", \"kill\" or \"log\", got \"" + a + "\"");
  }
  s.allow = TRY(string_list(TRY(v.need("allow")), [](const Value& it, std::string n) -> Result<std::string> {
    if (n.starts_with('@')) {
      if (!is_group(n)) return fail(it.path() + ": unknown syscall group \"" + n + "\"");
    } else if (seccomp_syscall_resolve_name(n.c_str()) == __NR_SCMP_ERROR) {
      return fail(it.path() + ": unknown syscall \"" + n + "\"");
    }
    return n;
  }));
  return s;
}

Result<std::vector<std::string>> parse_devices(const Value& v) {
  return string_list(v, [](const Value& it, std::string n) -> Result<std::string> {
    if (!find_device(n)) {
      std::string known;
      for (const auto& d : device_table()) known += (known.empty() ? "" : ", ") + std::string(d.name);
      return fail(it.path() + ": unknown device \"" + n + "\" (" + known + ")");
    }
    return n;
  });
}

Result<Mounts> parse_mounts(const Value& v) {
  TRYV(strict(v, {"readonlyRoot", "bindsReadOnly", "tmpfs", "readonlyBinds", "maskedPaths", "readonlyPaths"}));
  Mounts m;
  if (auto r = v.get("readonlyRoot")) m.readonly_root = TRY(boolean(*r));
  if (auto r = v.get("bindsReadOnly")) m.binds_readonly = TRY(boolean(*r));
  if (auto t = v.get("tmpfs")) {
    TRYV(t->each_item([&](size_t, const Value& it) -> Result<void> {
      TRYV(strict(it, {"path", "size", "exec"}));
      Tmpfs fs;
      auto p = TRY(it.need("path"));
      fs.path = TRY(absolute_path(p, TRY(p.as_string())));
      if (auto s = it.get("size")) fs.size = TRY(parse_size(*s, 4096, kMemoryMax));
      if (auto e = it.get("exec")) fs.exec = TRY(boolean(*e));
      for (const auto& o : m.tmpfs)
        if (o.path == fs.path) return fail(p.path() + ": duplicate \"" + fs.path + "\"");
      m.tmpfs.push_back(std::move(fs));
      return {};
    }));
  }
  if (auto b = v.get("readonlyBinds")) {
    TRYV(b->each_item([&](size_t, const Value& it) -> Result<void> {
      TRYV(strict(it, {"source", "destination"}));
      Bind bind;
      auto s = TRY(it.need("source"));
      auto d = TRY(it.need("destination"));
      bind.source = TRY(absolute_path(s, TRY(s.as_string())));
      bind.destination = TRY(absolute_path(d, TRY(d.as_string())));
      for (const auto& o : m.readonly_binds)
        if (o.destination == bind.destination) return fail(d.path() + ": duplicate \"" + bind.destination + "\"");
      m.readonly_binds.push_back(std::move(bind));
      return {};
    }));
  }
  if (auto p = v.get("maskedPaths")) m.masked_paths = TRY(string_list(*p, absolute_path));
  if (auto p = v.get("readonlyPaths")) m.readonly_paths = TRY(string_list(*p, absolute_path));
  return m;
}

// files: {"/path": ["read_file", ...]}: Landlock filesystem rights by their proposal names.
Result<std::vector<FileRule>> parse_files(const Value& v) {
  TRYV(v.expect_object());
  std::set<std::string_view> seen;  // the keys are paths: no fixed list, but no duplicate
  for (size_t i = 0; i < v.raw()->u.object.len; ++i)
    if (!seen.insert(v.raw()->u.object.keys[i]).second) return fail(v.child_path(v.raw()->u.object.keys[i]) + ": duplicate key");
  std::vector<FileRule> out;
  TRYV(v.each_member([&](std::string_view key, const Value& rights) -> Result<void> {
    FileRule r;
    r.path = clean_path(TRY(absolute_path(rights, std::string(key))));  // "/tmp/" is "/tmp"
    for (const auto& o : out)
      if (o.path == r.path) return fail(rights.path() + ": names \"" + r.path + "\" again");
    TRYV(rights.expect_array());
    if (rights.size() == 0) return fail(rights.path() + ": must grant at least one right");
    (void)TRY(string_list(rights, [&](const Value& it, std::string n) -> Result<std::string> {
      const oci::LandlockRight* right = oci::find_landlock_right(oci::LandlockKind::fs, n);
      if (!right) return fail(it.path() + ": unknown filesystem right \"" + n + "\"");
      r.access |= right->bit;
      return n;
    }));
    out.push_back(std::move(r));
    return {};
  }));
  std::ranges::sort(out, {}, &FileRule::path);
  return out;
}

Result<std::vector<uint16_t>> port_list(const Value& v) {
  std::vector<uint16_t> out;
  TRYV(v.each_item([&](size_t, const Value& it) -> Result<void> {
    auto port = uint16_t(TRY(int_in(it, 0, 65535)));
    if (std::ranges::find(out, port) != out.end()) return fail(it.path() + ": duplicate port " + std::to_string(port));
    out.push_back(port);
    return {};
  }));
  std::ranges::sort(out);
  return out;
}

Result<Ports> parse_ports(const Value& v) {
  TRYV(strict(v, {"bind", "connect"}));
  Ports p;
  if (auto b = v.get("bind")) p.bind = TRY(port_list(*b));
  if (auto c = v.get("connect")) p.connect = TRY(port_list(*c));
  return p;
}

Result<std::vector<std::string>> parse_scope(const Value& v) {
  auto list = TRY(string_list(v, [](const Value& it, std::string n) -> Result<std::string> {
    if (!oci::find_landlock_right(oci::LandlockKind::scope, n))
      return fail(it.path() + ": unknown scope \"" + n + "\" (abstract_unix_socket, signal)");
    return n;
  }));
  std::ranges::sort(list);
  return list;
}

Result<std::vector<Pin>> parse_exec(const Value& v) {
  std::vector<Pin> out;
  TRYV(v.each_item([&](size_t, const Value& it) -> Result<void> {
    TRYV(strict(it, {"path", "sha256"}));
    Pin pin;
    auto p = TRY(it.need("path"));
    pin.path = clean_path(TRY(absolute_path(p, TRY(p.as_string()))));
    if (pin.path == "/") return fail(p.path() + ": \"/\" is not a file");
    auto h = TRY(it.need("sha256"));
    pin.sha256 = TRY(h.as_string());
    bool hex = pin.sha256.size() == 64 &&
               std::ranges::all_of(pin.sha256, [](char c) { return std::isdigit(uint8_t(c)) || (c >= 'a' && c <= 'f'); });
    if (!hex) return fail(h.path() + ": \"" + pin.sha256 + "\" is not a SHA-256 (64 lowercase hex digits)");
    for (const auto& o : out)
      if (o.path == pin.path) return fail(p.path() + ": duplicate \"" + pin.path + "\"");
    out.push_back(std::move(pin));
    return {};
  }));
  std::ranges::sort(out, {}, &Pin::path);
  return out;
}

Result<std::string> parse_id(const Value& v) {
  std::string id = TRY(v.as_string());
  // It goes into an environment variable, an annotation and file names: keep it plain.
  bool ok = !id.empty() && id.size() <= 128 && std::isalnum(static_cast<unsigned char>(id[0]));
  for (char c : id) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+');
  if (!ok) return fail(v.path() + ": \"" + id + "\" is not a policy id (1-128 of A-Z a-z 0-9 . _ - +, starting alphanumeric)");
  return id;
}

Result<Policy> parse_root(const Value& root) {
  TRYV(root.expect_object());
  // Reserved sections first, so that they say "not supported yet" rather than "unknown key".
  for (auto r : reserved_sections())
    if (root.get(r)) return fail(root.child_path(r) + ": not supported yet");
  TRYV(strict(root, {"$schema", "id", "version", "description", "bestEffort", "identity", "namespaces", "network",
                     "memory", "cpu", "pids", "wallClock", "priority", "syscalls", "devices", "mounts", "role", "edges",
                     "accepts", "files", "ports", "scope", "exec", "secrets", "egress", "hooks"}));
  Policy p;
  if (auto s = root.get("$schema")) TRYV(str(*s));
  p.id = TRY(parse_id(TRY(root.need("id"))));
  auto ver = TRY(root.need("version"));
  p.version = int(TRY(int_in(ver, 0, 1000000)));
  if (p.version != kFormatVersion)
    return fail(ver.path() + ": policy format version " + std::to_string(p.version) + " is not supported (this runtime reads " +
                std::to_string(kFormatVersion) + ")");
  if (auto d = root.get("description")) p.description = TRY(str(*d));
  if (auto b = root.get("bestEffort")) p.best_effort = TRY(boolean(*b));
  if (auto o = root.get("identity")) p.identity = TRY(parse_identity(*o));
  if (auto o = root.get("namespaces")) p.namespaces = TRY(parse_namespaces(*o));
  if (auto o = root.get("network")) p.network = TRY(parse_network(*o));
  if (auto o = root.get("memory")) p.memory = TRY(parse_memory(*o));
  if (auto o = root.get("cpu")) p.cpu = TRY(parse_cpu(*o));
  if (auto o = root.get("pids")) p.pids = TRY(parse_pids(*o));
  if (auto o = root.get("wallClock")) p.wall_clock_seconds = TRY(parse_wall_clock(*o));
  if (auto o = root.get("priority")) p.priority = TRY(parse_priority(*o));
  if (auto o = root.get("syscalls")) p.syscalls = TRY(parse_syscalls(*o));
  if (auto o = root.get("devices")) p.devices = TRY(parse_devices(*o));
  if (auto o = root.get("mounts")) p.mounts = TRY(parse_mounts(*o));
  p.mesh = TRY(parse_mesh(root));
  if (auto o = root.get("files")) p.files = TRY(parse_files(*o));
  if (auto o = root.get("ports")) p.ports = TRY(parse_ports(*o));
  if (auto o = root.get("scope")) p.scope = TRY(parse_scope(*o));
  if (auto o = root.get("exec")) p.exec = TRY(parse_exec(*o));
  if (auto o = root.get("secrets")) p.secrets = TRY(parse_secrets(*o));
  if (auto o = root.get("egress")) {
    p.egress = TRY(parse_egress(*o));
    // The door listens on the container's lo and is its only way out: lo up, nothing else.
    if (p.network && *p.network != Network::loopback)
      return fail(root.child_path("network") + ": \"" + network_name(*p.network) + "\" with egress: the door listens on "
                  "the container's lo, so network is \"loopback\" (or left out, which means it)");
    p.network = Network::loopback;
  }
  if (auto o = root.get("hooks")) {
    TRYV(strict(*o, {"fromConfig"}));
    if (auto f = o->get("fromConfig")) p.hooks_from_config = TRY(boolean(*f));
  }
  // With an allowlist, execute comes only from it: a files rule granting it would let any
  // file under that path run, pinned or not.
  if (p.exec && p.files)
    for (const auto& r : *p.files)
      if (r.access & oci::find_landlock_right(oci::LandlockKind::fs, "execute")->bit)
        return fail(root.child_path("files") + "." + r.path + ": \"execute\" is granted only by the exec section "
                    "(pinned binaries) when the policy has one");
  if (p.identity.uid && p.identity.uid->ephemeral && p.namespaces.end() != std::ranges::find(p.namespaces, "user"))
    return fail(root.child_path("identity.uid") + ": \"ephemeral\" picks a host uid; it cannot be combined with a user namespace");
  return p;
}

}  // namespace

Result<Policy> parse_policy(std::string_view text, const std::string& origin) {
  auto doc = json::Document::parse(text, origin);
  if (!doc) return fail(tidy(std::move(doc.error())));
  auto root = doc->root();
  if (!root.is_object()) return fail(origin + ": expected a JSON object at the top level");
  auto p = parse_root(root);
  if (!p) return fail(tidy(std::move(p.error())));
  auto canon = canonical_json(root);
  if (!canon) return fail(tidy(std::move(canon.error())));
  p->hash = TRY(sha256_hex(*canon));
  return p;
}

Result<Policy> load_policy(const std::string& path) {
  auto text = TRY(read_file(path, 1u << 20));  // a policy is small; refuse a huge file
  return parse_policy(text, path);
}

}  // namespace sh::policy
