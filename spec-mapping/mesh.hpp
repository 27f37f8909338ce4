// The policy's per-edge mutual TLS sections (docs/edges.md): the container's `role`, the `edges` it may
// open and the roles its service `accepts`, and what they map to.
//
//   "role": "app",
//   "edges": [{"to": "db", "over": "unix"}, {"to": "cache", "over": "tcp", "port": 16379}],
//   "accepts": {"roles": ["app"], "over": "unix"}          (or "over": "tcp", "port": 5432)
//
// Mapping (DESIGN.md §3, every field visible in `policy map`):
//  - env: SHARNESS_ROLE, SHARNESS_IDENTITY_DIR, SHARNESS_EDGE_<TO>=unix:/run/sharness/edges/<to>.sock
//    or tcp:127.0.0.1:<port> (the workload's plaintext end of each edge), SHARNESS_SERVICE=
//    unix:/run/sharness/service/service.sock or tcp:127.0.0.1:<port> (where the service listens);
//  - mounts: the identity tmpfs (read-only), the edges directory (read-only: only the proxy's
//    sockets are in it), the service directory (the workload creates its socket there);
//  - hooks: createRuntime `sharness-edge up`, poststop `sharness-edge down`;
//  - the "sharness" block's "edges" object (the same three sections) for the proxy to read.
// Each edge has two checks: the client's proxy accepts only a server certificate of role <to>,
// the server's proxy only a client certificate whose role it accepts; both chains end at the
// runtime's CA.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"
#include "oci/config.hpp"

namespace sh::policy {

inline constexpr const char* kEdgesDir = "/run/sharness/edges";      // in the container
inline constexpr const char* kServiceDir = "/run/sharness/service";  // in the container
inline constexpr const char* kServiceSocket = "service.sock";

struct Edge {
  std::string to;     // the peer's role
  bool tcp = false;   // false: a UNIX socket
  uint16_t port = 0;  // tcp: the local port the workload connects to (127.0.0.1 in its netns)
  bool operator==(const Edge&) const = default;
};

struct Accepts {
  std::vector<std::string> roles;  // sorted, unique; empty: nobody
  bool tcp = false;
  uint16_t port = 0;  // tcp: the port the service listens on (127.0.0.1 in its netns)
  bool operator==(const Accepts&) const = default;
};

struct Mesh {
  std::optional<std::string> role;
  std::optional<std::vector<Edge>> edges;  // absent: none
  std::optional<Accepts> accepts;
  bool operator==(const Mesh&) const = default;
  // Does the container take part (has a role and something to do with it)?
  bool active() const { return role.has_value(); }
};

// Parse the three top-level keys of a policy document (`root` is the document's object).
Result<Mesh> parse_mesh(const json::Value& root);
// Write "role", "edges", "accepts" members into an open object.
void write_mesh_members(json::Writer& w, const Mesh& m);

// What a client's policy may add where the floor has none of it (the runtime config's
// clientPolicies.<name>.mayAdd). Default: nothing.
struct MeshGrants {
  bool role = false, edges = false, accepts = false;
  bool operator==(const MeshGrants&) const = default;
};

// Composition: only tightens. These sections grant identity and reach, so a section the floor
// lacks is none, unless `add` lets the client's stand; one the client lacks is the floor's. Roles
// must agree (a conflict leaves no role, no edges, nothing accepted); edges and accepted roles
// intersect; without a role nothing else is kept.
Mesh meet_mesh(const Mesh& floor, const Mesh& client, const MeshGrants& add = {});

// The variable name of an edge's endpoint: SHARNESS_EDGE_<TO upper, '-' -> '_'>.
std::string edge_env_name(const std::string& to);
// "unix:/run/sharness/edges/db.sock" or "tcp:127.0.0.1:15432".
std::string edge_endpoint(const Edge& e);
std::string service_endpoint(const Accepts& a);
// Env entries the workload gets (replacing any of the same names).
void apply_mesh_env(const Mesh& m, oci::Process& proc);

// Where the runtime keeps a container's host side of the mesh, and the hook binary.
struct MeshHost {
  std::string state_root;   // --root
  std::string id;           // the container id
  std::string edge_binary;  // absolute path of sharness-edge
  std::string config_path;  // --config given to the runtime ("" if none)
};
std::string host_identity_dir(const MeshHost& h);  // <root>/<id>/identity (a tmpfs)
std::string host_edges_dir(const MeshHost& h);     // <root>/<id>/edges
std::string host_service_dir(const MeshHost& h);   // <root>/<id>/service
std::string mesh_dir(const std::string& state_root);  // <root>/.edges: the server proxies' sockets

// The mounts and hooks of an active mesh, added to `c`.
void apply_mesh_host(const Mesh& m, const MeshHost& h, oci::Config& c);

// One line per check for `policy explain`: (mechanism, note).
std::vector<std::pair<std::string, std::string>> mesh_checks(const Mesh& m);

}  // namespace sh::policy
