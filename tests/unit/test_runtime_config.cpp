// The runtime config's "kms" keys, "edges" keys, "egress" keys and "clientPolicies":
// defaults, checked values, strict keys; and select_policy, the choice of a container's policy.
#define BOOST_TEST_MODULE runtime_config
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "runtime/lifecycle/runtime_config.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace sh;
using namespace sh::lifecycle;

namespace {
std::string error_of(const std::string& text) {
  auto rc = parse_runtime_config(text, "runtime.json");
  return rc ? "" : rc.error().what();
}
}  // namespace

BOOST_AUTO_TEST_CASE(kms_defaults_and_keys) {
  auto d = parse_runtime_config("{}", "runtime.json");
  BOOST_REQUIRE(d);
  BOOST_TEST(d->kms_vault == "/etc/sharness/kms/vault");
  BOOST_TEST(d->kms_kek == "/etc/sharness/kms/kek");
  BOOST_TEST(d->kms_cgroup_parent == "/sharness-kms");
  auto rc = parse_runtime_config(R"({"kms": {"vault": "/srv/v", "kek": "/root/k", "cgroupParent": "/t/kms"}})",
                                 "runtime.json");
  BOOST_REQUIRE_MESSAGE(rc, (rc ? "" : rc.error().what()));
  BOOST_TEST(rc->kms_vault == "/srv/v");
  BOOST_TEST(rc->kms_kek == "/root/k");
  BOOST_TEST(rc->kms_cgroup_parent == "/t/kms");
}

BOOST_AUTO_TEST_CASE(egress_defaults_and_keys) {
  auto d = parse_runtime_config("{}", "runtime.json");
  BOOST_REQUIRE(d);
  BOOST_TEST(d->egress_upstream_trust.empty());
  BOOST_TEST(d->egress_hosts.empty());
  BOOST_TEST(d->egress_allow_addresses.empty());
  auto rc = parse_runtime_config(R"({"egress": {"upstreamTrust": "/t/ca.pem", "hosts": "/t/hosts",
                                     "allowAddresses": ["10.0.0.0/8"], "credentialsDir": "/t/creds"}})", "runtime.json");
  BOOST_REQUIRE_MESSAGE(rc, (rc ? "" : rc.error().what()));
  BOOST_TEST(rc->egress_upstream_trust == "/t/ca.pem");
  BOOST_TEST(rc->egress_hosts == "/t/hosts");
  BOOST_TEST(rc->egress_allow_addresses == std::vector<std::string>{"10.0.0.0/8"});
  BOOST_TEST(rc->egress_credentials_dir == "/t/creds");
  BOOST_TEST(error_of(R"({"egress": {"hosts": "hosts"}})") == "runtime.json: egress.hosts: must be an absolute path");
  BOOST_TEST(error_of(R"({"egress": {"trust": "/x"}})").find("egress.trust") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(kms_bad_input_names_the_key) {
  BOOST_TEST(error_of(R"({"kms": {"vault": "v"}})") == "runtime.json: kms.vault: must be an absolute path");
  BOOST_TEST(error_of(R"({"kms": {"kek": ""}})") == "runtime.json: kms.kek: must be an absolute path");
  BOOST_TEST(error_of(R"({"kms": {"vualt": "/v"}})").find("kms.vualt") != std::string::npos);
  BOOST_TEST(error_of(R"({"kms": {"vault": 5}})").find("kms.vault") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(edges_leaf_seconds) {
  auto d = parse_runtime_config("{}", "runtime.json");
  BOOST_REQUIRE(d);
  BOOST_TEST(d->leaf_seconds == 24 * 3600);
  auto rc = parse_runtime_config(R"({"edges": {"leafSeconds": 20}})", "runtime.json");
  BOOST_REQUIRE(rc);
  BOOST_TEST(rc->leaf_seconds == 20);
  BOOST_TEST(error_of(R"({"edges": {"leafSeconds": 5}})").find("edges.leafSeconds") != std::string::npos);
  BOOST_TEST(error_of(R"({"edges": {"leafSeconds": 99999999}})").find("edges.leafSeconds") != std::string::npos);
  BOOST_TEST(error_of(R"({"edges": {"leafSecs": 20}})").find("edges.leafSecs") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(seccomp_cache_switch) {
  auto d = parse_runtime_config("{}", "runtime.json");
  BOOST_REQUIRE(d);
  BOOST_TEST(d->seccomp_cache);
  auto off = parse_runtime_config(R"({"seccompCache": false})", "runtime.json");
  BOOST_REQUIRE(off);
  BOOST_TEST(!off->seccomp_cache);
  BOOST_TEST(error_of(R"({"seccompCache": "no"})").find("seccompCache") != std::string::npos);
  // The policy cache's own switch, and the text the cache keys on.
  BOOST_TEST(d->policy_cache);
  BOOST_TEST(d->source == "{}");
  auto no_policy_cache = parse_runtime_config(R"({"policyCache": false})", "runtime.json");
  BOOST_REQUIRE(no_policy_cache);
  BOOST_TEST(!no_policy_cache->policy_cache);
  BOOST_TEST(no_policy_cache->seccomp_cache);
  BOOST_TEST(error_of(R"({"policyCache": 0})").find("policyCache") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(client_policies_keys) {
  auto d = parse_runtime_config("{}", "runtime.json");
  BOOST_REQUIRE(d);
  BOOST_TEST(!d->client_policies);  // absent: any installed policy, adding nothing
  auto rc = parse_runtime_config(R"({"clientPolicies": {"db": {"mayAdd": ["role", "accepts", "secrets", "egress"]}, "strict": {}}})",
                                 "runtime.json");
  BOOST_REQUIRE_MESSAGE(rc, (rc ? "" : rc.error().what()));
  BOOST_REQUIRE(rc->client_policies);
  BOOST_TEST(rc->client_policies->size() == 2u);
  const auto& db = rc->client_policies->at("db");
  BOOST_TEST(db.mesh.role);
  BOOST_TEST(!db.mesh.edges);
  BOOST_TEST(db.mesh.accepts);
  BOOST_TEST(db.secrets);
  BOOST_TEST(db.egress);
  BOOST_TEST((rc->client_policies->at("strict") == policy::Grants{}));
  BOOST_TEST(error_of(R"({"clientPolicies": {"db": {"mayAdd": ["role", "memory"]}}})") ==
             "runtime.json: clientPolicies.db.mayAdd[1]: \"memory\" is not a section a client policy may add "
             "(role, edges, accepts, secrets, egress)");
  BOOST_TEST(error_of(R"({"clientPolicies": {"db": {"mayadd": []}}})").find("clientPolicies.db.mayadd: unknown key") !=
             std::string::npos);
  BOOST_TEST(error_of(R"({"clientPolicies": {"../db": {}}})").find("clientPolicies.../db: not a policy name") !=
             std::string::npos);
  BOOST_TEST(error_of(R"({"clientPolicies": {"db.json": {}}})").find("not a policy name") != std::string::npos);
  BOOST_TEST(error_of(R"({"clientPolicies": ["db"]})").find("clientPolicies") != std::string::npos);
  BOOST_TEST(error_of(R"({"clientPolicies": {"db": {"mayAdd": "role"}}})").find("clientPolicies.db.mayAdd") !=
             std::string::npos);
}

namespace {

struct Installed {
  test::TempDir dir{"sharness-select"};
  RuntimeConfig rc;
  Installed() {
    std::filesystem::create_directory(dir.path / "p");
    rc.policy_dirs = {dir / "p"};
  }
  void install(const std::string& name, const std::string& body) {
    std::ofstream(dir / ("p/" + name + ".json")) << body;
  }
  Result<std::optional<policy::Policy>> select(const std::string& floor, const std::string& annotation) {
    oci::Config c;
    c.annotations["org.sharness.policy"] = annotation;
    return select_policy(rc, floor, c);
  }
  std::string error(const std::string& floor, const std::string& annotation) {
    auto r = select(floor, annotation);
    return r ? "" : r.error().what();
  }
};

const char* kHarshish = R"({"id": "floor", "version": 1, "identity": {"uid": "ephemeral", "capabilities": []},
  "network": "none", "memory": {"limit": "128MiB"}, "pids": {"limit": 4}})";

}  // namespace

BOOST_AUTO_TEST_CASE(the_annotation_names_an_installed_policy) {
  Installed in;
  in.install("floor", kHarshish);
  in.install("strict", R"({"id": "strict", "version": 1, "memory": {"limit": "64MiB"}})");
  auto r = in.select("floor", "strict");
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  BOOST_TEST((*r)->id == "floor+strict");
  BOOST_TEST(*(*r)->memory->limit == 64u << 20);
  BOOST_TEST((*in.select("floor", "strict.json"))->id == "floor+strict");
  for (const char* bad : {"/", "..", ".", "../p/strict", "/etc/passwd", "a/b", "strict json"})
    BOOST_TEST(in.error("floor", bad).find("annotation org.sharness.policy: \"" + std::string(bad) +
                                           "\" is not a policy name") == 0,
               bad << ": " << in.error("floor", bad));
  BOOST_TEST(in.error("floor", "") == "annotation org.sharness.policy: \"\": empty (name an installed policy, or leave "
                                      "the annotation out)");
  BOOST_TEST(in.error("floor", "nosuch") == "annotation org.sharness.policy: policy \"nosuch\": not found in the policy "
                                            "directories (" + in.rc.policy_dirs[0] + ")");
}

BOOST_AUTO_TEST_CASE(a_looser_policy_is_refused_naming_the_section_and_the_floors_value) {
  Installed in;
  in.install("floor", kHarshish);
  in.install("big", R"({"id": "big", "version": 1, "memory": {"limit": "1GiB"}, "network": "host"})");
  BOOST_TEST(in.error("floor", "big") == "annotation org.sharness.policy: policy \"big\" is looser than the floor "
                                         "(policy floor): network host (the floor's: none); memory.limit 1 GiB "
                                         "(the floor's: 128 MiB)");
  in.install("db", R"({"id": "db", "version": 1, "role": "db", "accepts": {"roles": ["app"], "over": "unix"}})");
  BOOST_TEST(in.error("floor", "db").find("role \"db\" (the floor's: none); accepts [app] over unix (the floor's: none)") !=
             std::string::npos);
  // No floor at all grants no identity either.
  BOOST_TEST(in.error("", "db").find("looser than the floor (none, which grants no identity or reach): role") !=
             std::string::npos);
  // The operator lets db add its role and what it accepts.
  in.rc.client_policies = std::map<std::string, policy::Grants>{{"db", policy::Grants{{true, false, true}, false}}};
  auto r = in.select("floor", "db");
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  BOOST_TEST(*(*r)->mesh.role == "db");
  BOOST_TEST((*r)->mesh.accepts->roles == std::vector<std::string>{"app"});
  BOOST_TEST(*(*r)->memory->limit == 128u << 20);
  r = in.select("", "db");
  BOOST_REQUIRE(r);
  BOOST_TEST((*r)->id == "db");
  // clientPolicies lists what may be named at all.
  in.install("strict", R"({"id": "strict", "version": 1, "memory": {"limit": "64MiB"}})");
  BOOST_TEST(in.error("floor", "strict") == "annotation org.sharness.policy: policy \"strict\" is not one a client may "
                                            "name (the runtime config's clientPolicies: db)");
}

// A policy that names another: an installed file carrying the floor's id, or the floor itself.
BOOST_AUTO_TEST_CASE(the_composed_id_is_honest) {
  Installed in;
  in.install("floor", kHarshish);
  in.install("twin", R"({"id": "floor", "version": 1, "pids": {"limit": 2}})");
  BOOST_TEST(in.error("floor", "twin") == "annotation org.sharness.policy: policy \"twin\" has the id \"floor\": a "
                                          "policy a client names must carry its file's name as its id");
  BOOST_TEST(in.error("", "twin").find("has the id \"floor\"") != std::string::npos);
  // The floor itself: exactly the floor, its id and its own hash.
  auto floor = policy::load_policy(in.dir / "p/floor.json");
  BOOST_REQUIRE(floor);
  auto r = in.select("floor", "floor");
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  BOOST_TEST((*r)->id == "floor");
  BOOST_TEST((*r)->hash == floor->hash);
  // The floor given as a path, a same-named installed file with other content: both ids.
  std::filesystem::create_directory(in.dir.path / "q");
  std::ofstream(in.dir / "q/floor.json") << R"({"id": "floor", "version": 1, "pids": {"limit": 8}})";
  r = in.select(in.dir / "q/floor.json", "floor");
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  BOOST_TEST((*r)->id == "floor+floor");
}

BOOST_AUTO_TEST_CASE(trust_bundle_claims_is_off_unless_said) {
  auto d = parse_runtime_config("{}", "runtime.json");
  BOOST_REQUIRE(d);
  BOOST_TEST(!d->trust_bundle_claims);
  auto rc = parse_runtime_config(R"({"trustBundleClaims": true})", "runtime.json");
  BOOST_REQUIRE(rc);
  BOOST_TEST(rc->trust_bundle_claims);
  BOOST_TEST(error_of(R"({"trustBundleClaims": "yes"})").find("trustBundleClaims") != std::string::npos);
  // a comment in the runtime config: refused, not read around
  BOOST_TEST(error_of(R"({/* "trustBundleClaims": true */})").find("a comment at byte 1") != std::string::npos);
}
