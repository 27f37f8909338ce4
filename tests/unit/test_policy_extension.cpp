// The "sharness" extension block: written and read back, strict.
#define BOOST_TEST_MODULE policy_extension
#include <boost/test/unit_test.hpp>

#include "spec-mapping/extension.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

Result<Extension> parse(const std::string& text) {
  auto doc = json::Document::parse(text, "config.json");
  if (!doc) return std::unexpected(doc.error());
  auto sh = doc->root().get("sharness");
  if (!sh) return fail("no sharness key");
  return parse_extension(*sh);
}

std::string error_of(const std::string& block) {
  auto e = parse(R"({"sharness": )" + block + "}");
  return e ? "" : e.error().what();
}

}  // namespace

BOOST_AUTO_TEST_CASE(round_trip) {
  Extension e;
  e.policy_id = "harsh";
  e.policy_hash = std::string(64, 'a');
  e.best_effort = false;
  e.ephemeral_uid = true;
  e.ephemeral_gid = true;
  e.network = "none";
  e.wall_clock_seconds = 60;
  e.devices = std::vector<std::string>{"null", "zero"};
  oci::Seccomp s;
  s.default_action = "SCMP_ACT_ERRNO";
  s.default_errno_ret = 1;
  s.syscalls.push_back({{"read", "write"}, "SCMP_ACT_ALLOW", std::nullopt, {}});
  s.syscalls.push_back({{"clone"}, "SCMP_ACT_ALLOW", std::nullopt, {{0, 0x7E020000, 0, "SCMP_CMP_MASKED_EQ"}}});
  s.syscalls.push_back({{"clone3"}, "SCMP_ACT_ERRNO", 38u, {}});
  e.seccomp = s;
  e.bounds = {{"memory cgroup limit 128 MiB", true, "Boundary (applied by the runtime before execve)", ""},
              {"pids cgroup limit 4", false, "Boundary (applied by the runtime before execve)", "no pids controller"}};
  auto back = parse(R"({"sharness": )" + extension_to_json(e, true) + "}");
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST(back->policy_id == "harsh");
  BOOST_TEST(back->policy_hash == e.policy_hash);
  BOOST_TEST(back->ephemeral_uid);
  BOOST_TEST(back->ephemeral_gid);
  BOOST_TEST(!back->best_effort);
  BOOST_TEST(*back->network == "none");
  BOOST_TEST(*back->wall_clock_seconds == 60u);
  BOOST_TEST(*back->devices == *e.devices);
  BOOST_REQUIRE(back->seccomp);
  BOOST_TEST(back->seccomp->syscalls.size() == 3u);
  BOOST_TEST(back->seccomp->syscalls[1].args[0].op == "SCMP_CMP_MASKED_EQ");
  BOOST_TEST(*back->seccomp->syscalls[2].errno_ret == 38u);
  BOOST_TEST((back->bounds == e.bounds));
  BOOST_TEST(extension_to_json(*back, false) == extension_to_json(e, false));
}

BOOST_AUTO_TEST_CASE(minimal_block) {
  auto e = parse(R"({"sharness": {"policy": {"id": "p", "hash": "h"}}})");
  BOOST_REQUIRE(e);
  BOOST_TEST(!e->seccomp);
  BOOST_TEST(!e->wall_clock_seconds);
  BOOST_TEST(!e->ephemeral_uid);
}

BOOST_AUTO_TEST_CASE(strict) {
  // The landlock block is read with the process.landlock parser (a block handling nothing is refused).
  BOOST_TEST(error_of(R"({"policy": {"id": "p", "hash": "h"}, "landlock": {}})").starts_with(
      "config.json: sharness.landlock: the ruleset handles nothing"));
  BOOST_TEST(error_of(R"({"policy": {"id": "p", "hash": "h"}, "exec": [{"path": "bin/sh", "sha256": "x"}]})") ==
             "config.json: sharness.exec[0].path: not an absolute path");
  BOOST_TEST(error_of(R"({"policy": {"id": "p", "hash": "h"}, "wallclock": 5})") ==
             "config.json: sharness.wallclock: unknown key");
  BOOST_TEST(error_of(R"({"bestEffort": true})") == "config.json: sharness.policy: required");
  BOOST_TEST(error_of(R"({"policy": {"id": "p", "hash": "h"}, "network": "bridge"})") ==
             "config.json: sharness.network: expected \"none\", \"loopback\" or \"host\", got \"bridge\"");
  BOOST_TEST(error_of(R"({"policy": {"id": "p", "hash": "h"}, "wallClockSeconds": "60"})") ==
             "config.json: sharness.wallClockSeconds: expected an integer, got a string");
  BOOST_TEST(error_of(R"({"policy": {"id": "p", "hash": "h"}, "seccomp": {"syscalls": []}})")
                 .find("defaultAction: required") != std::string::npos);
}
