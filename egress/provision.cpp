#include "egress/provision.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"
#include "edges/identity.hpp"
#include "edges/provision.hpp"
#include "egress/plan.hpp"
#include "hooks/hooks.hpp"
#include "kms/host/plan.hpp"
#include "kms/host/provision.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::egress {
namespace {

bool wanted(const policy::Extension& ext) { return ext.egress.has_value(); }

DoorSite site_of(const lifecycle::RuntimeConfig& rc) {
  return DoorSite{rc.egress_upstream_trust, rc.egress_hosts, rc.egress_credentials_dir, rc.egress_allow_addresses};
}

// The door's directory, CA and config; then what the container gets. Nothing runs yet.
Result<void> provision(const lifecycle::SidecarHost& h, const policy::Extension& ext, oci::Config& c) {
  DoorHost dh{h.state_root, h.id, TRY(sealed_exe::sibling("sharness-egress")), h.config_path};
  const std::string dir = door_dir(h.state_root, h.id);
  if (::mkdir(dir.c_str(), 0711) < 0) return sys_error("mkdir " + dir);
  if (::chmod(dir.c_str(), 0711) < 0) return sys_error("chmod " + dir);  // past the umask
  TRYVC("egress door CA", hooks::run_helper(dh.binary, {"ca", "init", "--name", h.id, "--dir", dir + "/" + kCaDir,
                                                        "--trust", dir + "/" + kTrustDir}));
  if (credentials_from_kms(*ext.egress, h.rc.egress_credentials_dir)) {
    // The KMS the door asks: the KMS sidecar's when the policy has secrets (provisioned before
    // this one, with the rules' credentials), else one for the door alone, its hooks before
    // the door's so that it serves when the door starts.
    if (!ext.secrets)
      TRYC("policy " + ext.policy_id + ": egress credentials",
           kms::provision_kms(nullptr, h.rc,
                              kms::KmsHost{h.state_root, h.id, "", lifecycle::ca_dir(h.rc, h.state_root),
                                           kms::credential_grants(*ext.egress)},
                              c));
    // The door's own leaf for the KMS (role egress): the KMS releases credentials to it only.
    const std::string tls = dir + "/" + kKmsTlsDir;
    if (::mkdir(tls.c_str(), 0700) < 0) return sys_error("mkdir " + tls);
    TRYVC("egress door: its KMS leaf",
          edges::issue_into(TRY(sealed_exe::sibling("sharness-edge")), lifecycle::ca_dir(h.rc, h.state_root),
                            identity::LeafRequest{"egress", h.id}, tls, 0, 0));
    const std::string mnt = dir + "/" + kKmsSocketDir;
    if (::mkdir(mnt.c_str(), 0755) < 0) return sys_error("mkdir " + mnt);
  }
  TRYV(write_file_atomic(dir + "/" + kConfigFile, door_config_json(*ext.egress, h.id, site_of(h.rc)), 0644));
  apply_egress_host(dh, c);
  return {};
}

// After the poststop hook stopped the door: its directory, CA key included.
Result<void> unprovision(const std::string& state_root, const std::string& id) {
  return edges::remove_tree(door_dir(state_root, id));
}

}  // namespace

const lifecycle::Sidecar sidecar{
    .name = "egress",
    .wanted = wanted,
    .needs_root = "egress needs root: the door runs as its own host uid in namespaces of its own, and its listener "
                  "is made inside the container's network namespace with setns",
    .provision = provision,
    .unprovision = unprovision,
    .annotate_state = nullptr,
    .show = show_egress,
};

}  // namespace sh::egress
