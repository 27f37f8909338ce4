// Policy role / edges / accepts: parsing, composition, and what they map to (env, mounts,
// hooks, the "sharness" block, explain).
#define BOOST_TEST_MODULE policy_mesh
#include <boost/test/unit_test.hpp>

#include "sidecar_shows.hpp"

#include <algorithm>
#include <string>

#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/map.hpp"
#include "spec-mapping/policy.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

std::string doc(const std::string& body) { return R"({"id": "p", "version": 1)" + (body.empty() ? "" : ", " + body) + "}"; }

Policy parse(const std::string& body) {
  auto p = parse_policy(doc(body));
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

std::string error_of(const std::string& body) {
  auto p = parse_policy(doc(body));
  return p ? "" : p.error().what();
}

bool has_env(const oci::Process& p, const std::string& e) { return std::ranges::find(p.env, e) != p.env.end(); }

const char* kApp = R"("role": "app", "edges": [{"to": "db", "over": "unix"}, {"to": "cache", "over": "tcp", "port": 16379}])";
const char* kDb = R"("role": "db", "accepts": {"roles": ["app", "admin"], "over": "unix"})";

}  // namespace

BOOST_AUTO_TEST_CASE(parses_role_edges_accepts) {
  Policy a = parse(kApp);
  BOOST_REQUIRE(a.mesh.role);
  BOOST_TEST(*a.mesh.role == "app");
  BOOST_REQUIRE(a.mesh.edges);
  BOOST_REQUIRE(a.mesh.edges->size() == 2u);
  BOOST_TEST((*a.mesh.edges)[0].to == "db");
  BOOST_TEST(!(*a.mesh.edges)[0].tcp);
  BOOST_TEST((*a.mesh.edges)[1].tcp);
  BOOST_TEST((*a.mesh.edges)[1].port == 16379);
  Policy d = parse(kDb);
  BOOST_REQUIRE(d.mesh.accepts);
  BOOST_TEST((d.mesh.accepts->roles == std::vector<std::string>{"admin", "app"}));  // sorted
  // Round trip through policy_to_json.
  auto back = parse_policy(policy_to_json(a));
  BOOST_REQUIRE(back);
  BOOST_TEST((back->mesh == a.mesh));
}

BOOST_AUTO_TEST_CASE(bad_sections_name_the_path) {
  BOOST_TEST(error_of(R"("edges": [{"to": "db", "over": "unix"}])").find("role: required") != std::string::npos);
  BOOST_TEST(error_of(R"("accepts": {"roles": [], "over": "unix"})").find("role: required") != std::string::npos);
  BOOST_TEST(error_of(R"("role": "Bad")").find("is not a role") != std::string::npos);
  BOOST_TEST(error_of(R"("role": "a", "edges": [{"to": "db", "over": "pipe"}])").find("edges[0].over") != std::string::npos,
             error_of(R"("role": "a", "edges": [{"to": "db", "over": "pipe"}])"));
  BOOST_TEST(error_of(R"("role": "a", "edges": [{"to": "db", "over": "tcp"}])").find("port: required") != std::string::npos);
  BOOST_TEST(error_of(R"("role": "a", "edges": [{"to": "db", "over": "unix", "port": 5}])").find("only with") !=
             std::string::npos);
  BOOST_TEST(error_of(R"("role": "a", "edges": [{"to": "db", "over": "tcp", "port": 70000}])") != "");
  BOOST_TEST(error_of(R"("role": "a", "edges": [{"to": "db", "over": "unix"}, {"to": "db", "over": "unix"}])")
                 .find("a second edge") != std::string::npos);
  BOOST_TEST(error_of(R"("role": "a", "edges": [{"to": "db", "over": "unix", "via": 1}])").find("unknown key") !=
             std::string::npos);
  BOOST_TEST(error_of(R"("role": "a", "accepts": {"roles": ["x", "x"], "over": "unix"})").find("duplicate") !=
             std::string::npos);
  BOOST_TEST(error_of(R"("role": "a", "edges": [{"to": "b", "over": "tcp", "port": 80}, {"to": "c", "over": "tcp", "port": 80}])")
                 .find("two edges on port 80") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(composition_only_tightens) {
  Policy app = parse(kApp);
  Policy none = parse("");
  // A floor that says nothing about role, edges or accepts grants none of them: the client's
  // go (they grant identity and reach; absence on the floor is none, not "no restriction").
  Policy m = intersect(none, app);
  BOOST_TEST(!m.mesh.role);
  BOOST_TEST(!m.mesh.edges);
  BOOST_TEST(!m.mesh.active());
  Policy db = parse(kDb);
  m = intersect(none, db);
  BOOST_TEST(!m.mesh.role);
  BOOST_TEST(!m.mesh.accepts);
  // Unless the operator lets this policy add them (clientPolicies.<name>.mayAdd), section by section.
  m = intersect(none, app, Grants{MeshGrants{true, true, true}, false});
  BOOST_TEST((m.mesh == app.mesh));
  m = intersect(none, app, Grants{MeshGrants{true, false, false}, false});
  BOOST_TEST(*m.mesh.role == "app");
  BOOST_TEST(!m.mesh.edges);  // the role, but not the edges
  m = intersect(none, db, Grants{MeshGrants{false, true, true}, false});
  BOOST_TEST(!m.mesh.role);  // edges and accepts without a role: nothing
  BOOST_TEST(!m.mesh.accepts);
  // A client that says nothing about them keeps the floor's.
  m = intersect(app, none);
  BOOST_TEST((m.mesh == app.mesh));
  // A client's edge the floor lacks is dropped, even with the same role.
  Policy app_more = parse(R"("role": "app", "edges": [{"to": "db", "over": "unix"}, {"to": "vault", "over": "unix"}])");
  m = intersect(parse(R"("role": "app", "edges": [{"to": "db", "over": "unix"}])"), app_more);
  BOOST_REQUIRE(m.mesh.edges);
  BOOST_TEST(m.mesh.edges->size() == 1u);
  BOOST_TEST((*m.mesh.edges)[0].to == "db");
  // A floor with a role but no edges: none, whatever the client lists.
  m = intersect(parse(R"("role": "app")"), app);
  BOOST_TEST(*m.mesh.role == "app");
  BOOST_TEST(!m.mesh.edges);
  // Edges intersect.
  Policy only_db = parse(R"("role": "app", "edges": [{"to": "db", "over": "unix"}])");
  m = intersect(app, only_db);
  BOOST_REQUIRE(m.mesh.edges);
  BOOST_TEST(m.mesh.edges->size() == 1u);
  BOOST_TEST((*m.mesh.edges)[0].to == "db");
  // Same peer over another transport is a different edge: dropped.
  Policy db_tcp = parse(R"("role": "app", "edges": [{"to": "db", "over": "tcp", "port": 5432}])");
  m = intersect(only_db, db_tcp);
  BOOST_TEST(m.mesh.edges->empty());
  // Conflicting roles: no identity, no edges.
  Policy other = parse(R"("role": "web")");
  m = intersect(app, other);
  BOOST_TEST(!m.mesh.role);
  BOOST_TEST(!m.mesh.active());
  // Accepted roles intersect.
  Policy db1 = parse(kDb);
  Policy db2 = parse(R"("role": "db", "accepts": {"roles": ["app"], "over": "unix"})");
  m = intersect(db1, db2);
  BOOST_TEST((m.mesh.accepts->roles == std::vector<std::string>{"app"}));
  Policy db3 = parse(R"("role": "db", "accepts": {"roles": ["app"], "over": "tcp", "port": 5432})");
  m = intersect(db1, db3);
  BOOST_TEST(m.mesh.accepts->roles.empty());
}

BOOST_AUTO_TEST_CASE(maps_to_env_and_extension) {
  Policy app = parse(kApp);
  oci::Config c;
  Extension ext;
  BOOST_REQUIRE(apply_to_config(app, c, ext, host::probe()));
  BOOST_TEST(has_env(*c.process, "SHARNESS_ROLE=app"));
  BOOST_TEST(has_env(*c.process, "SHARNESS_IDENTITY_DIR=/run/sharness/identity"));
  BOOST_TEST(has_env(*c.process, "SHARNESS_EDGE_DB=unix:/run/sharness/edges/db.sock"));
  BOOST_TEST(has_env(*c.process, "SHARNESS_EDGE_CACHE=tcp:127.0.0.1:16379"));
  BOOST_REQUIRE(ext.mesh);
  BOOST_TEST((*ext.mesh == app.mesh));
  // The "sharness" block carries the edges and reads back the same.
  auto d = json::Document::parse(extension_to_json(ext), "ext");
  BOOST_REQUIRE(d);
  auto back = parse_extension(d->root());
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST((*back->mesh == app.mesh));
  // A client cannot plant endpoints through the config's env.
  oci::Config c2;
  c2.process.emplace();
  c2.process->env = {"SHARNESS_EDGE_EVIL=unix:/x", "SHARNESS_ROLE=admin"};
  Policy none = parse("");
  BOOST_REQUIRE(apply_to_config(none, c2, ext, host::probe()));
  BOOST_TEST(!has_env(*c2.process, "SHARNESS_EDGE_EVIL=unix:/x"));
  BOOST_TEST(!has_env(*c2.process, "SHARNESS_ROLE=admin"));
  BOOST_TEST(!ext.mesh);

  Policy db = parse(kDb);
  BOOST_REQUIRE(apply_to_config(db, c, ext, host::probe()));
  BOOST_TEST(has_env(*c.process, "SHARNESS_SERVICE=unix:/run/sharness/service/service.sock"));
  BOOST_TEST(!has_env(*c.process, "SHARNESS_EDGE_DB=unix:/run/sharness/edges/db.sock"));
}

BOOST_AUTO_TEST_CASE(host_side_mounts_and_hooks) {
  Policy app = parse(kApp);
  oci::Config c;
  MeshHost h{"/run/x", "c1", "/usr/bin/sharness-edge", ""};
  apply_mesh_host(app.mesh, h, c);
  auto mount = [&](const std::string& dst) -> const oci::Mount* {
    for (const auto& m : c.mounts)
      if (m.destination == dst) return &m;
    return nullptr;
  };
  auto id = mount("/run/sharness/identity");
  BOOST_REQUIRE(id);
  BOOST_TEST(id->source == "/run/x/c1/identity");
  BOOST_TEST(std::ranges::count(id->options, "ro") == 1);
  auto edges = mount("/run/sharness/edges");
  BOOST_REQUIRE(edges);
  BOOST_TEST(edges->source == "/run/x/c1/edges");
  BOOST_TEST(!mount("/run/sharness/service"));  // app accepts nothing
  BOOST_REQUIRE(c.hooks.create_runtime.size() == 1u);
  BOOST_TEST((c.hooks.create_runtime[0].args == std::vector<std::string>{"/usr/bin/sharness-edge", "up", "--root", "/run/x"}));
  BOOST_REQUIRE(c.hooks.poststop.size() == 1u);
  BOOST_TEST(c.hooks.poststop[0].args[1] == "down");
  // No role, nothing at all.
  oci::Config empty;
  apply_mesh_host(parse("").mesh, h, empty);
  BOOST_TEST(empty.mounts.empty());
  BOOST_TEST(empty.hooks.empty());

  oci::Config dbc;
  apply_mesh_host(parse(kDb).mesh, h, dbc);
  BOOST_TEST(dbc.mounts.size() == 2u);  // identity + service (no outgoing edge)
}

BOOST_AUTO_TEST_CASE(explain_lists_each_edge_and_its_two_checks) {
  auto bounds = explain(parse(kApp), HostProbe{});
  int edges = 0;
  for (const auto& b : bounds)
    if (b.mechanism.starts_with("edge to ")) {
      ++edges;
      BOOST_TEST(b.mechanism.find("check 1") != std::string::npos);
      BOOST_TEST(b.mechanism.find("check 2") != std::string::npos);
    }
  BOOST_TEST(edges == 2);
  auto map = map_policy_json(parse(kDb), false, host::probe(), kSidecarShows);
  BOOST_REQUIRE(map);
  BOOST_TEST(map->find("\"hooks\"") != std::string::npos);
  BOOST_TEST(map->find("/run/sharness/service") != std::string::npos);
  BOOST_TEST(map->find("\"accepts\"") != std::string::npos);
}
