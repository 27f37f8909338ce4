// The edges' host side: a container's identity and edges, made by `create` and undone by
// `delete` (the edges sidecar of runtime/lifecycle/sidecar.hpp):
//   <root>/<id>/identity  a tmpfs (nosuid,nodev,noexec, mode 0500, owned by the container's
//                         user) holding cert.pem, key.pem, ca.pem (0400): the key is generated
//                         for this container, never written to disk, gone when the tmpfs is;
//   <root>/<id>/edges     0755 root: the client proxy's plaintext sockets, one per UNIX edge;
//   <root>/<id>/service   0711, owned by the container's user: where its service listens;
//   <root>/.edges         0755 root: the server proxies' TLS sockets, <role>/<id>.sock,
//                         and the live registry .live/<id>/<fingerprint> (edges/live.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "edges/identity.hpp"
#include "oci/config.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "spec-mapping/mesh.hpp"

namespace sh::edges {

// The edges beside every container whose policy gives it a role.
extern const lifecycle::Sidecar sidecar;
// What `policy map` shows of the edges: their mounts and hooks, with placeholders.
Result<void> show_edges(const policy::Extension& ext, oci::Config& c);

struct Provisioned {
  std::string uri, fingerprint;
};

inline constexpr const char* kAnnotationRole = "org.sharness.edge.role";
inline constexpr const char* kAnnotationFingerprint = "org.sharness.identity.fingerprint";
inline constexpr const char* kAnnotationUri = "org.sharness.identity.uri";

// Issue the container's leaf (issue_into), register it live, and lay out the directories above.
// uid/gid: the container user as the host sees it. `leaf_seconds`: the leaf's lifetime (the
// runtime config's edges.leafSeconds).
Result<Provisioned> provision(const policy::Mesh& m, const policy::MeshHost& h, const std::string& ca_dir,
                              uint32_t uid, uint32_t gid, int64_t leaf_seconds);

// A fresh key and leaf for `req` from the CA in ca_dir (made on first use), written into the
// directory `out` (cert.pem, key.pem, ca.pem, 0400, owned by uid:gid) by `sharness-edge ca issue`:
// the X.509 code lives in that binary, not the runtime's (bench/results/profile.md).
Result<void> issue_into(const std::string& edge_binary, const std::string& ca_dir, const identity::LeafRequest& req,
                        const std::string& out, uint32_t uid, uint32_t gid);

// A leaf request for a container: its role and id, `seconds` of validity, backdated by at
// most a minute and never by more than a quarter of its life (short test lifetimes).
identity::LeafRequest leaf_request(const std::string& role, const std::string& id, int64_t seconds);
// Revoke the container's leaves (the live registry), unmount the identity tmpfs and remove the
// container's directories. Idempotent.
Result<void> unprovision(const policy::MeshHost& h);

// The SHA-256 fingerprint of the certificate now in <root>/<id>/identity (renewal replaces it).
Result<std::string> current_fingerprint(const std::string& root, const std::string& id);

// The host id of a container id through OCI id mappings (identity when there are none).
Result<uint32_t> host_id(const std::vector<oci::IdMapping>& maps, uint32_t id, const char* what);

// Remove a directory tree without following symlinks (for directories a container could write).
Result<void> remove_tree(const std::string& path);

}  // namespace sh::edges
