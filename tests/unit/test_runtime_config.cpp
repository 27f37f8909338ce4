// The runtime config's "kms" keys (issue 10) and "edges" keys (issue 9): defaults, checked values, strict keys.
#define BOOST_TEST_MODULE runtime_config
#include <boost/test/unit_test.hpp>

#include "runtime/lifecycle/runtime_config.hpp"

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
