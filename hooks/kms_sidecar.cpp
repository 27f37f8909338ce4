#include "hooks/kms_sidecar.hpp"

#include <algorithm>
#include <set>

namespace sh::hooks {
namespace {

bool good_name(std::string_view v) {
  if (v.empty() || v.size() > 253) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == ':';
  });
}

Result<std::vector<std::string>> name_list(const json::Value& v, std::string_view key) {
  auto list = TRY(v.need(key));
  TRYV(list.expect_array());
  std::set<std::string> out;
  TRYV(list.each_item([&](size_t i, const json::Value& item) -> Result<void> {
    std::string s = TRY(item.as_string());
    if (!good_name(s)) return fail(list.item_path(i) + ": \"" + s + "\" is not 1-253 characters of [A-Za-z0-9._:-]");
    out.insert(std::move(s));
    return {};
  }));
  if (out.empty()) return fail(list.path() + ": must name at least one");
  return std::vector<std::string>(out.begin(), out.end());
}

std::vector<std::string> common(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return "[" + s + "]";
}

}  // namespace

Result<SecretsPolicy> parse_secrets(const json::Value& v) {
  TRYV(v.expect_object());
  TRYV(v.only_keys({"vaults", "hosts", "operations", "ttl", "allowWeakerMemory"}));
  SecretsPolicy s;
  s.vaults = TRY(name_list(v, "vaults"));
  s.hosts = TRY(name_list(v, "hosts"));
  s.operations = TRY(name_list(v, "operations"));
  s.ttl = static_cast<uint64_t>(TRY(TRY(v.need("ttl")).as_int_in(1, 30 * 24 * 3600)));
  TRYV(v.opt("allowWeakerMemory", s.allow_weaker_memory));
  return s;
}

SecretsPolicy intersect_secrets(const SecretsPolicy& a, const SecretsPolicy& b) {
  return {common(a.vaults, b.vaults), common(a.hosts, b.hosts), common(a.operations, b.operations),
          std::min(a.ttl, b.ttl), a.allow_weaker_memory && b.allow_weaker_memory};
}

void write_secrets(json::Writer& w, const SecretsPolicy& s) {
  w.begin_object().kv("vaults", s.vaults).kv("hosts", s.hosts).kv("operations", s.operations);
  w.key("ttl").uinteger(s.ttl);
  if (s.allow_weaker_memory) w.kv("allowWeakerMemory", true);  // absent: false (and the policy hash unchanged)
  w.end_object();
}

std::string describe_secrets(const SecretsPolicy& s) {
  return "secrets: KMS sidecar (other uid, empty namespaces, frozen between calls, keys in memfd_secret" +
         std::string(s.allow_weaker_memory ? ", or where the kernel lacks it the WEAKER mode the policy allows: "
                                             "mlocked anonymous memory root can read"
                                           : "; refuses to start where the kernel lacks it") +
         "): vaults " + joined(s.vaults) + ", hosts " + joined(s.hosts) + ", operations " + joined(s.operations) +
         ", ttl <= " + std::to_string(s.ttl) + " s; the master keys never enter the container";
}

Result<KmsPlan> plan_kms(const SecretsPolicy& s, const KmsSite& site, const std::string& id, oci::Config& c,
                         bool symbolic) {
  if (s.vaults.empty() || s.hosts.empty() || s.operations.empty())
    return fail("secrets: nothing left to allow after composition (an empty vault, host or operation list)");
  if (site.caller_role.empty()) return fail("secrets: the container has no role (a KMS answers one role)");
  if (!symbolic) {
    if (!good_name(id)) return fail("secrets: container id \"" + id + "\" cannot name a KMS");
    for (const auto* p : {&site.kms_binary, &site.client_binary, &site.vault, &site.kek, &site.ca, &site.cert,
                          &site.key, &site.state_root, &site.client_cert_dir})
      if (p->empty() || (*p)[0] != '/') return fail("secrets: KMS site paths must be absolute (got \"" + *p + "\")");
    if (!site.instance_dir.empty() && site.instance_dir[0] != '/')
      return fail("secrets: KMS site paths must be absolute (got \"" + site.instance_dir + "\")");
  }
  KmsPlan plan;
  // <instance_dir>/kms.{json,sock,log}, or <state_root>/<id>.{json,sock,log}
  const std::string dir = site.instance_dir.empty() ? site.state_root + "/" + id : site.instance_dir + "/kms";
  plan.config_path = dir + ".json";
  plan.socket_dir = dir + ".sock";
  json::Writer w(true);
  w.begin_object().kv("name", id).kv("vault", site.vault).kv("kek", site.kek).kv("socket", plan.socket_dir + "/kms.sock");
  w.key("tls").begin_object().kv("ca", site.ca).kv("cert", site.cert).kv("key", site.key).end_object();
  w.kv("callerRole", site.caller_role).kv("callerId", id).kv("stateRoot", site.state_root);
  w.kv("cgroupParent", site.cgroup_parent).kv("log", dir + ".log");
  w.key("allow").begin_object().kv("vaults", s.vaults).kv("hosts", s.hosts).kv("operations", s.operations);
  w.key("maxTtl").uinteger(s.ttl).end_object();
  w.kv("allowWeakerMemory", s.allow_weaker_memory).end_object();
  plan.config_json = w.str();

  c.hooks.create_runtime.push_back({site.kms_binary, {"sharness-kms", "start", "--config", plan.config_path}, {}, {}});
  c.hooks.poststop.push_back({site.kms_binary, {"sharness-kms", "stop", "--config", plan.config_path}, {}, {}});
  c.mounts.push_back({kKmsSocketDirInContainer, "bind", plan.socket_dir, {"rbind", "ro", "nosuid", "nodev", "noexec"}, {}, {}});
  c.mounts.push_back({kKmsCertDirInContainer, "bind", site.client_cert_dir, {"rbind", "ro", "nosuid", "nodev", "noexec"}, {}, {}});
  c.mounts.push_back({kKmsClientInContainer, "bind", site.client_binary, {"bind", "ro", "nosuid", "nodev"}, {}, {}});
  if (c.process) {  // replacing any the config had (`policy apply` writes it too)
    std::erase_if(c.process->env, [](const std::string& e) { return e.starts_with("SHARNESS_KMS_SOCKET="); });
    c.process->env.push_back(kms_socket_env());
  }
  return plan;
}

}  // namespace sh::hooks
