// The policy's `secrets` section (docs/kms.md): parsed strictly with JSON paths in errors, written
// back, composed only tighter, and explained.
#define BOOST_TEST_MODULE policy_secrets
#include <boost/test/unit_test.hpp>

#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

Policy parse(const std::string& id, const std::string& secrets) {
  auto p = parse_policy(R"({"id": ")" + id + R"(", "version": 1, "role": "app", "secrets": )" + secrets + "}");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

std::string error_of(const std::string& secrets) {
  auto p = parse_policy(R"({"id": "x", "version": 1, "secrets": )" + secrets + "}");
  return p ? "" : p.error().what();
}

const char* kFloor = R"({"vaults": ["db", "web"], "hosts": ["a.example", "b.example"], "operations": ["derive"], "ttl": 600})";

}  // namespace

BOOST_AUTO_TEST_CASE(parsed_sorted_and_unique) {
  auto p = parse("f", R"({"vaults": ["web", "db", "web"], "hosts": ["h"], "operations": ["derive"], "ttl": 60})");
  BOOST_REQUIRE(p.secrets);
  BOOST_TEST(p.secrets->vaults == (std::vector<std::string>{"db", "web"}), boost::test_tools::per_element());
  BOOST_TEST(p.secrets->ttl == 60u);
}

BOOST_AUTO_TEST_CASE(strict_errors_name_the_json_path) {
  BOOST_TEST(error_of(R"({"vaults": ["db"], "hosts": ["h"], "operations": ["derive"], "ttl": 60, "tll": 1})") ==
             "policy.json: secrets.tll: unknown key");
  auto e = error_of(R"({"vaults": ["d b"], "hosts": ["h"], "operations": ["derive"], "ttl": 60})");
  BOOST_TEST(e.find("policy.json: secrets.vaults[0]") == 0u, e);
  e = error_of(R"({"vaults": [], "hosts": ["h"], "operations": ["derive"], "ttl": 60})");
  BOOST_TEST(e.find("policy.json: secrets.vaults") == 0u, e);
  e = error_of(R"({"vaults": ["db"], "hosts": ["h"], "operations": ["derive"], "ttl": 0})");
  BOOST_TEST(e.find("policy.json: secrets.ttl") == 0u, e);
  e = error_of(R"({"vaults": ["db"], "operations": ["derive"], "ttl": 60})");
  BOOST_TEST(e.find("policy.json: secrets.hosts") == 0u, e);
  BOOST_TEST(error_of(R"(["db"])").find("policy.json: secrets: expected an object") == 0u);
}

BOOST_AUTO_TEST_CASE(written_and_read_back) {
  auto p = parse("f", kFloor);
  auto again = parse_policy(policy_to_json(p));
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(again->same_rules(p));
  BOOST_TEST((again->secrets == p.secrets));
  BOOST_TEST(policy_to_json(p).find("\"secrets\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(composition_only_tightens) {
  auto floor = parse("floor", kFloor);
  auto client = parse("client", R"({"vaults": ["db", "other"], "hosts": ["b.example", "c.example"],
                                    "operations": ["derive", "wrap"], "ttl": 3600})");
  auto r = intersect(floor, client);
  BOOST_REQUIRE(r.secrets);
  BOOST_TEST(r.secrets->vaults == (std::vector<std::string>{"db"}), boost::test_tools::per_element());
  BOOST_TEST(r.secrets->hosts == (std::vector<std::string>{"b.example"}), boost::test_tools::per_element());
  BOOST_TEST(r.secrets->operations == (std::vector<std::string>{"derive"}), boost::test_tools::per_element());
  BOOST_TEST(r.secrets->ttl == 600u);
  // Symmetric when both have it. A client without the section keeps the floor's; a floor
  // without it grants none (keys from the operator's vault are a grant), unless the operator
  // lets this policy add it.
  BOOST_TEST((intersect(client, floor).secrets->hosts == r.secrets->hosts));
  auto none = *parse_policy(R"({"id": "n", "version": 1})");
  BOOST_TEST(!intersect(none, none).secrets);
  BOOST_TEST((intersect(floor, none).secrets == floor.secrets));
  BOOST_TEST(!intersect(none, floor).secrets);
  BOOST_TEST((intersect(none, floor, Grants{{}, true}).secrets == floor.secrets));
  // Disjoint: nothing left to ask for (create refuses it).
  auto disjoint = parse("d", R"({"vaults": ["zzz"], "hosts": ["a.example"], "operations": ["derive"], "ttl": 5})");
  BOOST_TEST(intersect(floor, disjoint).secrets->vaults.empty());
  BOOST_TEST(intersect(floor, disjoint).secrets->ttl == 5u);
}

BOOST_AUTO_TEST_CASE(explained_with_the_master_key_elsewhere) {
  auto p = parse("f", kFloor);
  HostProbe with, without;
  with.memfd_secret = true;
  auto find = [](const std::vector<Bound>& bounds) -> const Bound* {
    for (const auto& b : bounds)
      if (b.mechanism.find("KMS sidecar") != std::string::npos) return &b;
    return nullptr;
  };
  auto bounds = explain(p, with);
  const Bound* b = find(bounds);
  BOOST_REQUIRE(b);
  BOOST_TEST(b->available);
  BOOST_TEST(b->mechanism.find("vaults [db web]") != std::string::npos, b->mechanism);
  BOOST_TEST(b->mechanism.find("hosts [a.example b.example]") != std::string::npos, b->mechanism);
  BOOST_TEST(b->mechanism.find("master keys never enter the container") != std::string::npos, b->mechanism);
  auto old = explain(p, without);
  BOOST_REQUIRE(find(old));
  BOOST_TEST(!find(old)->available);
  BOOST_TEST(!require_available(old, false));
  // No section, no line.
  BOOST_TEST(!find(explain(*parse_policy(R"({"id": "n", "version": 1})"), with)));
}

// secrets.allowWeakerMemory: off unless written; a bool (the error names the path); kept by
// the writer; composition allows it only when both sides do; explain says which mode runs.
BOOST_AUTO_TEST_CASE(weaker_memory_mode_is_a_policy_key) {
  auto strict = parse("s", kFloor);
  BOOST_TEST(!strict.secrets->allow_weaker_memory);
  auto weak = parse("w", R"({"vaults": ["db"], "hosts": ["a.example"], "operations": ["derive"], "ttl": 60,
                             "allowWeakerMemory": true})");
  BOOST_TEST(weak.secrets->allow_weaker_memory);
  auto e = error_of(R"({"vaults": ["db"], "hosts": ["h"], "operations": ["derive"], "ttl": 60, "allowWeakerMemory": 1})");
  BOOST_TEST(e.find("policy.json: secrets.allowWeakerMemory") == 0u, e);
  auto again = parse_policy(policy_to_json(weak));
  BOOST_REQUIRE(again);
  BOOST_TEST(again->secrets->allow_weaker_memory);
  BOOST_TEST(policy_to_json(strict).find("allowWeakerMemory") == std::string::npos);
  BOOST_TEST(!intersect(strict, weak).secrets->allow_weaker_memory);
  BOOST_TEST(!intersect(weak, strict).secrets->allow_weaker_memory);
  BOOST_TEST(intersect(weak, weak).secrets->allow_weaker_memory);

  HostProbe without;  // a kernel without memfd_secret
  auto line = [](const std::vector<Bound>& bounds) -> Bound {
    for (const auto& b : bounds)
      if (b.mechanism.find("KMS sidecar") != std::string::npos) return b;
    BOOST_FAIL("no KMS line");
    return {};
  };
  Bound refused = line(explain(strict, without));
  BOOST_TEST(!refused.available);
  BOOST_TEST(refused.note.find("secrets.allowWeakerMemory") != std::string::npos, refused.note);
  Bound weaker = line(explain(weak, without));
  BOOST_TEST(weaker.available);
  BOOST_TEST(weaker.note.find("WEAKER MODE") != std::string::npos, weaker.note);
  BOOST_TEST(weaker.note.find("MADV_DONTDUMP") != std::string::npos, weaker.note);
  BOOST_TEST(weaker.mechanism.find("mlocked anonymous memory") != std::string::npos, weaker.mechanism);
  HostProbe with;
  with.memfd_secret = true;  // with memfd_secret the key changes nothing at run time
  BOOST_TEST(line(explain(weak, with)).note.empty());
}

// secrets.workloadMayAsk: off unless written (by default the KMS answers only the egress door);
// a bool; kept by the writer; false wins in composition, in either order; explain says who asks;
// a client claiming it over a floor without it is looser.
BOOST_AUTO_TEST_CASE(workload_may_ask_is_explicit_and_false_wins) {
  auto door_only = parse("d", kFloor);
  BOOST_TEST(!door_only.secrets->workload_may_ask);
  auto asks = parse("a", R"({"vaults": ["db"], "hosts": ["a.example"], "operations": ["derive"], "ttl": 60,
                             "workloadMayAsk": true})");
  BOOST_TEST(asks.secrets->workload_may_ask);
  auto e = error_of(R"({"vaults": ["db"], "hosts": ["h"], "operations": ["derive"], "ttl": 60, "workloadMayAsk": "yes"})");
  BOOST_TEST(e.find("policy.json: secrets.workloadMayAsk") == 0u, e);
  auto again = parse_policy(policy_to_json(asks));
  BOOST_REQUIRE(again);
  BOOST_TEST(again->secrets->workload_may_ask);
  BOOST_TEST(policy_to_json(door_only).find("workloadMayAsk") == std::string::npos);  // the hash of old policies kept
  BOOST_TEST(!intersect(door_only, asks).secrets->workload_may_ask);
  BOOST_TEST(!intersect(asks, door_only).secrets->workload_may_ask);
  BOOST_TEST(intersect(asks, asks).secrets->workload_may_ask);

  HostProbe with;
  with.memfd_secret = true;
  auto mech = [&](const Policy& p) {
    for (const auto& b : explain(p, with))
      if (b.mechanism.find("KMS sidecar") != std::string::npos) return b.mechanism;
    return std::string();
  };
  BOOST_TEST(mech(door_only).find("asked only by the egress door") != std::string::npos, mech(door_only));
  BOOST_TEST(mech(asks).find("asked by the workload itself (workloadMayAsk)") != std::string::npos, mech(asks));
}

// The egress door's leaf carries role "egress" and the container's id: a policy taking that role
// would let its workload pass for its own door at the KMS. Refused, naming the path (control: "app").
BOOST_AUTO_TEST_CASE(role_egress_is_the_doors) {
  auto p = parse_policy(R"({"id": "x", "version": 1, "role": "egress"})");
  BOOST_REQUIRE(!p);
  BOOST_TEST(p.error().what().find("policy.json: role: \"egress\" is the egress door's role") == 0u, p.error().what());
  BOOST_TEST(parse_policy(R"({"id": "x", "version": 1, "role": "app"})").has_value());
}
