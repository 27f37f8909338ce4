// The egress sidecar's plan (egress/plan.hpp): the door's config as the door's interface says
// (docs/egress.md), read back through the policy layer's own parser; and what the container's
// config gets: the trust bind, the CA variables replacing the config's own, the two hooks.
#define BOOST_TEST_MODULE egress_plan
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "base/json.hpp"
#include "egress/plan.hpp"
#include "spec-mapping/egress.hpp"

using namespace sh;
using namespace sh::egress;

namespace {

policy::EgressPolicy github() {
  auto doc = json::Document::parse(R"({"rules": [{"host": "api.github.com",
      "credential": {"vault": "github", "inject": "bearer", "env": "GITHUB_TOKEN"}}, {"host": "pypi.org"}],
      "budgets": {"requests": 10}})", "egress");
  BOOST_REQUIRE(doc);
  auto e = policy::parse_egress(doc->root());
  BOOST_REQUIRE_MESSAGE(e, (e ? "" : e.error().what()));
  return *e;
}

}  // namespace

BOOST_AUTO_TEST_CASE(door_config_holds_the_section_and_the_site) {
  std::string text = door_config_json(github(), "c1", DoorSite{"/t/ca.pem", "/t/hosts", "/t/creds", {"10.1.2.3"}});
  auto doc = json::Document::parse(text, "door.json");
  BOOST_REQUIRE_MESSAGE(doc, text);
  auto r = doc->root();
  BOOST_TEST(r.only_keys({"container", "egress", "ca", "upstreamTrust", "hosts", "allowAddresses", "credentials"}).has_value());
  BOOST_TEST(*r.need("container")->as_string() == "c1");
  auto e = policy::parse_egress(*r.need("egress"));
  BOOST_REQUIRE(e);
  BOOST_TEST((*e == github()));
  BOOST_TEST(*r.need("ca")->need("cert")->as_string() == "/run/sharness-egress/ca/cert.pem");
  BOOST_TEST(*r.need("ca")->need("key")->as_string() == "/run/sharness-egress/ca/key.pem");
  BOOST_TEST(*r.need("upstreamTrust")->as_string() == "/t/ca.pem");
  BOOST_TEST(*r.need("hosts")->as_string() == "/t/hosts");
  BOOST_TEST(*r.need("credentials")->need("dir")->as_string() == "/t/creds");
  // Unset site keys are left out (the door's defaults: the host's trust, DNS); without a
  // credentialsDir the rule's credential comes from the container's KMS, with the door's leaf.
  std::string bare = door_config_json(github(), "c1", DoorSite{});
  for (const char* k : {"upstreamTrust", "hosts", "allowAddresses", "\"dir\""})
    BOOST_TEST(bare.find(std::string("\"") + k + "\"") == std::string::npos, k);
  auto bdoc = json::Document::parse(bare, "door.json");
  BOOST_REQUIRE(bdoc);
  auto kms = bdoc->root().need("credentials")->need("kms");
  BOOST_REQUIRE(kms);
  BOOST_TEST(*kms->need("socket")->as_string() == "/run/sharness-egress/kms.sock/kms.sock");
  BOOST_TEST(*kms->need("cert")->as_string() == "/run/sharness-egress/kms-tls/cert.pem");
  BOOST_TEST(*kms->need("key")->as_string() == "/run/sharness-egress/kms-tls/key.pem");
  BOOST_TEST(*kms->need("ca")->as_string() == "/run/sharness-egress/kms-tls/ca.pem");
  BOOST_TEST(credentials_from_kms(github(), ""));
  BOOST_TEST(!credentials_from_kms(github(), "/t/creds"));
  // No rule with a credential: no source at all.
  auto plain = github();
  for (auto& r : plain.rules) r.credential.reset();
  BOOST_TEST(!credentials_from_kms(plain, ""));
  BOOST_TEST(door_config_json(plain, "c1", DoorSite{}).find("\"credentials\"") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(container_gets_the_trust_the_variables_and_the_hooks) {
  oci::Config c;
  c.process = oci::Process{};
  c.process->env = {"PATH=/bin", "SSL_CERT_FILE=/elsewhere.pem", "SSL_CERT_DIR=/elsewhere", "CURL_CA_BUNDLE=/x"};
  apply_egress_host(DoorHost{"/run/s", "c1", "/usr/bin/sharness-egress", "/etc/r.json"}, c);
  BOOST_REQUIRE(c.mounts.size() == 1u);
  BOOST_TEST(c.mounts[0].destination == "/etc/ssl/certs");
  BOOST_TEST(c.mounts[0].source == "/run/s/c1/egress/trust");
  BOOST_TEST(std::ranges::count(c.mounts[0].options, "ro") == 1);
  for (const char* v : {"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt",
                        "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt", "CURL_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt",
                        "SSL_CERT_DIR=/etc/ssl/certs", "PATH=/bin"})
    BOOST_TEST(std::ranges::count(c.process->env, std::string(v)) == 1, v);
  BOOST_TEST(c.process->env.size() == 6u);
  BOOST_REQUIRE(c.hooks.create_runtime.size() == 1u);
  BOOST_REQUIRE(c.hooks.poststop.size() == 1u);
  BOOST_TEST(c.hooks.create_runtime[0].path == "/usr/bin/sharness-egress");
  BOOST_TEST((c.hooks.create_runtime[0].args ==
              std::vector<std::string>{"sharness-egress", "up", "--root", "/run/s", "--config", "/etc/r.json"}));
  BOOST_TEST((c.hooks.poststop[0].args == std::vector<std::string>{"sharness-egress", "down", "--root", "/run/s", "--config", "/etc/r.json"}));
}
