#include "edges/provision.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "base/fd.hpp"
#include "base/file.hpp"
#include "edges/identity.hpp"
#include "edges/live.hpp"
#include "hooks/hooks.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::edges {
namespace {

Result<void> make_dir(const std::string& path, mode_t mode, uint32_t uid, uint32_t gid) {
  if (::mkdir(path.c_str(), mode) < 0 && errno != EEXIST) return sys_error("mkdir " + path);
  Fd d = TRY(open_file(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
  // mkdir's mode went through the umask: set it exactly.
  if (::fchmod(d.get(), mode) < 0) return sys_error("chmod " + path);
  if (::fchown(d.get(), uid, gid) < 0) return sys_error("chown " + path);
  return {};
}

// Unlink everything below dirfd, never following a symlink out of it.
Result<void> empty_dir(int dirfd, const std::string& path) {
  Fd dup(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dup) return sys_error("open " + path);
  DIR* d = ::fdopendir(dup.release());
  if (!d) return sys_error("opendir " + path);
  Result<void> r;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    if (::unlinkat(dirfd, n.c_str(), 0) == 0 || errno == ENOENT) continue;
    if (errno != EISDIR) {
      r = sys_error("remove " + path + "/" + n);
      break;
    }
    Fd sub(::openat(dirfd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub) {
      r = sys_error("open " + path + "/" + n);
      break;
    }
    r = empty_dir(sub.get(), path + "/" + n);
    if (r && ::unlinkat(dirfd, n.c_str(), AT_REMOVEDIR) < 0) r = sys_error("rmdir " + path + "/" + n);
    if (!r) break;
  }
  ::closedir(d);
  return r;
}

bool mounted_at(const std::string& path) {
  struct stat a {}, b {};
  if (::lstat(path.c_str(), &a) < 0 || ::lstat((path + "/..").c_str(), &b) < 0) return false;
  return a.st_dev != b.st_dev;
}

}  // namespace

Result<uint32_t> host_id(const std::vector<oci::IdMapping>& maps, uint32_t id, const char* what) {
  if (maps.empty()) return id;
  for (const auto& m : maps)
    if (id >= m.container_id && uint64_t(id) < uint64_t(m.container_id) + m.size) return m.host_id + (id - m.container_id);
  return fail(std::string("container ") + what + " " + std::to_string(id) + " is not in the id mappings");
}

Result<void> remove_tree(const std::string& path) {
  Fd d(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d) {
    if (errno == ENOENT) return {};
    return sys_error("open " + path);
  }
  TRYV(empty_dir(d.get(), path));
  if (::rmdir(path.c_str()) < 0 && errno != ENOENT) return sys_error("rmdir " + path);
  return {};
}

Result<std::string> current_fingerprint(const std::string& root, const std::string& id) {
  policy::MeshHost h;
  h.state_root = root;
  h.id = id;
  std::string path = policy::host_identity_dir(h) + "/" + identity::kCertFile;
  return identity::pem_fingerprint(TRY(read_file(path, 1 << 16)), path);
}

identity::LeafRequest leaf_request(const std::string& role, const std::string& id, int64_t seconds) {
  identity::LeafRequest req;
  req.role = role;
  req.name = id;
  req.seconds = seconds;
  req.backdate = std::min<int64_t>(60, seconds / 4);
  return req;
}

Result<void> issue_into(const std::string& edge_binary, const std::string& ca_dir, const identity::LeafRequest& req,
                        const std::string& out, uint32_t uid, uint32_t gid) {
  TRYVC("certificate for " + req.name,
        hooks::run_helper(edge_binary, {"ca", "issue", "--init", "--dir", ca_dir, "--role", req.role, "--name", req.name,
                                        "--seconds", std::to_string(req.seconds), "--backdate", std::to_string(req.backdate),
                                        "--owner", std::to_string(uid) + ":" + std::to_string(gid), "--out", out}));
  return {};
}

Result<Provisioned> provision(const policy::Mesh& m, const policy::MeshHost& h, const std::string& ca_dir,
                              uint32_t uid, uint32_t gid, int64_t leaf_seconds) {
  if (!m.active()) return fail("edges: the policy gives the container no role");
  std::string idir = policy::host_identity_dir(h);
  TRYV(make_dir(idir, 0700, 0, 0));
  std::string opts = "mode=0500,size=64k,nr_inodes=16,uid=" + std::to_string(uid) + ",gid=" + std::to_string(gid);
  if (::mount("sharness-identity", idir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts.c_str()) < 0)
    return sys_error("mount identity tmpfs on " + idir);
  TRYVC("edges", issue_into(h.edge_binary, ca_dir, leaf_request(*m.role, h.id, leaf_seconds), idir, uid, gid));

  if (m.edges && !m.edges->empty()) TRYV(make_dir(policy::host_edges_dir(h), 0755, 0, 0));
  if (m.accepts && !m.accepts->tcp) TRYV(make_dir(policy::host_service_dir(h), 0711, uid, gid));
  TRYV(make_dir(policy::mesh_dir(h.state_root), 0755, 0, 0));
  std::string fp = TRY(current_fingerprint(h.state_root, h.id));
  // Proxies accept the leaf only while it is registered live (edges/live.hpp).
  TRYVC("edges", live::add(h.state_root, h.id, fp));
  return Provisioned{identity::spiffe_uri(*m.role, h.id), fp};
}

Result<void> unprovision(const policy::MeshHost& h) {
  // First: from here on no proxy accepts the leaf, whoever copied it.
  TRYVC("revoke the leaves of " + h.id, live::revoke(h.state_root, h.id));
  std::string idir = policy::host_identity_dir(h);
  // The tmpfs goes with its last reference (the container's mount namespace holds one until
  // its last process is gone): detach it here, nothing can open it by path any more.
  if (mounted_at(idir)) {
    // Unlink the key first: a process still holding the mount sees it gone too.
    Fd d = TRY(open_file(idir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    TRYV(empty_dir(d.get(), idir));
    if (::umount2(idir.c_str(), MNT_DETACH) < 0) return sys_error("unmount " + idir);
  }
  if (::rmdir(idir.c_str()) < 0 && errno != ENOENT) return sys_error("rmdir " + idir);
  TRYV(remove_tree(policy::host_edges_dir(h)));
  TRYV(remove_tree(policy::host_service_dir(h)));
  return {};
}

namespace {

bool wanted(const policy::Extension& ext) { return ext.mesh && ext.mesh->active(); }

// Per-edge mTLS: a fresh key and certificate on a tmpfs, the edge directories, and the mounts
// and hooks (sharness-edge up/down) that expose them; `state` reports the identity.
Result<void> provision_for(const lifecycle::SidecarHost& h, const policy::Extension& ext, oci::Config& c) {
  policy::MeshHost mh{h.state_root, h.id, TRY(sealed_exe::sibling("sharness-edge")), h.config_path};
  uint32_t uid = TRY(host_id(c.linux.uid_mappings, c.process->user.uid, "uid"));
  uint32_t gid = TRY(host_id(c.linux.gid_mappings, c.process->user.gid, "gid"));
  auto prov = TRY(provision(*ext.mesh, mh, lifecycle::ca_dir(h.rc, h.state_root), uid, gid, h.rc.leaf_seconds));
  policy::apply_mesh_host(*ext.mesh, mh, c);
  c.annotations[kAnnotationRole] = *ext.mesh->role;
  c.annotations[kAnnotationUri] = prov.uri;
  c.annotations[kAnnotationFingerprint] = prov.fingerprint;
  return {};
}

// After poststop (sharness-edge down): the key's tmpfs and the edge sockets go.
Result<void> unprovision_for(const std::string& state_root, const std::string& id) {
  return unprovision(policy::MeshHost{state_root, id, "", ""});
}

// A renewed leaf (docs/edges.md "Renewal") replaced the one create recorded: report the
// certificate the container holds now, while its identity tmpfs is there.
void annotate_state(const std::string& state_root, const std::string& id, std::map<std::string, std::string>& a) {
  if (auto fp = a.find(kAnnotationFingerprint); fp != a.end())
    if (auto now = current_fingerprint(state_root, id)) fp->second = *now;
}

}  // namespace

Result<void> show_edges(const policy::Extension& ext, oci::Config& c) {
  if (ext.mesh)
    policy::apply_mesh_host(*ext.mesh, policy::MeshHost{"<state root>", "<container id>",
                                                        "<dir of sharness-runtime>/sharness-edge", ""}, c);
  return {};
}

const lifecycle::Sidecar sidecar{
    .name = "edges",
    .wanted = wanted,
    .needs_root = "edges need root: each component's key lives on a tmpfs mounted and chowned by the runtime in "
                  "the host's namespaces",
    .provision = provision_for,
    .unprovision = unprovision_for,
    .annotate_state = annotate_state,
    .show = show_edges,
};

}  // namespace sh::edges
