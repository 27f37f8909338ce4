#define BOOST_TEST_MODULE kms_sidecar
#include <boost/test/unit_test.hpp>

#include "kms/config.hpp"
#include "kms/host/plan.hpp"
#include "spec-mapping/secrets.hpp"

using namespace sh;
using namespace sh::kms;
using namespace sh::policy;

namespace {
Result<SecretsPolicy> parse(std::string_view text) {
  auto doc = json::Document::parse(text, "policy.json");
  if (!doc) return std::unexpected(doc.error());
  auto s = doc->root().get("secrets");
  if (!s) return fail("no secrets");
  return parse_secrets(*s);
}
KmsSite site() {
  KmsSite k;
  k.kms_binary = "/usr/bin/sharness-kms";
  k.client_binary = "/usr/bin/sharness-kms-client";
  k.vault = "/etc/sharness/kms/vault";
  k.kek = "/etc/sharness/kms/kek";
  k.ca = "/etc/sharness/ca/ca.pem";
  k.cert = "/etc/sharness/kms/kms.pem";
  k.key = "/etc/sharness/kms/kms.key";
  k.caller_role = "app";
  k.client_cert_dir = "/run/sharness/certs/c1";
  return k;
}
}  // namespace

BOOST_AUTO_TEST_CASE(secrets_parse_sorted_and_strict) {
  auto s = parse(R"({"secrets": {"vaults": ["web", "db", "db"], "hosts": ["h"], "operations": ["read"], "ttl": 60}})");
  BOOST_REQUIRE(s);
  BOOST_TEST((s->vaults == std::vector<std::string>{"db", "web"}));
  BOOST_TEST(s->ttl == 60u);
  auto typo = parse(R"({"secrets": {"valuts": ["db"], "hosts": ["h"], "operations": ["read"], "ttl": 60}})");
  BOOST_REQUIRE(!typo);
  BOOST_TEST(typo.error().what().find("valuts") != std::string::npos);
  auto bad = parse(R"({"secrets": {"vaults": ["d b"], "hosts": ["h"], "operations": ["read"], "ttl": 60}})");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what().find("secrets.vaults[0]") != std::string::npos);
  BOOST_TEST(!parse(R"({"secrets": {"vaults": [], "hosts": ["h"], "operations": ["read"], "ttl": 60}})"));
  BOOST_TEST(!parse(R"({"secrets": {"vaults": ["db"], "hosts": ["h"], "operations": ["read"], "ttl": 0}})"));
}

BOOST_AUTO_TEST_CASE(secrets_only_tighten) {
  SecretsPolicy floor{{"db", "web"}, {"a", "b"}, {"read", "write"}, 600};
  SecretsPolicy client{{"db", "x"}, {"b"}, {"read"}, 3600};
  auto r = intersect_secrets(floor, client);
  BOOST_TEST((r.vaults == std::vector<std::string>{"db"}));
  BOOST_TEST((r.hosts == std::vector<std::string>{"b"}));
  BOOST_TEST((r.operations == std::vector<std::string>{"read"}));
  BOOST_TEST(r.ttl == 600u);
  oci::Config c;
  BOOST_TEST(!plan_kms(intersect_secrets(floor, SecretsPolicy{{"x"}, {"a"}, {"read"}, 1}), site(), "c1", c));
}

BOOST_AUTO_TEST_CASE(plan_adds_hooks_mounts_and_a_config_sharness_kms_accepts) {
  oci::Config c;
  c.process = oci::Process{};
  SecretsPolicy s{{"db"}, {"db.internal"}, {"read"}, 300};
  auto p = plan_kms(s, site(), "c1", c);
  BOOST_REQUIRE(p);
  BOOST_REQUIRE(c.hooks.create_runtime.size() == 1u);
  BOOST_TEST(c.hooks.create_runtime[0].path == "/usr/bin/sharness-kms");
  BOOST_TEST((c.hooks.create_runtime[0].args == std::vector<std::string>{"sharness-kms", "start", "--config", p->config_path}));
  BOOST_REQUIRE(c.hooks.poststop.size() == 1u);
  BOOST_TEST(c.hooks.poststop[0].args[1] == "stop");
  BOOST_REQUIRE(c.mounts.size() == 3u);
  for (const auto& m : c.mounts) BOOST_TEST((std::find(m.options.begin(), m.options.end(), "ro") != m.options.end()));
  BOOST_TEST(c.mounts[0].source == p->socket_dir);
  BOOST_TEST(c.mounts[2].destination == kKmsClientInContainer);
  // The config the hook will read is one sharness-kms accepts, bound to this container.
  auto cfg = kms::parse_config(p->config_json, p->config_path);
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? "" : cfg.error().what()));
  BOOST_TEST(cfg->name == "c1");
  BOOST_TEST(cfg->caller_id == "c1");
  BOOST_TEST(cfg->caller_role == "app");
  BOOST_TEST(cfg->allow.max_ttl == 300u);
  BOOST_TEST(cfg->socket == p->socket_dir + "/kms.sock");
  BOOST_TEST((cfg->allow.hosts == std::vector<std::string>{"db.internal"}));
  BOOST_TEST(describe_secrets(s).find("master keys never enter") != std::string::npos);
  BOOST_TEST(!cfg->allow_weaker_memory);
  // The policy's weaker-memory key reaches the KMS's config.
  s.allow_weaker_memory = true;
  oci::Config c2;
  c2.process = oci::Process{};
  auto weak = plan_kms(s, site(), "c1", c2);
  BOOST_REQUIRE(weak);
  auto wcfg = kms::parse_config(weak->config_json, weak->config_path);
  BOOST_REQUIRE_MESSAGE(wcfg, (wcfg ? "" : wcfg.error().what()));
  BOOST_TEST(wcfg->allow_weaker_memory);
}

BOOST_AUTO_TEST_CASE(plan_refuses_what_cannot_name_a_kms) {
  oci::Config c;
  SecretsPolicy s{{"db"}, {"h"}, {"read"}, 1};
  BOOST_TEST(!plan_kms(s, site(), "a/b", c));
  KmsSite k = site();
  k.caller_role.clear();
  BOOST_TEST(!plan_kms(s, k, "c1", c));
  k = site();
  k.vault = "relative";
  BOOST_TEST(!plan_kms(s, k, "c1", c));
  BOOST_TEST(c.hooks.empty());
}

BOOST_AUTO_TEST_CASE(instance_dir_holds_config_socket_and_log) {
  auto k = site();
  k.instance_dir = "/run/sharness/c1";
  oci::Config c;
  c.process.emplace();
  SecretsPolicy s{{"db"}, {"h"}, {"read"}, 60};
  auto p = plan_kms(s, k, "c1", c);
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  BOOST_TEST(p->config_path == "/run/sharness/c1/kms.json");
  BOOST_TEST(p->socket_dir == "/run/sharness/c1/kms.sock");
  auto cfg = kms::parse_config(p->config_json, p->config_path);
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? "" : cfg.error().what()));
  BOOST_TEST(cfg->log == "/run/sharness/c1/kms.log");
  BOOST_TEST(cfg->state_root == k.state_root);  // uid claims stay shared
  k.instance_dir = "relative";
  oci::Config c2;
  BOOST_TEST(!plan_kms(s, k, "c1", c2));
}

// The egress rules' credentials reach the KMS's config as the door's (vault, host) pairs;
// workloadMayAsk reaches it as written (false unless the policy says so). A KMS for the door
// alone (no secrets section) puts nothing into the container: no socket, certificate or client.
BOOST_AUTO_TEST_CASE(plan_carries_the_doors_credentials_and_workload_may_ask) {
  auto doc = json::Document::parse(R"({"rules": [
      {"host": "api.github.com", "credential": {"vault": "github", "inject": "bearer"}},
      {"host": "api.github.com", "port": 80, "methods": ["GET"], "credential": {"vault": "github", "inject": "bearer"}},
      {"host": "*.gitlab.com", "credential": {"vault": "gitlab", "inject": "bearer"}}, {"host": "pypi.org"}]})",
                                   "egress");
  BOOST_REQUIRE(doc);
  auto e = parse_egress(doc->root());
  BOOST_REQUIRE_MESSAGE(e, (e ? "" : e.error().what()));
  auto grants = credential_grants(*e);
  BOOST_TEST((grants == std::vector<std::pair<std::string, std::string>>{{"github", "api.github.com"},
                                                                          {"gitlab", "*.gitlab.com"}}));
  KmsSite k = site();
  k.credentials = grants;
  oci::Config c;
  c.process = oci::Process{};
  SecretsPolicy s{{"db"}, {"db.internal"}, {"read"}, 300};
  auto p = plan_kms(s, k, "c1", c);
  BOOST_REQUIRE(p);
  auto cfg = kms::parse_config(p->config_json, p->config_path);
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? "" : cfg.error().what()));
  BOOST_TEST(!cfg->workload_may_ask);
  BOOST_TEST((cfg->credentials == std::vector<CredentialGrant>{{"github", "api.github.com"}, {"gitlab", "*.gitlab.com"}}));
  BOOST_TEST(cfg->caller_roles() == (std::vector<std::string>{"app", "egress"}), boost::test_tools::per_element());
  s.workload_may_ask = true;
  oci::Config c2;
  c2.process = oci::Process{};
  auto asks = kms::parse_config(plan_kms(s, k, "c1", c2)->config_json, "kms.json");
  BOOST_REQUIRE(asks);
  BOOST_TEST(asks->workload_may_ask);

  // The door's alone.
  oci::Config c3;
  c3.process = oci::Process{};
  k.caller_role = "";
  k.client_binary = k.client_cert_dir = "";
  auto door = plan_kms(nullptr, k, "c1", c3);
  BOOST_REQUIRE_MESSAGE(door, (door ? "" : door.error().what()));
  BOOST_TEST(c3.mounts.empty());
  BOOST_TEST(c3.process->env.empty());
  BOOST_TEST(c3.hooks.create_runtime.size() == 1u);
  auto dcfg = kms::parse_config(door->config_json, "kms.json");
  BOOST_REQUIRE_MESSAGE(dcfg, (dcfg ? "" : dcfg.error().what()));
  BOOST_TEST(dcfg->caller_roles() == (std::vector<std::string>{"egress"}), boost::test_tools::per_element());
  BOOST_TEST(dcfg->allow.vaults.empty());
  // Nothing to serve: no KMS.
  k.credentials.clear();
  oci::Config c4;
  BOOST_TEST(!plan_kms(nullptr, k, "c1", c4));
}
