// The KMS's plan: for one container, the sharness-kms config and the hooks and mounts that run
// it, added to its config.json (docs/kms.md "Policy mapping"). One path for `policy map`
// (placeholders for the state root and the container id) and `create` (real ones,
// kms/host/provision), whether the policy came with --policy or in the "sharness" block `policy
// apply` wrote. `policy apply` itself writes only what is the same for every container
// (SHARNESS_KMS_SOCKET and the block's "secrets"): the hooks and mounts name <root>/<id>/kms,
// which exists once create knows the id.
#pragma once
#include <string>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/egress.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/secrets.hpp"

namespace sh::kms {

// What the operator's runtime config says about KMS sidecars on this host.
struct KmsSite {
  std::string kms_binary, client_binary;  // host paths of sharness-kms and sharness-kms-client
  std::string vault, kek;                 // the sealed vault and its key-encryption key
  std::string ca, cert, key;              // the KMS's own identity (role kms) and the CA
  std::string state_root = "/run/sharness-kms";
  std::string cgroup_parent = "/sharness-kms";
  std::string caller_role;                // the container's role
  std::string client_cert_dir;            // host dir with the container's ca.pem, cert.pem, key.pem
  // Where this container's KMS config, socket dir and log go; empty: beside state_root
  // (<state_root>/<id>.json, .sock, .log). Uid claims and pid files stay under state_root.
  std::string instance_dir;
  // The (vault, host) pairs the container's egress door may ask credentials for: the egress
  // rules' (credential_grants). Empty: the door asks nothing of this KMS.
  std::vector<std::pair<std::string, std::string>> credentials;
};

// The (credential vault, rule host) pairs of the rules that carry a credential, sorted, unique.
std::vector<std::pair<std::string, std::string>> credential_grants(const policy::EgressPolicy& e);

// Where things go inside the container (the socket dir: policy::kKmsSocketDirInContainer).
inline constexpr const char* kKmsCertDirInContainer = "/etc/kms";
inline constexpr const char* kKmsClientInContainer = "/usr/bin/sharness-kms-client";

struct KmsPlan {
  std::string config_path;  // write config_json here (0600) before the createRuntime hooks run
  std::string config_json;  // a sharness-kms config (kms/config.hpp), callerId = the container id
  std::string socket_dir;   // create it (0755) before the container's mounts are made
};
// For container `id`: the plan, and `c` gets a createRuntime hook (sharness-kms start), a
// poststop hook (stop), the socket dir, the certificates and the client bind-mounted read-only,
// and SHARNESS_KMS_SOCKET in the process environment.
// `symbolic`: for `policy map`, whose id and state root are placeholders ("<container id>"):
// the id and path checks are skipped (create always checks).
// `s` null: a KMS for the door only (a policy whose egress rules carry credentials, without a
// `secrets` section): nothing of it enters the container.
Result<KmsPlan> plan_kms(const policy::SecretsPolicy* s, const KmsSite& site, const std::string& id, oci::Config& c,
                         bool symbolic = false);
inline Result<KmsPlan> plan_kms(const policy::SecretsPolicy& s, const KmsSite& site, const std::string& id,
                                oci::Config& c, bool symbolic = false) {
  return plan_kms(&s, site, id, c, symbolic);
}

struct KmsMapHost {
  std::string state_root;  // --root ("<state root>" in `policy map`)
  std::string id;          // the container id ("<container id>")
  std::string bin_dir;     // where sharness-kms and sharness-kms-client are (next to the runtime)
  std::string role;        // the container's role: the KMS's only caller
  // From the operator's runtime config ("kms": {...}); they go into the KMS's config only.
  std::string vault, kek, cgroup_parent;
  std::vector<std::pair<std::string, std::string>> credentials;  // KmsSite::credentials
};

std::string kms_instance_dir(const std::string& state_root, const std::string& id);  // <root>/<id>/kms
std::string kms_tls_dir(const std::string& state_root, const std::string& id);       // <root>/<id>/kms/tls
std::string kms_socket_dir(const std::string& state_root, const std::string& id);    // <root>/<id>/kms/kms.sock
// The KMS site as create makes it: the KMS's certificate in kms_tls_dir, the container's
// identity dir as the client's certificates, uid claims and pid files under <root>/.kms.
KmsSite kms_site(const KmsMapHost& h);
// Add the hooks, mounts and env to `c`; the plan says what create must write before them.
Result<KmsPlan> apply_kms_host(const policy::SecretsPolicy* s, const KmsMapHost& h, oci::Config& c,
                               bool symbolic = false);
inline Result<KmsPlan> apply_kms_host(const policy::SecretsPolicy& s, const KmsMapHost& h, oci::Config& c,
                                      bool symbolic = false) {
  return apply_kms_host(&s, h, c, symbolic);
}
// Does the container get a KMS: a `secrets` section, or egress rules with a credential (the
// door asks the KMS for it unless the runtime config names a credentialsDir; the egress sidecar
// provisions that KMS when the policy has no `secrets`)?
bool kms_wanted(const policy::Extension& ext);
// What `policy map` shows of the KMS: its hooks, mounts and env, with placeholders.
Result<void> show_kms(const policy::Extension& ext, oci::Config& c);

}  // namespace sh::kms
