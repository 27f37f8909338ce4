// The host side of a policy's `secrets` section (issue 10, docs/kms.md "Policy mapping"): one
// path for `policy map` (placeholders for the state root and the container id), and `create`
// (real ones, runtime/lifecycle/kms_provision), whether the policy came with --policy or in the
// "sharness" block `policy apply` wrote. `policy apply` itself writes only what is the same for
// every container (SHARNESS_KMS_SOCKET and the block's "secrets"): the hooks and mounts name
// <root>/<id>/kms, which exists once create knows the id.
#pragma once
#include <string>

#include "base/error.hpp"
#include "hooks/kms_sidecar.hpp"
#include "oci/config.hpp"

namespace sh::policy {

struct KmsMapHost {
  std::string state_root;  // --root ("<state root>" in `policy map`)
  std::string id;          // the container id ("<container id>")
  std::string bin_dir;     // where sharness-kms and sharness-kms-client are (next to the runtime)
  std::string role;        // the container's role: the KMS's only caller
  // From the operator's runtime config ("kms": {...}); they go into the KMS's config only.
  std::string vault, kek, cgroup_parent;
};

std::string kms_instance_dir(const std::string& state_root, const std::string& id);  // <root>/<id>/kms
std::string kms_tls_dir(const std::string& state_root, const std::string& id);       // <root>/<id>/kms/tls
// The KMS site as create makes it: the KMS's certificate in kms_tls_dir, the container's
// identity dir as the client's certificates, uid claims and pid files under <root>/.kms.
hooks::KmsSite kms_site(const KmsMapHost& h);
// Add the hooks, mounts and env to `c`; the plan says what create must write before them.
Result<hooks::KmsPlan> apply_kms_host(const hooks::SecretsPolicy& s, const KmsMapHost& h, oci::Config& c,
                                      bool symbolic = false);

}  // namespace sh::policy
