// What the door checks before a byte goes out (egress/target.hpp, decide.hpp, address.hpp,
// budget.hpp): one spelling per host, normalised paths refused rather than repaired, the rule
// that allows a request, special addresses, budgets.
#define BOOST_TEST_MODULE egress_checks
#include <boost/test/unit_test.hpp>

#include <string>

#include "base/json.hpp"
#include "egress/address.hpp"
#include "egress/budget.hpp"
#include "egress/decide.hpp"
#include "egress/target.hpp"

using namespace sh::egress;

BOOST_AUTO_TEST_CASE(authorities) {
  auto a = parse_authority("API.Example.com:443");
  BOOST_REQUIRE(a);
  BOOST_TEST(a->host == "api.example.com");
  BOOST_TEST(a->port == 443);
  BOOST_TEST(parse_authority("[2001:DB8::0:1]:8443")->host == "2001:db8::1");
  BOOST_TEST(parse_authority("203.0.113.5:80")->host == "203.0.113.5");
  BOOST_TEST(parse_authority("api.example.com", 80)->port == 80);
  for (const char* bad : {"api.example.com", "api.example.com:", "api.example.com:0", "api.example.com:65536",
                          "api.example.com:080", "localhost:443", "api.example.com.:443", "*.example.com:443",
                          "user@api.example.com:443", "2001:db8::1:443", "[::ffff:10.0.0.1]:443", "0x7f.1:443",
                          "2130706433:443", "[2001:db8::1:443", "a_b.example.com:443"})
    BOOST_TEST(!parse_authority(bad).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(paths_refused_not_repaired) {
  BOOST_TEST(*normal_path("/repos/acme/x") == "/repos/acme/x");
  BOOST_TEST(*normal_path("/a/%41b/") == "/a/Ab/");
  BOOST_TEST(*normal_path("/") == "/");
  for (const char* bad : {"", "a", "/a/../b", "/a/./b", "/a//b", "//a", "/..", "/a/..", "/a%2fb", "/a%2Fb", "/a%5cb",
                          "/a\\b", "/%2e%2e/x", "/a/%2E", "/a%00b", "/a%zz", "/a%4", "/a%c3%a9"})
    BOOST_TEST(!normal_path(bad).has_value(), bad);
  auto t = parse_absolute("http://API.example.com:8080/x/y?q=1");
  BOOST_REQUIRE(t);
  BOOST_TEST(t->authority.host == "api.example.com");
  BOOST_TEST(t->authority.port == 8080);
  BOOST_TEST(t->origin == "/x/y?q=1");
  BOOST_TEST(t->path == "/x/y");
  BOOST_TEST(parse_absolute("http://api.example.com")->origin == "/");
  BOOST_TEST(parse_absolute("http://api.example.com?x")->origin == "/?x");
  BOOST_TEST(!parse_absolute("https://api.example.com/").has_value(), "HTTPS goes through CONNECT");
  BOOST_TEST(!parse_absolute("/x").has_value());
  BOOST_TEST(!parse_origin("/x#frag").has_value());
  BOOST_TEST(!parse_origin("*").has_value());
}

BOOST_AUTO_TEST_CASE(host_field_agreement) {
  Authority a{"api.example.com", 443};
  BOOST_TEST(host_field_names("api.example.com", a, 443));
  BOOST_TEST(host_field_names("API.example.com:443", a, 443));
  BOOST_TEST(!host_field_names("other.example.com", a, 443), "fronting");
  BOOST_TEST(!host_field_names("api.example.com:8443", a, 443));
  BOOST_TEST(!host_field_names("api.example.com", Authority{"api.example.com", 8443}, 443));
  BOOST_TEST(!host_field_names("api.example.com.", a, 443));
  BOOST_TEST(!host_field_names("", a, 443));
}

sh::policy::EgressPolicy policy(const char* json) {
  auto doc = sh::json::Document::parse(json, "t");
  return *sh::policy::parse_egress(doc->root());
}

BOOST_AUTO_TEST_CASE(the_rule_that_allows) {
  auto p = policy(R"({"rules": [
    {"host": "api.example.com", "methods": ["GET"], "pathPrefixes": ["/repos/acme"]},
    {"host": "api.example.com", "methods": ["POST"], "pathPrefixes": ["/upload"],
     "credential": {"vault": "v", "inject": "bearer"}},
    {"host": "*.cdn.example.com", "port": 8443}]})");
  Authority api{"api.example.com", 443};
  BOOST_TEST(p.rules[*decide(p, api, "GET", "/repos/acme/x")].host == "api.example.com");
  BOOST_TEST(decide(p, api, "POST", "/upload").has_value());
  BOOST_TEST(p.rules[*decide(p, api, "POST", "/upload/a")].credential.has_value());
  BOOST_TEST(decide(p, api, "GET", "/repos/acme-evil").error().check == "path");
  BOOST_TEST(decide(p, api, "DELETE", "/repos/acme").error().check == "method");
  BOOST_TEST(decide(p, Authority{"api.example.com", 80}, "GET", "/repos/acme").error().check == "host");
  BOOST_TEST(decide(p, Authority{"x.cdn.example.com", 8443}, "PUT", "/").has_value());
  BOOST_TEST(decide(p, Authority{"a.x.cdn.example.com", 8443}, "GET", "/").error().check == "host");
  BOOST_TEST(decide(p, Authority{"cdn.example.com", 8443}, "GET", "/").error().check == "host");
  BOOST_TEST(host_listed(p, api));
  BOOST_TEST(!host_listed(p, Authority{"other.example.com", 443}));
  // A credentialed rule wins over one without when both allow the request.
  auto q = policy(R"({"rules": [{"host": "api.example.com"},
    {"host": "api.example.com", "methods": ["GET"], "credential": {"vault": "v", "inject": "bearer"}}]})");
  BOOST_TEST(q.rules[*decide(q, api, "GET", "/")].credential.has_value());
  BOOST_TEST(!q.rules[*decide(q, api, "POST", "/")].credential.has_value());
}

std::string kind(const char* ip) { return special_kind(*parse_ip(ip)); }

BOOST_AUTO_TEST_CASE(address_classification) {
  for (const char* ok : {"203.0.113.5", "198.51.100.1", "192.0.2.1", "8.8.8.8", "1.1.1.1", "2001:db8::1",
                         "2606:4700::1111", "100.63.255.255", "100.128.0.0", "172.32.0.1", "11.0.0.1"})
    BOOST_TEST(kind(ok).empty(), ok << ": " << kind(ok));
  for (auto [ip, why] : {std::pair{"127.0.0.1", "loopback"}, {"127.255.0.9", "loopback"}, {"::1", "loopback"},
                         {"10.1.2.3", "RFC 1918"}, {"172.16.0.1", "RFC 1918"}, {"172.31.255.255", "RFC 1918"},
                         {"192.168.1.1", "RFC 1918"}, {"100.64.0.1", "CGNAT"}, {"169.254.1.1", "link-local"},
                         {"169.254.169.254", "metadata"}, {"fd00:ec2::254", "metadata"}, {"fd12::1", "unique-local"},
                         {"fc00::1", "unique-local"}, {"fe80::1", "link-local"}, {"224.0.0.1", "multicast"},
                         {"ff02::1", "multicast"}, {"0.0.0.0", "unspecified"}, {"::", "unspecified"},
                         {"255.255.255.255", "broadcast"}, {"240.0.0.1", "reserved"},
                         {"::ffff:127.0.0.1", "IPv4 address that is loopback"},
                         {"::ffff:169.254.169.254", "metadata"}, {"64:ff9b::a00:1", "RFC 1918"},
                         {"2002:a9fe:a9fe::", "metadata"}})
    BOOST_TEST(kind(ip).find(why) != std::string::npos, ip << ": " << kind(ip));
}

BOOST_AUTO_TEST_CASE(address_rules) {
  AddressRules r;
  r.literal = {*parse_ip("10.0.0.5")};
  r.allow = {*parse_cidr("10.9.0.0/16")};
  r.own = {*parse_cidr("203.0.113.1"), *parse_cidr("2001:db8::1")};
  BOOST_TEST(r.refusal(*parse_ip("10.0.0.5"), true).empty(), "a rule names it");
  BOOST_TEST(!r.refusal(*parse_ip("10.0.0.5"), false).empty(), "a name never resolves into it");
  BOOST_TEST(r.refusal(*parse_ip("10.9.3.4"), false).empty(), "the operator allows it");
  BOOST_TEST(!r.refusal(*parse_ip("10.8.3.4"), false).empty());
  BOOST_TEST(r.refusal(*parse_ip("203.0.113.1"), false).find("this host") != std::string::npos);
  BOOST_TEST(!r.refusal(*parse_ip("::ffff:203.0.113.1"), false).empty(), "this host, carried in IPv6");
  BOOST_TEST(!r.refusal(*parse_ip("2001:db8::1"), false).empty());
  BOOST_TEST(r.refusal(*parse_ip("203.0.113.2"), false).empty());
  BOOST_TEST(!parse_cidr("10.0.0.0/33").has_value());
  BOOST_TEST(!parse_cidr("10.0.0.0/").has_value());
  BOOST_TEST(!parse_ip("010.0.0.1").has_value());
  BOOST_TEST(parse_cidr("::/0")->contains(*parse_ip("2001:db8::1")));
  BOOST_TEST(!parse_cidr("::/0")->contains(*parse_ip("1.2.3.4")));
}

BOOST_AUTO_TEST_CASE(budgets) {
  using namespace std::chrono_literals;
  auto t0 = Budget::Clock::now();
  sh::policy::EgressBudgets b;
  b.requests = 2;
  Budget req(b, t0);
  BOOST_TEST(req.admit(t0).empty());
  BOOST_TEST(req.admit(t0).empty());
  BOOST_TEST(req.admit(t0) == "budget-requests");
  sh::policy::EgressBudgets r;
  r.requests_per_second = 2;
  Budget rate(r, t0);
  BOOST_TEST(rate.admit(t0).empty());
  BOOST_TEST(rate.admit(t0).empty());
  BOOST_TEST(rate.admit(t0) == "budget-rate");
  BOOST_TEST(rate.admit(t0 + 500ms).empty(), "half a second later, one more");
  BOOST_TEST(rate.admit(t0 + 500ms) == "budget-rate");
  BOOST_TEST(rate.admit(t0 + 10s).empty());
  sh::policy::EgressBudgets by;
  by.bytes = 100;
  Budget bytes(by, t0);
  BOOST_TEST(bytes.take(60) == 60u);
  BOOST_TEST(bytes.admit(t0).empty());
  BOOST_TEST(bytes.take(60) == 40u, "only what is left");
  BOOST_TEST(bytes.take(1) == 0u);
  BOOST_TEST(bytes.admit(t0) == "budget-bytes");
  Budget none(sh::policy::EgressBudgets{}, t0);
  BOOST_TEST(none.take(1ull << 40) == 1ull << 40);
}
