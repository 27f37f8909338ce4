#include "kms/host/provision.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"
#include "edges/identity.hpp"
#include "edges/provision.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::kms {
namespace {

Result<void> make_dir(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) != 0) return sys_error("mkdir " + path);
  if (::chmod(path.c_str(), mode) != 0) return sys_error("chmod " + path);  // past the umask
  return {};
}

// sharness-kms and sharness-kms-client are installed next to the runtime, as sharness-edge is.
Result<std::string> bin_dir() {
  TRY(sealed_exe::sibling("sharness-kms-client"));
  std::string kms = TRY(sealed_exe::sibling("sharness-kms"));
  return kms.substr(0, kms.rfind('/'));
}

// A policy without `secrets` whose egress rules carry credentials gets its KMS from the egress
// sidecar (egress/provision.cpp), whose refusals (rootless) it shares.
bool wanted(const policy::Extension& ext) { return ext.secrets.has_value(); }

// A KMS sidecar: its certificate and config, its socket dir, and the hooks that run it. The
// door's credentials come from it too unless the operator names a credentialsDir.
Result<void> provision(const lifecycle::SidecarHost& h, const policy::Extension& ext, oci::Config& c) {
  KmsHost kh{h.state_root, h.id, *ext.mesh->role, lifecycle::ca_dir(h.rc, h.state_root), {}};
  if (ext.egress && h.rc.egress_credentials_dir.empty()) kh.credentials = credential_grants(*ext.egress);
  TRYC("policy " + ext.policy_id + ": secrets", provision_kms(&*ext.secrets, h.rc, kh, c));
  return {};
}

}  // namespace

const lifecycle::Sidecar sidecar{
    .name = "kms",
    .wanted = wanted,
    .needs_root = "secrets need root: the KMS sidecar runs as its own host uid, apart from the workload",
    .provision = provision,
    .unprovision = unprovision_kms,
    .annotate_state = nullptr,
    .show = show_kms,
};

Result<void> provision_kms(const policy::SecretsPolicy* s, const lifecycle::RuntimeConfig& rc, const KmsHost& h,
                           oci::Config& c) {
  KmsMapHost mh{h.state_root, h.id, TRY(bin_dir()), h.role, rc.kms_vault, rc.kms_kek, rc.kms_cgroup_parent, h.credentials};
  auto plan = TRY(apply_kms_host(s, mh, c));  // checks before anything is made
  const std::string dir = kms_instance_dir(h.state_root, h.id), tls = kms_tls_dir(h.state_root, h.id);
  TRYV(make_dir(dir, 0700));
  TRYV(make_dir(tls, 0700));
  // The KMS's identity: role kms, named for this container's KMS, from the same CA as the
  // container's own certificate, so each end verifies the other against one trust root.
  TRYVC("secrets: KMS", edges::issue_into(TRY(sealed_exe::sibling("sharness-edge")), h.ca_dir,
                                          identity::LeafRequest{"kms", h.id}, tls, 0, 0));
  TRYV(write_file_atomic(plan.config_path, plan.config_json, 0600));
  // The gate binds kms.sock here; the workload reaches it through the read-only bind.
  TRYV(make_dir(plan.socket_dir, 0755));
  return {};
}

Result<void> unprovision_kms(const std::string& state_root, const std::string& id) {
  std::string dir = kms_instance_dir(state_root, id);
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) return errno == ENOENT ? Result<void>{} : sys_error("stat " + dir);
  return edges::remove_tree(dir);
}

}  // namespace sh::kms
