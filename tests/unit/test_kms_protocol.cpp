#define BOOST_TEST_MODULE kms_protocol
#include <boost/test/unit_test.hpp>

#include "kms/config.hpp"
#include "kms/protocol.hpp"

using namespace sh::kms;

namespace {
Request sample() {
  Request r{Kind::derive, "db", "db.internal:5432", "read", 300, {}};
  for (size_t i = 0; i < r.pub.size(); ++i) r.pub[i] = static_cast<uint8_t>(i);
  return r;
}
std::string err_of(std::string_view text) {
  auto r = parse_request(text);
  BOOST_REQUIRE(!r);
  return r.error().what();
}
const std::string kPub = "pub=" + std::string(64, 'a') + "\n";
}  // namespace

BOOST_AUTO_TEST_CASE(request_round_trip) {
  std::string t = format_request(sample());
  BOOST_TEST(t.starts_with("sharness-kms/1 derive\nvault=db\n"));
  auto r = parse_request(t);
  BOOST_REQUIRE(r);
  BOOST_TEST(r->vault == "db");
  BOOST_TEST(r->host == "db.internal:5432");
  BOOST_TEST(r->op == "read");
  BOOST_TEST(r->ttl == 300u);
  BOOST_TEST(to_hex(r->pub) == to_hex(sample().pub));
}

BOOST_AUTO_TEST_CASE(request_errors_name_the_field) {
  const std::string head = "sharness-kms/1 derive\n";
  BOOST_TEST(err_of(head + "vault=a/b\nhost=h\nop=o\nttl=1\n" + kPub + "\n").find("field \"vault\": character '/'") !=
             std::string::npos);
  BOOST_TEST(err_of(head + "vault=a\nvault=b\nhost=h\nop=o\nttl=1\n" + kPub + "\n").find("given twice") !=
             std::string::npos);
  BOOST_TEST(err_of(head + "vault=a\nhost=h\nop=o\nttl=1\nextra=1\n" + kPub + "\n").find("unknown field \"extra\"") !=
             std::string::npos);
  BOOST_TEST(err_of(head + "vault=a\nop=o\nttl=1\n" + kPub + "\n").find("\"host\" missing") != std::string::npos);
  BOOST_TEST(err_of(head + "vault=a\nhost=h\nop=o\nttl=0\n" + kPub + "\n").find("ttl") != std::string::npos);
  BOOST_TEST(err_of(head + "vault=a\nhost=h\nop=o\nttl=-1\n" + kPub + "\n").find("ttl") != std::string::npos);
  BOOST_TEST(err_of(head + "vault=a\nhost=h\nop=o\nttl=1\npub=zz\n\n").find("pub") != std::string::npos);
  BOOST_TEST(err_of(head + "vault=a\nhost=h\nop=o\nttl=1\n" + kPub).find("empty line") != std::string::npos);
  BOOST_TEST(err_of("sharness-kms/2 derive\nvault=a\n\n").find("line 1") != std::string::npos);
  BOOST_TEST(err_of("sharness-kms/1 destroy\nvault=a\nhost=h\nop=o\nttl=1\n" + kPub + "\n").find("destroy") !=
             std::string::npos);
  BOOST_TEST(err_of(head + "vault=" + std::string(2000, 'a') + "\n\n").find("more than") != std::string::npos);
  BOOST_TEST(err_of(head + "vault=\nhost=h\nop=o\nttl=1\n" + kPub + "\n").find("length") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(response_round_trip) {
  Response ok;
  ok.ok = true;
  ok.expires = 1700000000;
  ok.sealed.ct.assign(kKeyLen, 0);
  ok.sealed.ct[0] = 7;
  auto back = parse_response(format_response(ok));
  BOOST_REQUIRE(back);
  BOOST_TEST(back->ok);
  BOOST_TEST(back->expires == 1700000000u);
  BOOST_TEST(back->sealed.ct[0] == 7);
  Response no;
  no.reason = "vault \"x\" is not allowed";
  auto r = parse_response(format_response(no));
  BOOST_REQUIRE(r);
  BOOST_TEST(!r->ok);
  BOOST_TEST(r->reason == no.reason);
}

BOOST_AUTO_TEST_CASE(allowlist_refusals_name_what) {
  Allowlist a{{"db"}, {"db.internal:5432"}, {"read"}, 600};
  Request r = sample();
  BOOST_TEST(check(a, r).has_value());
  r.vault = "payroll";
  BOOST_TEST(check(a, r).error().what() == "vault \"payroll\" is not allowed");
  r = sample();
  r.host = "evil.example";
  BOOST_TEST(check(a, r).error().what() == "host \"evil.example\" is not allowed");
  r = sample();
  r.op = "write";
  BOOST_TEST(check(a, r).error().what() == "operation \"write\" is not allowed");
  r = sample();
  r.ttl = 601;
  BOOST_TEST(check(a, r).error().what().find("ttl 601s") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(aad_binds_the_request) {
  Request a = sample(), b = sample();
  b.host = "other";
  BOOST_TEST(response_aad(a, 10) != response_aad(b, 10));
  BOOST_TEST(response_aad(a, 10) != response_aad(a, 11));
  b = sample();
  b.pub[0] ^= 1;
  BOOST_TEST(response_aad(a, 10) != response_aad(b, 10));
}

BOOST_AUTO_TEST_CASE(config_parse_is_strict) {
  const std::string good = R"({"name":"c1","vault":"/v","kek":"/k","socket":"/s/kms.sock",
    "tls":{"ca":"/ca","cert":"/c","key":"/k2"},"callerRole":"app","callerId":"c1",
    "allow":{"vaults":["db"],"hosts":["h"],"operations":["read"],"maxTtl":60}})";
  auto c = parse_config(good, "kms.json");
  BOOST_REQUIRE(c);
  BOOST_TEST(c->allow.max_ttl == 60u);
  BOOST_TEST(!c->allow_weaker_memory);
  auto typo = parse_config(R"({"nmae":"c1"})", "kms.json");
  BOOST_REQUIRE(!typo);
  BOOST_TEST(typo.error().what().find("nmae") != std::string::npos);
  std::string bad = good;
  bad.replace(bad.find("\"db\""), 4, "\"d/b\"");
  auto r = parse_config(bad, "kms.json");
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("kms.json: allow.vaults[0]") != std::string::npos);
  std::string rel = good;
  rel.replace(rel.find("\"/v\""), 4, "\"v\"");
  BOOST_TEST(!parse_config(rel, "kms.json"));
}

// The bounds: a request stays at 1 KiB (any peer with a good leaf sends one); a response
// carries a credential of up to 8 KiB, and not one byte more.
BOOST_AUTO_TEST_CASE(message_bounds_fit_an_8_kib_credential) {
  BOOST_TEST(kMaxRequest == 1024u);
  BOOST_TEST(kMaxSecretLen == 8192u);
  Response ok;
  ok.ok = true;
  ok.expires = 1700000000;
  ok.sealed.ct.assign(8192, 0xab);
  std::string text = format_response(ok);
  BOOST_TEST(text.size() <= kMaxResponse);
  auto back = parse_response(text);
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST(back->sealed.ct.size() == 8192u);
  ok.sealed.ct.assign(8193, 0xab);
  auto over = parse_response(format_response(ok));
  BOOST_REQUIRE(!over);
  BOOST_TEST(over.error().what().find("1..8192 bytes") != std::string::npos, over.error().what());
  // A request longer than 1 KiB is refused, whatever the response limit.
  auto long_req = parse_request("sharness-kms/1 derive\nvault=" + std::string(1100, 'a') + "\n\n");
  BOOST_REQUIRE(!long_req);
  BOOST_TEST(long_req.error().what().find("more than 1024") != std::string::npos, long_req.error().what());
}

// Every KMS serves one container: a config without callerId (which would admit any
// container's leaf of the role, all signed by the host's one CA) is refused.
BOOST_AUTO_TEST_CASE(config_needs_caller_id) {
  const std::string head = R"({"name":"c1","vault":"/v","kek":"/k","socket":"/s/kms.sock",
    "tls":{"ca":"/ca","cert":"/c","key":"/k2"},"credentials":[{"vault":"github","host":"api.test"}])";
  auto none = parse_config(head + "}", "kms.json");
  BOOST_REQUIRE(!none);
  BOOST_TEST(none.error().what().find("callerId") != std::string::npos, none.error().what());
  BOOST_TEST(!parse_config(head + R"(,"callerId":""})", "kms.json"));
  auto with = parse_config(head + R"(,"callerId":"c1"})", "kms.json");
  BOOST_REQUIRE_MESSAGE(with, (with ? "" : with.error().what()));
  BOOST_TEST(with->caller_id == "c1");
}
