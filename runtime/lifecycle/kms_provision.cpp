#include "runtime/lifecycle/kms_provision.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/fd.hpp"
#include "base/file.hpp"
#include "edges/identity.hpp"
#include "edges/provision.hpp"
#include "runtime/linux/sealed_exe.hpp"
#include "spec-mapping/mesh.hpp"

namespace sh::lifecycle {
namespace {

Result<void> make_dir(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) != 0) return sys_error("mkdir " + path);
  if (::chmod(path.c_str(), mode) != 0) return sys_error("chmod " + path);  // past the umask
  return {};
}

// sharness-kms and sharness-kms-client are installed next to the runtime, as sharness-edge is.
Result<std::string> beside_self(const char* name) {
  std::string self = TRY(sealed_exe::binary_path());
  std::string path = self.substr(0, self.rfind('/') + 1) + name;
  if (::access(path.c_str(), X_OK) < 0) return sys_error(std::string(name) + " " + path + " (installed next to " + self + ")");
  return path;
}

}  // namespace

std::string kms_instance_dir(const std::string& state_root, const std::string& id) {
  return state_root + "/" + id + "/kms";
}

Result<void> provision_kms(const hooks::SecretsPolicy& s, const RuntimeConfig& rc, const KmsHost& h, oci::Config& c) {
  hooks::KmsSite site;
  site.kms_binary = TRY(beside_self("sharness-kms"));
  site.client_binary = TRY(beside_self("sharness-kms-client"));
  site.vault = rc.kms_vault;
  site.kek = rc.kms_kek;
  site.state_root = h.state_root + "/.kms";  // a dot: never a container id
  site.cgroup_parent = rc.kms_cgroup_parent;
  site.caller_role = h.role;
  site.client_cert_dir = policy::host_identity_dir(policy::MeshHost{h.state_root, h.id, "", ""});
  site.instance_dir = kms_instance_dir(h.state_root, h.id);
  const std::string tls = site.instance_dir + "/tls";
  site.ca = tls + "/" + identity::kCaFile;
  site.cert = tls + "/" + identity::kCertFile;
  site.key = tls + "/" + identity::kKeyFile;
  auto plan = TRY(hooks::plan_kms(s, site, h.id, c));  // checks before anything is made

  TRYV(make_dir(site.instance_dir, 0700));
  TRYV(make_dir(tls, 0700));
  // The KMS's identity: role kms, named for this container's KMS, from the same CA as the
  // container's own certificate, so each end verifies the other against one trust root.
  auto ca = TRYC("secrets: CA", identity::Ca::ensure(h.ca_dir));
  auto leaf = TRYC("secrets: KMS certificate", identity::issue_leaf(ca, identity::LeafRequest{"kms", h.id}));
  Fd d = TRY(open_file(tls, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  TRYV(identity::write_leaf(d.get(), leaf, 0, 0));
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

}  // namespace sh::lifecycle
