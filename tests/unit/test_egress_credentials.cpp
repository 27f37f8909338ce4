// Credentials in the door (egress/inject.hpp, scrub.hpp, door_config.hpp): injected where the
// rule says, placeholders replaced only under their rule and refused anywhere else, values
// scrubbed from what comes back however it is cut.
#define BOOST_TEST_MODULE egress_credentials
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <string>

#include "base/json.hpp"
#include "egress/credentials.hpp"
#include "egress/door_config.hpp"
#include "egress/inject.hpp"
#include "egress/scrub.hpp"
#include "kms/crypto.hpp"
#include "temp_dir.hpp"

using namespace sh::egress;

namespace {

sh::policy::EgressPolicy policy(const char* json) {
  auto doc = sh::json::Document::parse(json, "t");
  return *sh::policy::parse_egress(doc->root());
}

// Feed `in` cut every `step` bytes.
std::string scrub_in_steps(Scanner& s, const std::string& in, size_t step) {
  std::string out;
  for (size_t at = 0; at < in.size(); at += step) s.feed(std::string_view(in).substr(at, step), out);
  s.finish(out);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(scrub_across_boundaries) {
  const std::string body = "a SECRET b SECRETSECRET c SECRE d SECRET";
  for (size_t step = 1; step <= body.size(); ++step) {
    Scanner s({"SECRET"}, true);
    BOOST_TEST(scrub_in_steps(s, body, step) == "a ****** b ************ c SECRE d ******", "step " << step);
  }
  // The longer needle wins where two start at one place; found() names each once.
  Scanner two({"sharness:gh", "sharness:gh2"}, false);
  std::string out = scrub_in_steps(two, "x sharness:gh2 y", 3);
  BOOST_TEST(out == "x sharness:gh2 y");
  BOOST_TEST(two.found().size() == 1u);
  BOOST_TEST(two.found()[0] == 1u);
  Scanner none({}, true);
  BOOST_TEST(scrub_in_steps(none, "abc", 1) == "abc");
}

BOOST_AUTO_TEST_CASE(credentials_injected_and_placeholders) {
  auto p = policy(R"({"rules": [
    {"host": "api.example.com", "credential": {"vault": "gh", "inject": "bearer", "env": "GH"}},
    {"host": "b.example.com", "credential": {"vault": "pair", "inject": "basic"}},
    {"host": "c.example.com", "credential": {"vault": "key", "inject": "header", "header": "X-Api-Key"}},
    {"host": "other.example.com"}]})");
  auto creds = Credentials::of({{"gh", "TOKEN1"}, {"pair", "u:p"}, {"key", "K3Y"}});
  auto rule = [&](const char* host) -> const sh::policy::EgressRule& {
    for (const auto& r : p.rules)
      if (r.host == host) return r;
    throw std::runtime_error(host);
  };
  auto head = [](const char* text) { return *parse_request_head(text); };
  auto h = head("GET / HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer sharness:gh\r\nX-Other: sharness:gh\r\n\r\n");
  BOOST_REQUIRE(creds.apply(h, rule("api.example.com")));
  BOOST_TEST(*h.fields.one("authorization").value() == "Bearer TOKEN1");
  BOOST_TEST(*h.fields.one("x-other").value() == "TOKEN1", "the placeholder replaced where it was sent");
  h = head("GET / HTTP/1.1\r\nHost: b.example.com\r\n\r\n");
  BOOST_REQUIRE(creds.apply(h, rule("b.example.com")));
  BOOST_TEST(*h.fields.one("authorization").value() == "Basic " + base64("u:p"));
  BOOST_TEST(base64("u:p") == "dTpw");
  h = head("GET / HTTP/1.1\r\nHost: c.example.com\r\nX-API-KEY: mine\r\n\r\n");
  BOOST_REQUIRE(creds.apply(h, rule("c.example.com")));
  BOOST_TEST(*h.fields.one("x-api-key").value() == "K3Y", "the door's value, not the workload's");
  // A placeholder anywhere a rule of its vault does not cover: refused, in a field or the target.
  for (const char* bad : {"GET / HTTP/1.1\r\nHost: other.example.com\r\nX-T: Bearer sharness:gh\r\n\r\n",
                          "GET /?t=sharness:gh HTTP/1.1\r\nHost: other.example.com\r\n\r\n"}) {
    h = head(bad);
    auto r = creds.apply(h, rule("other.example.com"));
    BOOST_TEST(!r.has_value(), bad);
    if (!r) BOOST_TEST(r.error().check == "placeholder");
  }
  h = head("GET / HTTP/1.1\r\nHost: c.example.com\r\nX-T: sharness:gh\r\n\r\n");
  BOOST_TEST(!creds.apply(h, rule("c.example.com")).has_value(), "another vault's placeholder under a credentialed rule");
  h = head("GET / HTTP/1.1\r\nHost: other.example.com\r\nX-T: sharness:ghost\r\n\r\n");
  BOOST_TEST(!creds.apply(h, rule("other.example.com")).has_value(), "a longer name still holds the placeholder");
  h = head("GET / HTTP/1.1\r\nHost: other.example.com\r\nX-T: sharness:unknown\r\n\r\n");
  BOOST_TEST(creds.apply(h, rule("other.example.com")).has_value(), "not a placeholder of this door");
  // In a body: Scanner over the placeholders, then foreign().
  Scanner watch(creds.placeholders(), false);
  std::string sink = scrub_in_steps(watch, "x=sharness:gh", 2);
  BOOST_TEST(creds.foreign(watch.found(), rule("other.example.com")) == "gh");
  BOOST_TEST(creds.foreign(watch.found(), rule("api.example.com")).empty());
  // What is scrubbed: each value, and its base64 (an echoed basic header).
  auto n = creds.scrub_needles();
  for (const char* want : {"TOKEN1", "u:p", "dTpw", "u%3Ap", "K3Y"})
    BOOST_TEST((std::find(n.begin(), n.end(), want) != n.end()), want);
}

BOOST_AUTO_TEST_CASE(door_config) {
  sh::test::TempDir t("egress-config");
  std::string ok = R"({"container": "c1", "egress": {"rules": [{"host": "api.example.com",
      "credential": {"vault": "gh", "inject": "bearer"}}]},
    "ca": {"cert": "/x/ca.pem", "key": "/x/ca.key"}, "hosts": "/x/hosts",
    "allowAddresses": ["10.0.0.0/8", "fd00::1"], "credentials": {"dir": ")" + t.path.string() + R"("}})";
  auto c = parse_door_config(ok, "door.json");
  BOOST_REQUIRE_MESSAGE(c, (c ? "" : c.error().what()));
  BOOST_TEST(c->container == "c1");
  BOOST_TEST(c->upstream_trust == kDefaultTrust);
  BOOST_TEST(c->allow.size() == 2u);
  {
    FILE* f = std::fopen((t / "gh").c_str(), "w");
    std::fputs("value-1\n", f);
    std::fclose(f);
  }
  BOOST_TEST(*c->credentials->fetch("gh", "h") == "value-1");
  BOOST_TEST(!c->credentials->fetch("absent", "h").has_value());
  BOOST_TEST(!c->credentials->fetch("..", "h").has_value());
  auto bad = [&](const std::string& from, const std::string& to, const char* why) {
    std::string s = ok;
    s.replace(s.find(from), from.size(), to);
    auto r = parse_door_config(s, "door.json");
    BOOST_TEST(!r.has_value(), why);
    if (!r) BOOST_TEST(r.error().what().find("door.json") != std::string::npos);
  };
  bad(R"("container": "c1")", R"("container": "c1", "extra": 1)", "an unknown key");
  bad(R"("hosts": "/x/hosts")", R"("hosts": "x/hosts")", "a relative path");
  bad(R"("10.0.0.0/8")", R"("10.0.0.0/40")", "a bad prefix");
  bad(R"("inject": "bearer")", R"("inject": "cookie")", "the policy's own parser");
  bad(R"(, "credentials": {"dir": ")" + t.path.string() + R"("})", "", "a credential without a source");
}

// One bound on a credential's length whichever source holds it: the KMS seals at most
// kMaxSecretLen bytes, and a credentials directory's file is held to the same (it was 64 KiB).
BOOST_AUTO_TEST_CASE(value_length_bound) {
  std::string at_limit(sh::kms::kMaxSecretLen, 'a');
  BOOST_TEST(check_value("jwt", at_limit).has_value());
  auto over = check_value("jwt", at_limit + "a");
  BOOST_REQUIRE(!over.has_value());
  BOOST_TEST(over.error().what() == "credential jwt: 8193 bytes, more than the limit of 8192 bytes", over.error().what());
  // Through a credentials directory: the file at the limit (with echo's newline) is read, one
  // byte more is refused with the same message.
  sh::test::TempDir d;
  auto write = [&](const std::string& v) {
    std::FILE* f = std::fopen((d / "jwt").c_str(), "w");
    BOOST_REQUIRE(f);
    std::fputs(v.c_str(), f);
    std::fclose(f);
  };
  auto doc = sh::json::Document::parse(R"({"dir": ")" + d.path.string() + R"("})", "credentials");
  BOOST_REQUIRE(doc);
  auto src = make_source(doc->root(), "c1");
  BOOST_REQUIRE(src);
  write(at_limit + "\n");
  auto got = (*src)->fetch("jwt", "api.example.com");
  BOOST_REQUIRE_MESSAGE(got.has_value(), (got ? std::string() : got.error().what()));
  BOOST_TEST(got->size() == sh::kms::kMaxSecretLen);
  write(at_limit + "a\n");
  auto refused = (*src)->fetch("jwt", "api.example.com");
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().what().find("more than the limit of 8192 bytes") != std::string::npos, refused.error().what());
}
