// The KMS's host side: a policy's `secrets` section made real for one container by `create`,
// and undone by `delete` (the KMS sidecar of runtime/lifecycle/sidecar.hpp):
//   <root>/<id>/kms       0700 root: kms.json (the sharness-kms config), kms.sock/ (the
//                         listening socket's dir, bound read-only at /run/kms), kms.log, tls/;
//   <root>/<id>/kms/tls   the KMS's own key and certificate (role kms), issued by the runtime's
//                         CA for this container only, 0400 root: read before the KMS drops root;
//   <root>/.kms           the KMS's uid claims and pid files (shared: claims must not collide).
// The client's certificate is the container's identity (the edges sidecar, provisioned first),
// bound at /etc/kms.
#pragma once
#include <string>

#include "base/error.hpp"
#include "kms/host/plan.hpp"
#include "oci/config.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/lifecycle/sidecar.hpp"

namespace sh::kms {

// The KMS beside every container whose policy has `secrets`, or egress rules with credentials the
// door asks it for (kms_wanted; not when the runtime config names an egress credentialsDir).
extern const lifecycle::Sidecar sidecar;

struct KmsHost {
  std::string state_root;  // --root
  std::string id;          // the container id
  std::string role;        // the container's role (its certificate's)
  std::string ca_dir;      // the runtime's CA (ca_dir(rc, root))
  std::vector<std::pair<std::string, std::string>> credentials;  // the door's (KmsSite::credentials)
};

// Issue the KMS's certificate, write its config, make its socket dir, and add the hooks,
// mounts and SHARNESS_KMS_SOCKET to `c` (plan_kms). The container's identity must be
// provisioned first (its cert.pem/key.pem/ca.pem become the client's).
Result<void> provision_kms(const policy::SecretsPolicy* s, const lifecycle::RuntimeConfig& rc, const KmsHost& h,
                           oci::Config& c);
// Remove <root>/<id>/kms (after the poststop hook stopped the KMS). Idempotent.
Result<void> unprovision_kms(const std::string& state_root, const std::string& id);

}  // namespace sh::kms
