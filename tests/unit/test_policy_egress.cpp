// The policy's `egress` section (docs/egress.md): parsed strictly with JSON paths in errors,
// written back to the same model and hash, mapped (network, env, the sharness block), explained
// as held by the door (the door's own side: tests/unit/test_egress_plan.cpp).
#define BOOST_TEST_MODULE policy_egress
#include <boost/test/unit_test.hpp>

#include "spec-mapping/canonical.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/egress_map.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/map.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

const char* kGithub = R"({"rules": [
  {"host": "api.github.com", "methods": ["POST", "GET"], "pathPrefixes": ["/repos/acme", "/user"],
   "credential": {"vault": "github", "inject": "bearer", "env": "GITHUB_TOKEN"}},
  {"host": "*.pythonhosted.org", "port": 443, "methods": ["GET"]},
  {"host": "10.0.0.5", "port": 8443}],
  "budgets": {"requests": 1000, "bytes": "64MiB", "requestsPerSecond": 10}})";

std::string doc(const std::string& egress, const std::string& extra = "") {
  return R"({"id": "e", "version": 1)" + extra + R"(, "egress": )" + egress + "}";
}

Policy must(const std::string& egress, const std::string& extra = "") {
  auto p = parse_policy(doc(egress, extra));
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

std::string error_of(const std::string& egress, const std::string& extra = "") {
  auto p = parse_policy(doc(egress, extra));
  return p ? "" : p.error().what();
}

}  // namespace

BOOST_AUTO_TEST_CASE(parsed_sorted_defaulted) {
  auto p = must(kGithub);
  BOOST_REQUIRE(p.egress);
  const auto& rules = p.egress->rules;
  BOOST_REQUIRE(rules.size() == 3u);
  // Sorted by host: "*." sorts before letters and digits.
  BOOST_TEST(rules[0].host == "*.pythonhosted.org");
  BOOST_TEST(rules[1].host == "10.0.0.5");
  BOOST_TEST(rules[1].port == 8443);
  BOOST_TEST(rules[2].host == "api.github.com");
  BOOST_TEST(rules[2].port == 443);  // the default
  BOOST_TEST((*rules[2].methods == std::vector<std::string>{"GET", "POST"}));
  BOOST_TEST((*rules[2].path_prefixes == std::vector<std::string>{"/repos/acme", "/user"}));
  BOOST_REQUIRE(rules[2].credential);
  BOOST_TEST(rules[2].credential->vault == "github");
  BOOST_TEST((rules[2].credential->inject == Inject::bearer));
  BOOST_TEST(!rules[0].credential);
  BOOST_TEST(*p.egress->budgets.bytes == 64ull << 20);
  BOOST_TEST(*p.egress->budgets.requests == 1000u);
  BOOST_TEST(*p.egress->budgets.requests_per_second == 10u);
  // Egress means the door on lo is the only way out.
  BOOST_TEST((p.network == Network::loopback));
  // Every method listed is any method: one model for both.
  auto all = must(R"({"rules": [{"host": "a.example.com", "methods": ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]}]})");
  BOOST_TEST(!all.egress->rules[0].methods);
  // A header name is case-insensitive in HTTP: kept in lower case.
  auto h = must(R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "header", "header": "X-Api-Key"}}]})");
  BOOST_TEST(h.egress->rules[0].credential->header == "x-api-key");
}

BOOST_AUTO_TEST_CASE(every_bad_input_names_its_json_path) {
  struct Case {
    std::string egress, path;
  };
  const std::vector<Case> cases = {
      {R"([])", "egress: expected an object"},
      {R"({})", "egress.rules"},
      {R"({"rules": []})", "egress.rules: must list at least one rule"},
      {R"({"rules": [{"host": "a.example.com"}], "rulez": 1})", "egress.rulez: unknown key"},
      {R"({"rules": [{"host": "a.example.com", "hots": 1}]})", "egress.rules[0].hots: unknown key"},
      {R"({"rules": [{"port": 443}]})", "egress.rules[0].host"},
      {R"({"rules": [{"host": "API.example.com"}]})", "egress.rules[0].host: \"API.example.com\": host names are written in lower case"},
      {R"({"rules": [{"host": "a.example.com."}]})", "egress.rules[0].host: \"a.example.com.\": no trailing dot"},
      {R"({"rules": [{"host": "*.example.com"}, {"host": "a.*.com"}]})", "egress.rules[1].host"},
      {R"({"rules": [{"host": 7}]})", "egress.rules[0].host: expected a string"},
      {R"({"rules": [{"host": "a.example.com", "port": 0}]})", "egress.rules[0].port"},
      {R"({"rules": [{"host": "a.example.com", "port": 65536}]})", "egress.rules[0].port"},
      {R"({"rules": [{"host": "a.example.com", "port": "443"}]})", "egress.rules[0].port"},
      {R"({"rules": [{"host": "a.example.com", "methods": []}]})", "egress.rules[0].methods: must name at least one"},
      {R"({"rules": [{"host": "a.example.com", "methods": ["get"]}]})", "egress.rules[0].methods[0]: unknown method \"get\""},
      {R"({"rules": [{"host": "a.example.com", "methods": ["GET", "CONNECT"]}]})", "egress.rules[0].methods[1]: CONNECT"},
      {R"({"rules": [{"host": "a.example.com", "methods": ["TRACE"]}]})", "egress.rules[0].methods[0]: TRACE"},
      {R"({"rules": [{"host": "a.example.com", "methods": ["GET", "GET"]}]})", "egress.rules[0].methods[1]: duplicate"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": []}]})", "egress.rules[0].pathPrefixes: must name"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["/"]}]})", "egress.rules[0].pathPrefixes[0]: \"/\": \"/\" is every path"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["repos"]}]})", "egress.rules[0].pathPrefixes[0]"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["/a/"]}]})", "egress.rules[0].pathPrefixes[0]: \"/a/\": no trailing /"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["/a/../b"]}]})", "egress.rules[0].pathPrefixes[0]"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["/a//b"]}]})", "egress.rules[0].pathPrefixes[0]"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["/a%2fb"]}]})", "egress.rules[0].pathPrefixes[0]"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["/a?x=1"]}]})", "egress.rules[0].pathPrefixes[0]"},
      {R"({"rules": [{"host": "a.example.com", "pathPrefixes": ["/a", "/a/b"]}]})", "egress.rules[0].pathPrefixes[1]: \"/a/b\" and \"/a\""},
      {R"({"rules": [{"host": "a.example.com", "credential": {"inject": "bearer"}}]})", "egress.rules[0].credential.vault"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "a b", "inject": "bearer"}}]})", "egress.rules[0].credential.vault"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k"}}]})", "egress.rules[0].credential.inject"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "cookie"}}]})", "egress.rules[0].credential.inject: expected"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "header"}}]})", "egress.rules[0].credential.header: required"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "bearer", "header": "x"}}]})", "egress.rules[0].credential.header: only with"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "header", "header": "Host"}}]})", "egress.rules[0].credential.header: \"host\""},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "header", "header": "Proxy-Authorization"}}]})", "egress.rules[0].credential.header"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "header", "header": "a b"}}]})", "egress.rules[0].credential.header"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "bearer", "env": "1X"}}]})", "egress.rules[0].credential.env"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "bearer", "env": "https_proxy"}}]})", "egress.rules[0].credential.env: \"https_proxy\" is set by"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "bearer", "env": "LD_PRELOAD"}}]})", "egress.rules[0].credential.env"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "bearer", "env": "SHARNESS_X"}}]})", "egress.rules[0].credential.env"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "k", "inject": "bearer", "extra": 1}}]})", "egress.rules[0].credential.extra: unknown key"},
      {R"({"rules": [{"host": "a.example.com"}, {"host": "a.example.com", "port": 443}]})", "egress.rules[1]: the same rule as rules[0]"},
      // Two rules the same request can match, with two credentials: which one would the door add?
      {R"({"rules": [{"host": "*.example.com", "credential": {"vault": "a", "inject": "bearer"}},
                     {"host": "api.example.com", "methods": ["GET"], "credential": {"vault": "b", "inject": "bearer"}}]})",
       "egress.rules[1].credential: rules[0] can match the same requests"},
      {R"({"rules": [{"host": "a.example.com", "credential": {"vault": "a", "inject": "bearer", "env": "TOKEN"}},
                     {"host": "b.example.com", "credential": {"vault": "b", "inject": "bearer", "env": "TOKEN"}}]})",
       "egress.rules[1].credential.env: TOKEN is already the placeholder of vault a"},
      {R"({"rules": [{"host": "a.example.com"}], "budgets": {}})", "egress.budgets: must set"},
      {R"({"rules": [{"host": "a.example.com"}], "budgets": {"requests": 0}})", "egress.budgets.requests"},
      {R"({"rules": [{"host": "a.example.com"}], "budgets": {"requests": 1.5}})", "egress.budgets.requests"},
      {R"({"rules": [{"host": "a.example.com"}], "budgets": {"bytes": "1MB"}})", "egress.budgets.bytes"},
      {R"({"rules": [{"host": "a.example.com"}], "budgets": {"requestsPerSecond": 100001}})", "egress.budgets.requestsPerSecond"},
      {R"({"rules": [{"host": "a.example.com"}], "budgets": {"rps": 1}})", "egress.budgets.rps: unknown key"},
  };
  for (const auto& c : cases) {
    std::string e = error_of(c.egress);
    BOOST_TEST(e.find("policy.json: " + c.path) == 0u, c.egress << "\n  -> " << e);
  }
  // The section and the network key contradict each other: the door is the only way out.
  BOOST_TEST(error_of(R"({"rules": [{"host": "a.example.com"}]})", R"(, "network": "host")").find("policy.json: network: \"host\" with egress") == 0u);
  BOOST_TEST(error_of(R"({"rules": [{"host": "a.example.com"}]})", R"(, "network": "none")").find("policy.json: network: \"none\" with egress") == 0u);
  BOOST_TEST(error_of(R"({"rules": [{"host": "a.example.com"}]})", R"(, "network": "loopback")").empty());
  // Same host, one credential each, but no request can match both (other methods, other paths): fine.
  BOOST_TEST(error_of(R"({"rules": [{"host": "a.example.com", "methods": ["GET"], "credential": {"vault": "r", "inject": "bearer"}},
                                    {"host": "a.example.com", "methods": ["POST"], "credential": {"vault": "w", "inject": "bearer"}},
                                    {"host": "*.example.com", "methods": ["HEAD"], "pathPrefixes": ["/x"], "credential": {"vault": "x", "inject": "basic"}},
                                    {"host": "b.example.com", "pathPrefixes": ["/y"], "credential": {"vault": "y", "inject": "basic"}}]})")
                 .empty());
}

BOOST_AUTO_TEST_CASE(written_and_read_back_to_the_same_hash) {
  auto p = must(kGithub);
  std::string text = policy_to_json(p);
  auto again = parse_policy(text);
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(again->same_rules(p));
  BOOST_TEST((again->egress == p.egress));
  // The written form is canonical: written again, it is the same text and the same hash.
  BOOST_TEST(policy_to_json(*again) == text);
  auto rehash = [](const std::string& t) { return sha256_hex(*canonicalize(t, "t")).value_or(""); };
  BOOST_TEST(again->hash == rehash(text));
  // Re-ordering rules or keys keeps the model; the hash is the document's (as for every section).
  auto reordered = must(R"({"budgets": {"requestsPerSecond": 10, "bytes": "64MiB", "requests": 1000}, "rules": [
    {"port": 8443, "host": "10.0.0.5"},
    {"methods": ["GET"], "host": "*.pythonhosted.org"},
    {"credential": {"env": "GITHUB_TOKEN", "inject": "bearer", "vault": "github"}, "pathPrefixes": ["/user", "/repos/acme"],
     "methods": ["GET", "POST"], "host": "api.github.com"}]})");
  BOOST_TEST(reordered.same_rules(p));
  BOOST_TEST(policy_to_json(reordered) == text);
  // And a change in any value is another hash.
  auto other = must(std::string(kGithub).replace(std::string(kGithub).find("1000"), 4, "999"));
  BOOST_TEST(other.hash != p.hash);
  BOOST_TEST(!other.same_rules(p));
  // The "sharness" block carries the section as it stands, and reads back.
  oci::Config c;
  Extension ext;
  BOOST_REQUIRE(apply_to_config(p, c, ext, HostProbe{}));
  auto block = json::Document::parse(extension_to_json(ext), "block");
  BOOST_REQUIRE(block);
  auto read = parse_extension(block->root());
  BOOST_REQUIRE_MESSAGE(read, (read ? "" : read.error().what()));
  BOOST_TEST((read->egress == p.egress));
}

BOOST_AUTO_TEST_CASE(maps_to_lo_only_and_the_door_env) {
  auto p = must(kGithub);
  oci::Config c;
  c.process.emplace();
  c.process->env = {"PATH=/bin", "HTTPS_PROXY=http://evil:1", "no_proxy=*", "ALL_PROXY=socks5://x:1", "GITHUB_TOKEN=ghp_real"};
  Extension ext;
  BOOST_REQUIRE(apply_to_config(p, c, ext, HostProbe{}));
  auto has = [&](const std::string& e) { return std::ranges::count(c.process->env, e) == 1; };
  BOOST_TEST(has("PATH=/bin"));
  for (const char* v : {"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"})
    BOOST_TEST(has(std::string(v) + "=http://127.0.0.1:3128"), v);
  BOOST_TEST(has("GITHUB_TOKEN=sharness:github"));
  for (const auto& e : c.process->env) {
    BOOST_TEST(e.find("evil") == std::string::npos);
    BOOST_TEST(e.find("ghp_real") == std::string::npos);  // the config's own token never reaches the workload
    BOOST_TEST(!e.starts_with("no_proxy="));
    BOOST_TEST(!e.starts_with("ALL_PROXY="));
  }
  // A new network namespace, lo up: nothing but the door to talk to.
  BOOST_TEST(std::ranges::count_if(c.linux.namespaces, [](const oci::Namespace& n) { return n.type == "network" && n.path.empty(); }) == 1);
  BOOST_TEST(*ext.network == "loopback");
  BOOST_TEST((ext.egress == p.egress));
  // With TCP ports handled by Landlock, the door's port is added to connect.
  auto ported = must(R"({"rules": [{"host": "a.example.com"}]})", R"(, "ports": {"connect": [53]})");
  Extension pe;
  oci::Config pc;
  BOOST_REQUIRE(apply_to_config(ported, pc, pe, HostProbe{}));
  BOOST_REQUIRE(pe.landlock);
  bool door = false;
  for (const auto& r : pe.landlock->net_port) door = door || std::ranges::count(r.ports, kEgressProxyPort) == 1;
  BOOST_TEST(door);
  // `policy map` shows it, the refusal included.
  auto map = map_policy_json(p, false, HostProbe{}, {});
  BOOST_REQUIRE_MESSAGE(map, (map ? "" : map.error().what()));
  BOOST_TEST(map->find("\"egress\":{\"rules\":") != std::string::npos);
  BOOST_TEST(map->find("HTTPS_PROXY=http://127.0.0.1:3128") != std::string::npos);
  BOOST_TEST(map->find("not built yet") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(explained_as_held_by_the_door) {
  auto p = must(kGithub);
  auto bounds = explain(p, HostProbe{});
  auto it = std::ranges::find_if(bounds, [](const Bound& b) { return b.mechanism.starts_with("egress door"); });
  BOOST_REQUIRE(it != bounds.end());
  BOOST_TEST(it->available);
  BOOST_TEST(it->applied_by == kEgressDoor);
  BOOST_TEST(it->mechanism.find("api.github.com:443 GET,POST /repos/acme /user (credential github as bearer, "
                                "placeholder GITHUB_TOKEN=sharness:github)") != std::string::npos, it->mechanism);
  BOOST_TEST(it->mechanism.find("[10.0.0.5]") == std::string::npos);
  BOOST_TEST(it->mechanism.find("budget 1000 requests, 64 MiB, 10 requests/s") != std::string::npos, it->mechanism);
  BOOST_TEST(format_bound(*it).starts_with("[ok]      egress door"));
  auto none = explain(*parse_policy(R"({"id": "n", "version": 1})"), HostProbe{});
  BOOST_TEST(std::ranges::none_of(none, [](const Bound& b) { return b.mechanism.starts_with("egress"); }));
}
