#include "spec-mapping/kms_map.hpp"

#include "edges/identity.hpp"
#include "spec-mapping/mesh.hpp"

namespace sh::policy {

std::string kms_instance_dir(const std::string& state_root, const std::string& id) {
  return state_root + "/" + id + "/kms";
}

std::string kms_tls_dir(const std::string& state_root, const std::string& id) {
  return kms_instance_dir(state_root, id) + "/tls";
}

hooks::KmsSite kms_site(const KmsMapHost& h) {
  hooks::KmsSite site;
  site.kms_binary = h.bin_dir + "/sharness-kms";
  site.client_binary = h.bin_dir + "/sharness-kms-client";
  site.vault = h.vault;
  site.kek = h.kek;
  site.state_root = h.state_root + "/.kms";  // a dot: never a container id
  site.cgroup_parent = h.cgroup_parent;
  site.caller_role = h.role;
  site.client_cert_dir = host_identity_dir(MeshHost{h.state_root, h.id, "", ""});
  site.instance_dir = kms_instance_dir(h.state_root, h.id);
  const std::string tls = kms_tls_dir(h.state_root, h.id);
  site.ca = tls + "/" + identity::kCaFile;
  site.cert = tls + "/" + identity::kCertFile;
  site.key = tls + "/" + identity::kKeyFile;
  return site;
}

Result<hooks::KmsPlan> apply_kms_host(const hooks::SecretsPolicy& s, const KmsMapHost& h, oci::Config& c,
                                      bool symbolic) {
  return hooks::plan_kms(s, kms_site(h), h.id, c, symbolic);
}

}  // namespace sh::policy
