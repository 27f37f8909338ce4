// The egress section's host patterns (spec-mapping/egress_host.hpp): one spelling per host, and
// a wildcard that matches exactly one label, so that composition can compare them exactly.
#define BOOST_TEST_MODULE egress_host
#include <boost/test/unit_test.hpp>

#include <string>

#include "spec-mapping/egress_host.hpp"

using namespace sh::policy;

BOOST_AUTO_TEST_CASE(hosts_one_spelling) {
  for (const char* ok : {"api.github.com", "*.github.com", "xn--bcher-kva.example", "a-b.c0.io", "10.0.0.5", "fd00::1",
                         "2001:db8::8:800:200c:417a", "169.254.169.254"})
    BOOST_TEST(host_problem(ok).empty(), ok << ": " << host_problem(ok));
  for (const char* bad : {"", "API.github.com", "api.github.com.", "*.com", "*", "*.*.github.com", "a.*.github.com",
                          "*github.com", "localhost", "a..b.com", "-a.b.com", "a-.b.com", "a_b.example.com",
                          "1.2.3.4.5", "example.123", "010.0.0.5", "::ffff:10.0.0.5", "::10.0.0.5", "0.0.0.0", "::",
                          "224.0.0.1", "ff02::1", "[fd00::1]", "FD00::1", "fd00:0::1", "fe80::1%eth0", "a.example.com:443"})
    BOOST_TEST(!host_problem(bad).empty(), bad);
  BOOST_TEST(host_problem(std::string(64, 'a') + ".com").find("63") != std::string::npos);
  // Each refused for its own reason, said in words.
  for (auto [bad, why] : {std::pair{"API.github.com", "lower case"}, {"api.github.com.", "trailing dot"},
                          {"localhost", "single label"}, {"*.com", "at least two labels"},
                          {"a.*.github.com", "one leading \"*.\" label"}, {"example.123", "all digits"},
                          {"::ffff:10.0.0.5", "write it as IPv4"}, {"FD00::1", "write the IPv6 address as fd00::1"},
                          {"224.0.0.1", "not a unicast"}, {"a_b.example.com", "not a label"}})
    BOOST_TEST(host_problem(bad).find(why) != std::string::npos, bad << ": " << host_problem(bad));
  BOOST_TEST(is_address("fd00::1"));
  BOOST_TEST(!is_address("a.example.com"));
  BOOST_TEST(is_wildcard("*.example.com"));
}

BOOST_AUTO_TEST_CASE(host_patterns_meet) {
  BOOST_TEST(*meet_host("*.example.com", "api.example.com") == "api.example.com");
  BOOST_TEST(*meet_host("api.example.com", "*.example.com") == "api.example.com");
  BOOST_TEST(*meet_host("*.example.com", "*.example.com") == "*.example.com");
  // One label, never the name itself nor two labels down.
  BOOST_TEST(!meet_host("*.example.com", "example.com"));
  BOOST_TEST(!meet_host("*.example.com", "a.b.example.com"));
  BOOST_TEST(!meet_host("*.example.com", "*.b.example.com"));
  BOOST_TEST(!meet_host("*.example.com", "evilexample.com"));
  BOOST_TEST(!meet_host("*.example.com", "a.example.com.evil.net"));
  BOOST_TEST(!meet_host("*.a.example.com", "*.b.example.com"));
  BOOST_TEST(!meet_host("a.example.com", "b.example.com"));
  BOOST_TEST(!meet_host("10.0.0.5", "10.0.0.6"));
  BOOST_TEST(host_matches("*.example.com", "a.example.com"));
  BOOST_TEST(!host_matches("*.0.5", "10.0.0.5"));  // not a pattern anyway; an address is never a wildcard's
}
