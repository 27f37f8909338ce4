#include "kms/config.hpp"

#include "base/file.hpp"
#include "base/json.hpp"

namespace sh::kms {
namespace {

Result<std::string> need_string(const json::Value& v, std::string_view key) {
  return TRY(v.need(key)).as_string();
}

Result<std::string> need_path(const json::Value& v, std::string_view key) {
  std::string s = TRY(need_string(v, key));
  if (s.empty() || s[0] != '/') return v.error(std::string(key) + ": must be an absolute path");
  return s;
}

Result<std::vector<std::string>> names(const json::Value& v, std::string_view key) {
  auto list = TRY(v.need(key));
  TRYV(list.expect_array());
  std::vector<std::string> out;
  TRYV(list.each_item([&](size_t i, const json::Value& item) -> Result<void> {
    std::string s = TRY(item.as_string());
    if (auto r = check_name(key, s); !r) return fail(list.item_path(i) + ": " + r.error().what());
    out.push_back(std::move(s));
    return {};
  }));
  if (out.empty()) return fail(list.path() + ": must name at least one");
  return out;
}

}  // namespace

Result<Config> parse_config(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  TRYV(root.only_keys({"name", "vault", "kek", "socket", "tls", "callerRole", "callerId", "allow", "workloadMayAsk",
                       "credentials", "log", "stateRoot", "cgroupParent", "memoryLimit", "allowWeakerMemory"}));
  Config c;
  c.name = TRY(need_string(root, "name"));
  if (auto r = check_name("name", c.name); !r) return fail(root.child_path("name") + ": " + r.error().what());
  c.vault = TRY(need_path(root, "vault"));
  c.kek = TRY(need_path(root, "kek"));
  c.socket = TRY(need_path(root, "socket"));
  auto tls = TRY(root.need("tls"));
  TRYV(tls.only_keys({"ca", "cert", "key"}));
  c.tls.ca = TRY(need_path(tls, "ca"));
  c.tls.cert = TRY(need_path(tls, "cert"));
  c.tls.key = TRY(need_path(tls, "key"));
  TRYV(root.opt("callerRole", c.caller_role));
  if (!c.caller_role.empty()) {
    if (auto r = check_name("callerRole", c.caller_role); !r)
      return fail(root.child_path("callerRole") + ": " + r.error().what());
    if (c.caller_role == kDoorRole)
      return fail(root.child_path("callerRole") + ": \"" + kDoorRole + "\" is the egress door's role, not a workload's");
  }
  // Every KMS serves one container: its callers' leaves must name it, whatever their role (the
  // host's CA signs every container's leaves, so a role alone would admit another container's).
  if (!root.get("callerId"))
    return fail(origin + ": no callerId (the container whose leaves alone the KMS answers)");
  c.caller_id = TRY(need_string(root, "callerId"));
  if (auto r = check_name("callerId", c.caller_id); !r) return fail(root.child_path("callerId") + ": " + r.error().what());
  if (auto allow = root.get("allow")) {
    if (c.caller_role.empty()) return fail(root.child_path("allow") + ": needs a callerRole (who would ask?)");
    TRYV(allow->only_keys({"vaults", "hosts", "operations", "maxTtl"}));
    c.allow.vaults = TRY(names(*allow, "vaults"));
    c.allow.hosts = TRY(names(*allow, "hosts"));
    c.allow.ops = TRY(names(*allow, "operations"));
    c.allow.max_ttl = static_cast<uint64_t>(TRY(TRY(allow->need("maxTtl")).as_int_in(1, 30 * 24 * 3600)));
  }
  TRYV(root.opt("workloadMayAsk", c.workload_may_ask));
  if (c.workload_may_ask && c.allow.vaults.empty())
    return fail(root.child_path("workloadMayAsk") + ": true without an \"allow\" (nothing to ask for)");
  if (auto creds = root.get("credentials")) {
    TRYV(creds->expect_array());
    TRYV(creds->each_item([&](size_t i, const json::Value& item) -> Result<void> {
      TRYV(item.only_keys({"vault", "host"}));
      CredentialGrant g{TRY(need_string(item, "vault")), TRY(need_string(item, "host"))};
      if (auto r = check_name("vault", g.vault); !r) return fail(creds->item_path(i) + ": " + r.error().what());
      if (auto r = check_host_pattern("host", g.host); !r) return fail(creds->item_path(i) + ": " + r.error().what());
      c.credentials.push_back(std::move(g));
      return {};
    }));
  }
  if (c.caller_roles().empty())
    return fail(origin + ": no caller: neither a callerRole nor credentials for the egress door");
  TRYV(root.opt("log", c.log));
  TRYV(root.opt("stateRoot", c.state_root));
  TRYV(root.opt("cgroupParent", c.cgroup_parent));
  if (auto m = root.get("memoryLimit")) c.memory_limit = static_cast<uint64_t>(TRY(m->as_int_in(4 << 20, 1ll << 34)));
  TRYV(root.opt("allowWeakerMemory", c.allow_weaker_memory));
  return c;
}

std::vector<std::string> Config::caller_roles() const {
  std::vector<std::string> r;
  if (!caller_role.empty()) r.push_back(caller_role);
  if (!credentials.empty()) r.push_back(kDoorRole);
  return r;
}

Result<Config> load_config(const std::string& path) { return parse_config(TRY(read_file(path, 1 << 20)), path); }

}  // namespace sh::kms
