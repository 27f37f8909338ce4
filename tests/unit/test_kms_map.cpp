// The KMS part of the mapping (kms/host/plan) is one path for `policy map`, `policy
// apply` and create: map shows the hooks, mounts and env with placeholders, apply writes the
// per-container-independent part (env, the "sharness" block's secrets) that create reads back,
// and create's site (real paths) gives the same hooks and mounts. No secret lands in config.json.
#define BOOST_TEST_MODULE kms_map
#include <boost/test/unit_test.hpp>

#include "sidecar_shows.hpp"

#include "spec-mapping/extension.hpp"
#include "kms/host/plan.hpp"
#include "spec-mapping/map.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::policy;
using namespace sh::kms;

namespace {

const char* kPolicy = R"({"id": "kms-app", "version": 1, "role": "app",
  "secrets": {"vaults": ["db"], "hosts": ["db.internal"], "operations": ["read"], "ttl": 600}})";
const char* kConfig = R"({"ociVersion": "1.0.2", "root": {"path": "rootfs"},
  "process": {"args": ["sh"], "cwd": "/", "env": ["PATH=/bin", "SHARNESS_KMS_SOCKET=/elsewhere"]},
  "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}]}})";

Policy parse(const char* text) {
  auto p = parse_policy(text);
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

json::Document doc(const std::string& text) {
  auto d = json::Document::parse(text, "out");
  BOOST_REQUIRE_MESSAGE(d, (d ? "" : d.error().what()));
  return std::move(*d);
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(policy_map_shows_the_kms_hooks_mounts_and_env) {
  auto out = map_policy_json(parse(kPolicy), false, host::probe(), kSidecarShows);
  BOOST_REQUIRE_MESSAGE(out, (out ? "" : out.error().what()));
  auto d = doc(*out);
  BOOST_REQUIRE(d.root().get("hooks"));
  BOOST_REQUIRE(d.root().get("hooks")->get("createRuntime"));
  BOOST_TEST(has(*out, R"("args":["sharness-kms","start","--config","<state root>/<container id>/kms/kms.json"])"), *out);
  BOOST_TEST(has(*out, R"("args":["sharness-kms","stop","--config","<state root>/<container id>/kms/kms.json"])"), *out);
  BOOST_TEST(has(*out, R"("path":"<dir of sharness-runtime>/sharness-kms")"), *out);
  BOOST_TEST(has(*out, R"("destination":"/run/kms")"), *out);
  BOOST_TEST(has(*out, R"("source":"<state root>/<container id>/kms/kms.sock")"), *out);
  BOOST_TEST(has(*out, R"("destination":"/usr/bin/sharness-kms-client")"), *out);
  BOOST_TEST(has(*out, R"("destination":"/etc/kms")"), *out);
  BOOST_TEST(has(*out, "SHARNESS_KMS_SOCKET=/run/kms/kms.sock"), *out);
  // No vault, KEK or key material: those are the KMS's config, written by create.
  BOOST_TEST(!has(*out, "vault\":\"<"), *out);
  BOOST_TEST(!has(*out, "kek"), *out);
  // Without secrets: none of it.
  auto plain = map_policy_json(parse(R"({"id": "p", "version": 1, "role": "app"})"), false, host::probe(), kSidecarShows);
  BOOST_REQUIRE(plain);
  BOOST_TEST(!has(*plain, "sharness-kms"), *plain);
}

BOOST_AUTO_TEST_CASE(policy_apply_writes_env_and_block_that_create_reads_back) {
  auto p = parse(kPolicy);
  auto merged = merged_config_json(p, kConfig, "config.json", false, host::probe());
  BOOST_REQUIRE_MESSAGE(merged, (merged ? "" : merged.error().what()));
  auto d = doc(*merged);
  // The env entry the config had is replaced, not doubled.
  std::string env = json::Writer().value(d.root().get("process")->get("env")->raw()).str();
  BOOST_TEST(has(env, "SHARNESS_KMS_SOCKET=/run/kms/kms.sock"), env);
  BOOST_TEST(!has(env, "/elsewhere"), env);
  auto block = d.root().get("sharness");
  BOOST_REQUIRE(block);
  auto ext = parse_extension(*block);
  BOOST_REQUIRE_MESSAGE(ext, (ext ? "" : ext.error().what()));
  BOOST_REQUIRE(ext->secrets);
  BOOST_TEST((*ext->secrets == *p.secrets));
  BOOST_REQUIRE(ext->mesh);
  BOOST_TEST(*ext->mesh->role == "app");
  // A block whose secrets have no role to answer is refused, naming the path.
  auto bad = doc(R"({"policy": {"id": "x", "hash": "h"}, "secrets": {"vaults": ["db"], "hosts": ["h"],
                     "operations": ["read"], "ttl": 5}})");
  auto e = parse_extension(bad.root());
  BOOST_REQUIRE(!e);
  BOOST_TEST(has(e.error().what(), "secrets"), e.error().what());
}

BOOST_AUTO_TEST_CASE(create_site_and_map_take_one_path) {
  auto p = parse(kPolicy);
  KmsMapHost h{"/run/sharness", "c1", "/usr/local/bin", "app", "/etc/sharness/kms/vault", "/etc/sharness/kms/kek",
               "/sharness-kms", {}};
  oci::Config c;
  c.process = oci::Process{};
  c.process->env = {"SHARNESS_KMS_SOCKET=/x"};
  auto plan = apply_kms_host(*p.secrets, h, c);
  BOOST_REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().what()));
  BOOST_TEST(plan->config_path == "/run/sharness/c1/kms/kms.json");
  BOOST_TEST(plan->socket_dir == "/run/sharness/c1/kms/kms.sock");
  BOOST_REQUIRE(c.hooks.create_runtime.size() == 1u);
  BOOST_TEST(c.hooks.create_runtime[0].path == "/usr/local/bin/sharness-kms");
  BOOST_TEST(c.mounts.size() == 3u);
  BOOST_TEST(c.mounts[1].source == "/run/sharness/c1/identity");  // the container's certificate
  BOOST_TEST((c.process->env == std::vector<std::string>{"SHARNESS_KMS_SOCKET=/run/kms/kms.sock"}));
  BOOST_TEST(has(plan->config_json, "\"vault\": \"/etc/sharness/kms/vault\""), plan->config_json);
  BOOST_TEST(has(plan->config_json, "\"cert\": \"/run/sharness/c1/kms/tls/cert.pem\""), plan->config_json);
  // create checks what map leaves symbolic.
  oci::Config c2;
  KmsMapHost sym{"<state root>", "<container id>", "<dir>", "app", "v", "k", "/sharness-kms", {}};
  BOOST_TEST(!apply_kms_host(*p.secrets, sym, c2).has_value());
  BOOST_TEST(apply_kms_host(*p.secrets, sym, c2, true).has_value());
}
