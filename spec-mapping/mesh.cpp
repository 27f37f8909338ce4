#include "spec-mapping/mesh.hpp"

#include <algorithm>
#include <set>

#include "spec-mapping/names.hpp"

namespace sh::policy {
namespace {

Result<void> strict(const json::Value& v, std::initializer_list<std::string_view> keys) {
  TRYV(v.expect_object());
  std::set<std::string_view> seen;
  for (size_t i = 0; i < v.raw()->u.object.len; ++i)
    if (!seen.insert(v.raw()->u.object.keys[i]).second) return fail(v.child_path(v.raw()->u.object.keys[i]) + ": duplicate key");
  return v.only_keys(keys);
}

Result<std::string> role_at(const json::Value& v) {
  std::string r = TRY(v.as_string());
  TRYC(v.path(), naming::validate_role(r));
  // The egress door's leaf carries role "egress" and the container's id: a workload with that
  // role would pass for its own door at the KMS and be handed the door's credentials.
  if (r == "egress") return fail(v.path() + ": \"egress\" is the egress door's role, reserved");
  return r;
}

// "over": "unix" | "tcp" (+ "port" for tcp, none for unix).
Result<void> transport(const json::Value& v, bool& tcp, uint16_t& port) {
  std::string over = TRY(TRY(v.need("over")).as_string());
  if (over != "unix" && over != "tcp")
    return fail(v.child_path("over") + ": expected \"unix\" or \"tcp\", got \"" + over + "\"");
  tcp = over == "tcp";
  auto p = v.get("port");
  if (tcp && !p) return fail(v.child_path("port") + ": required with \"over\": \"tcp\"");
  if (!tcp && p) return fail(v.child_path("port") + ": only with \"over\": \"tcp\"");
  if (p) port = uint16_t(TRY(p->as_int_in(1, 65535)));
  return {};
}

void write_transport(json::Writer& w, bool tcp, uint16_t port) {
  w.kv("over", tcp ? "tcp" : "unix");
  if (tcp) w.key("port").uinteger(port);
}

std::string upper_env(const std::string& role) {
  std::string out;
  for (char c : role) out.push_back(c == '-' ? '_' : (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c);
  return out;
}

}  // namespace

Result<Mesh> parse_mesh(const json::Value& root) {
  Mesh m;
  if (auto r = root.get("role")) m.role = TRY(role_at(*r));
  if (auto e = root.get("edges")) {
    std::vector<Edge> edges;
    TRYV(e->each_item([&](size_t, const json::Value& it) -> Result<void> {
      TRYV(strict(it, {"to", "over", "port"}));
      Edge edge;
      edge.to = TRY(role_at(TRY(it.need("to"))));
      TRYV(transport(it, edge.tcp, edge.port));
      for (const auto& o : edges)
        if (o.to == edge.to) return fail(it.child_path("to") + ": a second edge to \"" + edge.to + "\"");
      edges.push_back(std::move(edge));
      return {};
    }));
    m.edges = std::move(edges);
  }
  if (auto a = root.get("accepts")) {
    TRYV(strict(*a, {"roles", "over", "port"}));
    Accepts acc;
    auto roles = TRY(a->need("roles"));
    TRYV(roles.each_item([&](size_t, const json::Value& it) -> Result<void> {
      std::string r = TRY(role_at(it));
      if (std::ranges::find(acc.roles, r) != acc.roles.end()) return fail(it.path() + ": duplicate \"" + r + "\"");
      acc.roles.push_back(std::move(r));
      return {};
    }));
    std::ranges::sort(acc.roles);
    TRYV(transport(*a, acc.tcp, acc.port));
    m.accepts = std::move(acc);
  }
  if (!m.role && ((m.edges && !m.edges->empty()) || m.accepts))
    return fail(root.child_path("role") + ": required with \"edges\" or \"accepts\" (it goes into the certificate)");
  if (m.edges && m.accepts && m.accepts->tcp)
    for (const auto& e : *m.edges)
      if (e.tcp && e.port == m.accepts->port)
        return fail(root.child_path("edges") + ": port " + std::to_string(e.port) + " is also the service's port");
  if (m.edges)
    for (size_t i = 0; i < m.edges->size(); ++i)
      for (size_t j = i + 1; j < m.edges->size(); ++j)
        if ((*m.edges)[i].tcp && (*m.edges)[j].tcp && (*m.edges)[i].port == (*m.edges)[j].port)
          return fail(root.child_path("edges") + ": two edges on port " + std::to_string((*m.edges)[i].port));
  return m;
}

void write_mesh_members(json::Writer& w, const Mesh& m) {
  if (m.role) w.kv("role", *m.role);
  if (m.edges) {
    w.key("edges").begin_array();
    for (const auto& e : *m.edges) {
      w.begin_object().kv("to", e.to);
      write_transport(w, e.tcp, e.port);
      w.end_object();
    }
    w.end_array();
  }
  if (m.accepts) {
    w.key("accepts").begin_object().kv("roles", m.accepts->roles);
    write_transport(w, m.accepts->tcp, m.accepts->port);
    w.end_object();
  }
}

namespace {
// One section of a grant: both sides have it: `both`; only the floor: the floor's; only the
// client: the client's if the operator lets it add this section; neither: none.
template <class T, class F>
std::optional<T> meet_grant(const std::optional<T>& floor, const std::optional<T>& client, bool add, F both) {
  if (floor && client) return both(*floor, *client);
  if (floor) return floor;
  return add ? client : std::nullopt;
}
}  // namespace

Mesh meet_mesh(const Mesh& floor, const Mesh& client, const MeshGrants& add) {
  Mesh out;
  // Two identities cannot both hold: the container gets none, and with it nothing else.
  out.role = meet_grant(floor.role, client.role, add.role,
                        [](const std::string& f, const std::string& c) { return f == c ? std::optional(f) : std::nullopt; });
  if (!out.role) return out;
  out.edges = meet_grant(floor.edges, client.edges, add.edges, [](const std::vector<Edge>& f, const std::vector<Edge>& c) {
    std::vector<Edge> kept;
    for (const auto& e : f)
      if (std::ranges::find(c, e) != c.end()) kept.push_back(e);
    return std::optional(kept);
  });
  out.accepts = meet_grant(floor.accepts, client.accepts, add.accepts, [](const Accepts& f, const Accepts& c) {
    Accepts acc = f;  // another transport or port: nobody is accepted
    acc.roles.clear();
    if (f.tcp == c.tcp && f.port == c.port)
      for (const auto& r : f.roles)
        if (std::ranges::find(c.roles, r) != c.roles.end()) acc.roles.push_back(r);
    return std::optional(acc);
  });
  return out;
}

std::string edge_env_name(const std::string& to) { return "SHARNESS_EDGE_" + upper_env(to); }

std::string edge_endpoint(const Edge& e) {
  if (e.tcp) return "tcp:127.0.0.1:" + std::to_string(e.port);
  return "unix:" + std::string(kEdgesDir) + "/" + e.to + ".sock";
}

std::string service_endpoint(const Accepts& a) {
  if (a.tcp) return "tcp:127.0.0.1:" + std::to_string(a.port);
  return "unix:" + std::string(kServiceDir) + "/" + kServiceSocket;
}

void apply_mesh_env(const Mesh& m, oci::Process& proc) {
  std::erase_if(proc.env, [](const std::string& e) {
    return e.starts_with("SHARNESS_EDGE_") || e.starts_with("SHARNESS_ROLE=") || e.starts_with("SHARNESS_SERVICE=") ||
           e.starts_with("SHARNESS_IDENTITY_DIR=");
  });
  if (!m.active()) return;
  proc.env.push_back("SHARNESS_ROLE=" + *m.role);
  proc.env.push_back(std::string("SHARNESS_IDENTITY_DIR=") + naming::kContainerDir);
  if (m.edges)
    for (const auto& e : *m.edges) proc.env.push_back(edge_env_name(e.to) + "=" + edge_endpoint(e));
  if (m.accepts) proc.env.push_back("SHARNESS_SERVICE=" + service_endpoint(*m.accepts));
}

std::string host_identity_dir(const MeshHost& h) { return h.state_root + "/" + h.id + "/identity"; }
std::string host_edges_dir(const MeshHost& h) { return h.state_root + "/" + h.id + "/edges"; }
std::string host_service_dir(const MeshHost& h) { return h.state_root + "/" + h.id + "/service"; }
std::string mesh_dir(const std::string& state_root) { return state_root + "/.edges"; }

void apply_mesh_host(const Mesh& m, const MeshHost& h, oci::Config& c) {
  if (!m.active()) return;
  auto bind = [&](std::string dst, std::string src, bool ro) {
    std::erase_if(c.mounts, [&](const oci::Mount& o) { return o.destination == dst; });
    c.mounts.push_back(oci::Mount{std::move(dst), "bind", std::move(src),
                                  {"rbind", ro ? "ro" : "rw", "nosuid", "nodev", "noexec"}, {}, {}});
  };
  bind(naming::kContainerDir, host_identity_dir(h), true);
  bool unix_edge = m.edges && std::ranges::any_of(*m.edges, [](const Edge& e) { return !e.tcp; });
  if (unix_edge) bind(kEdgesDir, host_edges_dir(h), true);
  if (m.accepts && !m.accepts->tcp) bind(kServiceDir, host_service_dir(h), false);
  std::vector<std::string> up = {h.edge_binary, "up", "--root", h.state_root};
  std::vector<std::string> down = {h.edge_binary, "down", "--root", h.state_root};
  if (!h.config_path.empty()) {
    up.insert(up.end(), {"--config", h.config_path});
    down.insert(down.end(), {"--config", h.config_path});
  }
  c.hooks.create_runtime.push_back(oci::Hook{h.edge_binary, up, {}, 30});
  c.hooks.poststop.push_back(oci::Hook{h.edge_binary, down, {}, 30});
}

std::vector<std::pair<std::string, std::string>> mesh_checks(const Mesh& m) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!m.active()) return out;
  out.push_back({"identity: role " + *m.role + ", a fresh key and a short-lived certificate " +
                     naming::spiffe_uri(*m.role, "<container id>") + " on a read-only tmpfs at " +
                     naming::kContainerDir,
                 "destroyed on delete"});
  if (m.edges)
    for (const auto& e : *m.edges)
      out.push_back({"edge to " + e.to + " over " + (e.tcp ? "tcp port " + std::to_string(e.port) : std::string("unix")) +
                         " (" + edge_endpoint(e) + "): check 1, our proxy accepts only a server certificate of role " +
                         e.to + " from the runtime's CA; check 2, " + e.to +
                         "'s proxy accepts only client roles it lists",
                     "TLS 1.3, refused before any payload byte"});
  if (m.accepts) {
    std::string roles;
    for (const auto& r : m.accepts->roles) roles += (roles.empty() ? "" : ", ") + r;
    out.push_back({"service (" + service_endpoint(*m.accepts) + ") accepts only client certificates of role " +
                       (roles.empty() ? std::string("(none)") : roles) + " from the runtime's CA",
                   "checked by our proxy before it connects to the service"});
  }
  if (!m.edges || m.edges->empty()) out.push_back({"no outgoing edge: the container has no endpoint to any peer", ""});
  return out;
}

}  // namespace sh::policy
