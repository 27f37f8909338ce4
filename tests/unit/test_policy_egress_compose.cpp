// The egress section composes only tighter (docs/egress.md "Composition"): every rule pair
// met, absence on the floor is none, and each way a client could try to loosen it is either
// intersected away or named by looser_sections (both are checked for each).
#define BOOST_TEST_MODULE policy_egress_compose
#include <boost/test/unit_test.hpp>

#include "spec-mapping/canonical.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/no_looser.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

Policy parse(const std::string& id, const std::string& egress, const std::string& extra = "") {
  std::string body = R"({"id": ")" + id + R"(", "version": 1)" + extra;
  if (!egress.empty()) body += R"(, "egress": )" + egress;
  auto p = parse_policy(body + "}");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

Policy rules(const std::string& id, const std::string& list, const std::string& budgets = "") {
  return parse(id, R"({"rules": )" + list + (budgets.empty() ? "" : R"(, "budgets": )" + budgets) + "}");
}

const Policy& floor_policy() {
  static const Policy f = rules("floor", R"([
    {"host": "*.example.com", "methods": ["GET", "POST"], "pathPrefixes": ["/v1"]},
    {"host": "api.github.com", "credential": {"vault": "github", "inject": "bearer", "env": "GITHUB_TOKEN"}},
    {"host": "10.0.0.5", "port": 8443}])",
                                R"({"requests": 100, "bytes": "1MiB"})");
  return f;
}

// The composition's rules, one line each.
std::vector<std::string> composed(const Policy& client, const Grants& g = {}) {
  std::vector<std::string> out;
  auto r = intersect(floor_policy(), client, g);
  if (r.egress)
    for (const auto& rule : r.egress->rules) out.push_back(describe_rule(rule));
  return out;
}

std::vector<std::string> looser(const Policy& client, const Grants& g = {}, const Policy* f = &floor_policy()) {
  std::vector<std::string> out;
  for (const auto& l : looser_sections(f, client, g)) out.push_back(describe(l));
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(each_tightening_is_kept) {
  // A narrower host, fewer methods, a deeper path prefix.
  auto narrow = rules("c", R"([{"host": "api.example.com", "methods": ["GET"], "pathPrefixes": ["/v1/items", "/v1/users"]}])");
  BOOST_TEST(composed(narrow) == (Lines{"api.example.com:443 GET /v1/items /v1/users"}), boost::test_tools::per_element());
  BOOST_TEST(looser(narrow).empty());
  // The client's credential, when it is the floor's own for that host.
  auto same = rules("c", R"([{"host": "api.github.com", "methods": ["GET"],
                             "credential": {"vault": "github", "inject": "bearer", "env": "GITHUB_TOKEN"}}])");
  BOOST_TEST(composed(same) == (Lines{"api.github.com:443 GET any path (credential github as bearer, placeholder "
                                      "GITHUB_TOKEN=sharness:github)"}),
             boost::test_tools::per_element());
  BOOST_TEST(looser(same).empty());
  // Leaving the credential out is asking the door to add none.
  auto bare = rules("c", R"([{"host": "api.github.com"}])");
  BOOST_TEST(composed(bare) == (Lines{"api.github.com:443 any method any path"}), boost::test_tools::per_element());
  BOOST_TEST(looser(bare).empty());
  // Smaller budgets; one left out keeps the floor's.
  auto small = rules("c", R"([{"host": "10.0.0.5", "port": 8443}])", R"({"requests": 10, "requestsPerSecond": 2})");
  auto r = intersect(floor_policy(), small);
  BOOST_TEST(*r.egress->budgets.requests == 10u);
  BOOST_TEST(*r.egress->budgets.bytes == 1u << 20);
  BOOST_TEST(*r.egress->budgets.requests_per_second == 2u);
  BOOST_TEST(looser(small).empty());
  // A client without the section keeps the floor's; a client's network "none" leaves no door at all.
  auto silent = parse("c", "");
  BOOST_TEST((intersect(floor_policy(), silent).egress == floor_policy().egress));
  BOOST_TEST((intersect(floor_policy(), silent).network == Network::loopback));
  auto offline = parse("c", "", R"(, "network": "none")");
  BOOST_TEST(!intersect(floor_policy(), offline).egress);
  BOOST_TEST((intersect(floor_policy(), offline).network == Network::none));
  BOOST_TEST(looser(offline).empty());
  // No rule both allow: no door either (what a door with no rule would hold), lo still up.
  auto disjoint = rules("c", R"([{"host": "api.other.com"}])");
  BOOST_TEST(!intersect(floor_policy(), disjoint).egress);
  BOOST_TEST((intersect(floor_policy(), disjoint).network == Network::loopback));
  BOOST_TEST(parse_policy(policy_to_json(intersect(floor_policy(), disjoint))).has_value());
}

BOOST_AUTO_TEST_CASE(each_loosening_is_intersected_away_and_named) {
  struct Case {
    std::string rule, named;
    Lines kept;  // what the composition keeps of it
  };
  const std::vector<Case> cases = {
      // Another host, the wildcard's parent, two labels down.
      {R"({"host": "api.other.com"})", "egress.rules api.other.com:443 any method any path", {}},
      {R"({"host": "example.com", "methods": ["GET"], "pathPrefixes": ["/v1"]})", "egress.rules example.com:443", {}},
      {R"({"host": "a.b.example.com", "methods": ["GET"], "pathPrefixes": ["/v1"]})", "egress.rules a.b.example.com:443", {}},
      // A wildcard over the floor's exact name: only that name is left.
      {R"({"host": "*.github.com"})", "egress.rules *.github.com:443", {"api.github.com:443 any method any path"}},
      // Another port (443 is the default on both sides).
      {R"({"host": "api.github.com", "port": 8443})", "egress.rules api.github.com:8443", {}},
      {R"({"host": "10.0.0.5"})", "egress.rules 10.0.0.5:443", {}},
      // A method, or a path, the floor lacks; a prefix that only shares characters.
      {R"({"host": "a.example.com", "methods": ["DELETE"], "pathPrefixes": ["/v1"]})", "egress.rules a.example.com:443 DELETE", {}},
      {R"({"host": "a.example.com", "methods": ["GET"], "pathPrefixes": ["/v1-admin"]})", "egress.rules a.example.com:443 GET /v1-admin", {}},
      {R"({"host": "a.example.com", "methods": ["GET"], "pathPrefixes": ["/v1/items", "/v2"]})",
       "egress.rules a.example.com:443 GET /v1/items /v2", {"a.example.com:443 GET /v1/items"}},
      // Any method, any path: the floor's methods and prefix are what is left.
      {R"({"host": "a.example.com"})", "egress.rules a.example.com:443 any method any path", {"a.example.com:443 GET,POST /v1"}},
  };
  for (const auto& c : cases) {
    auto client = rules("c", "[" + c.rule + "]");
    BOOST_TEST(composed(client) == c.kept, c.rule);
    auto l = looser(client);
    BOOST_TEST(l.size() == 1u, c.rule);
    BOOST_TEST((!l.empty() && l[0].starts_with(c.named)), c.rule << " -> " << (l.empty() ? "" : l[0]));
  }
  // A credential the floor does not tie to that host: the rule stays, without it.
  for (const char* cred : {R"({"vault": "github", "inject": "bearer"})",                            // other env
                           R"({"vault": "github", "inject": "basic", "env": "GITHUB_TOKEN"})",      // other place
                           R"({"vault": "aws", "inject": "bearer", "env": "GITHUB_TOKEN"})"}) {    // other vault
    auto client = rules("c", std::string(R"([{"host": "api.github.com", "credential": )") + cred + "}]");
    BOOST_TEST(composed(client) == (Lines{"api.github.com:443 any method any path"}), boost::test_tools::per_element());
    auto l = looser(client);
    BOOST_TEST(l.size() == 1u);
    BOOST_TEST((!l.empty() && l[0].starts_with("egress.rules credential vault")), cred);
  }
  auto stolen = rules("c", R"([{"host": "a.example.com", "methods": ["GET"], "pathPrefixes": ["/v1"],
                               "credential": {"vault": "github", "inject": "bearer"}}])");
  BOOST_TEST(composed(stolen) == (Lines{"a.example.com:443 GET /v1"}), boost::test_tools::per_element());
  BOOST_TEST(looser(stolen) == (Lines{"egress.rules credential vault github for a.example.com (the floor's: no rule of the "
                                      "floor ties that credential to those requests)"}),
             boost::test_tools::per_element());
  // Larger budgets: the floor's hold, and each is named.
  auto big = rules("c", R"([{"host": "10.0.0.5", "port": 8443}])", R"({"requests": 1000, "bytes": "1GiB", "requestsPerSecond": 5})");
  auto r = intersect(floor_policy(), big);
  BOOST_TEST(*r.egress->budgets.requests == 100u);
  BOOST_TEST(*r.egress->budgets.bytes == 1u << 20);
  BOOST_TEST(*r.egress->budgets.requests_per_second == 5u);  // the floor has none: the client's is tighter
  BOOST_TEST(looser(big) == (Lines{"egress.budgets.requests 1000 (the floor's: 100)", "egress.budgets.bytes 1 GiB (the floor's: 1 MiB)"}),
             boost::test_tools::per_element());
  // The host network against a floor whose egress means loopback.
  auto host = parse("c", "", R"(, "network": "host")");
  BOOST_TEST((intersect(floor_policy(), host).network == Network::loopback));
  BOOST_TEST(looser(host) == (Lines{"network host (the floor's: loopback)"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(absent_on_the_floor_is_none) {
  auto client = rules("c", R"([{"host": "api.github.com"}])");
  auto open = parse("floor", "");
  BOOST_TEST(!intersect(open, client).egress);
  BOOST_TEST(looser(client, {}, &open) == (Lines{"egress api.github.com:443 any method any path (the floor's: none)"}),
             boost::test_tools::per_element());
  BOOST_TEST(looser(client, {}, nullptr).size() == 1u);  // no floor at all grants no reach either
  // Unless the operator lets this policy add it.
  Grants g;
  g.egress = true;
  BOOST_TEST((intersect(open, client, g).egress == client.egress));
  BOOST_TEST(looser(client, g, &open).empty());
}

BOOST_AUTO_TEST_CASE(composed_hash_is_stable_and_reads_back) {
  auto client = rules("c", R"([{"host": "api.example.com", "methods": ["GET"]}, {"host": "api.github.com"}])",
                      R"({"requests": 50})");
  auto a = intersect(floor_policy(), client), b = intersect(floor_policy(), client);
  BOOST_TEST(!a.hash.empty());
  BOOST_TEST(a.hash == b.hash);
  std::string text = policy_to_json(a);
  BOOST_TEST(a.hash == sha256_hex(*canonicalize(text, "t")).value_or(""));
  auto again = parse_policy(text);
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(again->same_rules(a));
  BOOST_TEST(policy_to_json(*again) == text);
  // Each floor rule meets each client rule: two of the floor's, one each.
  BOOST_TEST(a.egress->rules.size() == 2u);
}
