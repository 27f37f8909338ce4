#include "kms/host/plan.hpp"

#include <algorithm>

#include "spec-mapping/names.hpp"
#include "spec-mapping/mesh.hpp"

namespace sh::kms {

std::vector<std::pair<std::string, std::string>> credential_grants(const policy::EgressPolicy& e) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : e.rules)
    if (r.credential) out.emplace_back(r.credential->vault, r.host);
  std::ranges::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool kms_wanted(const policy::Extension& ext) {
  return ext.secrets || (ext.egress && !credential_grants(*ext.egress).empty());
}

Result<KmsPlan> plan_kms(const policy::SecretsPolicy* s, const KmsSite& site, const std::string& id, oci::Config& c,
                         bool symbolic) {
  if (s && (s->vaults.empty() || s->hosts.empty() || s->operations.empty()))
    return fail("secrets: nothing left to allow after composition (an empty vault, host or operation list)");
  if (s && site.caller_role.empty()) return fail("secrets: the container has no role (a KMS answers one role)");
  if (!s && site.credentials.empty()) return fail("secrets: a KMS with no caller (no secrets, no egress credentials)");
  if (!symbolic) {
    if (!policy::valid_secrets_name(id)) return fail("secrets: container id \"" + id + "\" cannot name a KMS");
    for (const auto* p : {&site.kms_binary, &site.vault, &site.kek, &site.ca, &site.cert, &site.key, &site.state_root})
      if (p->empty() || (*p)[0] != '/') return fail("secrets: KMS site paths must be absolute (got \"" + *p + "\")");
    if (s)
      for (const auto* p : {&site.client_binary, &site.client_cert_dir})
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
  if (s) w.kv("callerRole", site.caller_role);
  w.kv("callerId", id).kv("stateRoot", site.state_root);
  w.kv("cgroupParent", site.cgroup_parent).kv("log", dir + ".log");
  if (s) {
    w.key("allow").begin_object().kv("vaults", s->vaults).kv("hosts", s->hosts).kv("operations", s->operations);
    w.key("maxTtl").uinteger(s->ttl).end_object();
    w.kv("workloadMayAsk", s->workload_may_ask);
  }
  if (!site.credentials.empty()) {
    w.key("credentials").begin_array();
    for (const auto& [vault, host] : site.credentials) w.begin_object().kv("vault", vault).kv("host", host).end_object();
    w.end_array();
  }
  w.kv("allowWeakerMemory", s && s->allow_weaker_memory).end_object();
  plan.config_json = w.str();

  c.hooks.create_runtime.push_back({site.kms_binary, {"sharness-kms", "start", "--config", plan.config_path}, {}, {}});
  c.hooks.poststop.push_back({site.kms_binary, {"sharness-kms", "stop", "--config", plan.config_path}, {}, {}});
  if (!s) return plan;  // the door's only: nothing of it in the container
  c.mounts.push_back({policy::kKmsSocketDirInContainer, "bind", plan.socket_dir, {"rbind", "ro", "nosuid", "nodev", "noexec"}, {}, {}});
  c.mounts.push_back({kKmsCertDirInContainer, "bind", site.client_cert_dir, {"rbind", "ro", "nosuid", "nodev", "noexec"}, {}, {}});
  c.mounts.push_back({kKmsClientInContainer, "bind", site.client_binary, {"bind", "ro", "nosuid", "nodev"}, {}, {}});
  if (c.process) {  // replacing any the config had (`policy apply` writes it too)
    std::erase_if(c.process->env, [](const std::string& e) { return e.starts_with("SHARNESS_KMS_SOCKET="); });
    c.process->env.push_back(policy::kms_socket_env());
  }
  return plan;
}


std::string kms_instance_dir(const std::string& state_root, const std::string& id) {
  return state_root + "/" + id + "/kms";
}

std::string kms_tls_dir(const std::string& state_root, const std::string& id) {
  return kms_instance_dir(state_root, id) + "/tls";
}

std::string kms_socket_dir(const std::string& state_root, const std::string& id) {
  return kms_instance_dir(state_root, id) + "/kms.sock";  // plan_kms: <instance_dir>/kms + ".sock"
}

KmsSite kms_site(const KmsMapHost& h) {
  KmsSite site;
  site.kms_binary = h.bin_dir + "/sharness-kms";
  site.client_binary = h.bin_dir + "/sharness-kms-client";
  site.vault = h.vault;
  site.kek = h.kek;
  site.state_root = h.state_root + "/.kms";  // a dot: never a container id
  site.cgroup_parent = h.cgroup_parent;
  site.caller_role = h.role;
  site.client_cert_dir = policy::host_identity_dir(policy::MeshHost{h.state_root, h.id, "", ""});
  site.instance_dir = kms_instance_dir(h.state_root, h.id);
  const std::string tls = kms_tls_dir(h.state_root, h.id);
  site.ca = tls + "/" + naming::kCaFile;
  site.cert = tls + "/" + naming::kCertFile;
  site.key = tls + "/" + naming::kKeyFile;
  site.credentials = h.credentials;
  return site;
}

Result<KmsPlan> apply_kms_host(const policy::SecretsPolicy* s, const KmsMapHost& h, oci::Config& c,
                               bool symbolic) {
  return plan_kms(s, kms_site(h), h.id, c, symbolic);
}

Result<void> show_kms(const policy::Extension& ext, oci::Config& c) {
  // The KMS's hooks, mounts and env, by the path create takes (its config, with the vault and
  // KEK from the runtime config, is written by create under the state root, never here).
  if (!kms_wanted(ext)) return {};
  TRY(apply_kms_host(ext.secrets ? &*ext.secrets : nullptr,
                     KmsMapHost{"<state root>", "<container id>", "<dir of sharness-runtime>",
                                ext.secrets ? *ext.mesh->role : "", "<runtime config kms.vault>",
                                "<runtime config kms.kek>", "/sharness-kms",
                                ext.egress ? credential_grants(*ext.egress) : decltype(KmsMapHost::credentials){}},
                     c, true));
  return {};
}

}  // namespace sh::kms
