#define BOOST_TEST_MODULE kms_worker
#include <boost/test/unit_test.hpp>

#include <cerrno>

#include "kms/protocol.hpp"
#include "kms/worker.hpp"

using namespace sh;
using namespace sh::kms;

namespace {

Config config() {
  Config c;
  c.name = "unit";
  c.allow = Allowlist{{"db"}, {"db.internal"}, {"read"}, 60};
  c.caller_role = "app";
  c.workload_may_ask = true;
  return c;
}

Keyring keyring() {
  Keyring k;
  k.ids = {"db"};
  auto mem = SecretMem::create(2 * kKeyLen, true);
  BOOST_REQUIRE(mem);
  k.mem = std::move(*mem);
  for (auto& b : k.master(0)) b = 7;
  return k;
}

std::string request(std::string vault, uint64_t ttl) {
  auto pair = x25519_generate();
  BOOST_REQUIRE(pair);
  return format_request(Request{Kind::derive, std::move(vault), "db.internal", "read", ttl, pair->pub});
}

Response parsed(const std::string& text) {
  auto r = parse_response(text);
  BOOST_REQUIRE_MESSAGE(r, text);
  return *r;
}

int failing_clock(clockid_t, struct timespec*) {
  errno = EINVAL;
  return -1;
}
int zero_clock(clockid_t, struct timespec* ts) {
  ts->tv_sec = 0;
  ts->tv_nsec = 0;
  return 0;
}
int negative_clock(clockid_t, struct timespec* ts) {
  ts->tv_sec = -5;
  ts->tv_nsec = 0;
  return 0;
}

}  // namespace

// The clock as the worker reads it: any error, or a reading at or before the epoch, is no time.
BOOST_AUTO_TEST_CASE(clock_errors_are_no_time) {
  BOOST_TEST(!wall_clock_seconds(failing_clock));
  BOOST_TEST(!wall_clock_seconds(zero_clock));
  BOOST_TEST(!wall_clock_seconds(negative_clock));
  auto now = wall_clock_seconds();
  BOOST_REQUIRE(now);
  BOOST_TEST(*now > 1600000000);
}

// Without the time nothing is served, not even what the allowlists allow, and above all not
// what they refuse (the hole was: a clock reading 0 skipped them).
BOOST_AUTO_TEST_CASE(no_clock_fails_closed) {
  auto c = config();
  auto k = keyring();
  std::string log;
  // Controls: with the time, the allowed request is served and the other refused by the allowlist.
  BOOST_TEST(parsed(answer(c, k, "app", request("db", 30), 1700000000, &log)).ok);
  auto other = parsed(answer(c, k, "app", request("payroll", 30), 1700000000, &log));
  BOOST_TEST(!other.ok);
  BOOST_TEST(other.reason.find("payroll") != std::string::npos);
  auto long_ttl = parsed(answer(c, k, "app", request("db", 3600), 1700000000, &log));
  BOOST_TEST(!long_ttl.ok);
  for (auto now : {std::optional<int64_t>{}, std::optional<int64_t>{0}, std::optional<int64_t>{-1},
                   wall_clock_seconds(failing_clock), wall_clock_seconds(zero_clock)}) {
    for (auto& req : {request("db", 30), request("payroll", 30), request("db", 3600)}) {
      auto r = parsed(answer(c, k, "app", req, now, &log));
      BOOST_TEST(!r.ok);
      BOOST_TEST(r.reason == "the KMS clock could not be read");
      BOOST_TEST(log == "refused: the clock could not be read");
    }
  }
}

namespace {

// A keyring with master key "db" and credential "github" (as open_keyring lays them out).
Keyring keyring_with_credential(const std::string& token) {
  Keyring k;
  k.ids = {"db"};
  auto mem = SecretMem::create(2 * kKeyLen + kMaxSecretLen, true);
  BOOST_REQUIRE(mem);
  k.mem = std::move(*mem);
  for (auto& b : k.master(0)) b = 7;
  k.cred_ids = {"github"};
  k.cred_lens = {token.size()};
  std::copy(token.begin(), token.end(), k.credential(0, token.size()).begin());
  return k;
}

struct Asked {
  Response resp;
  std::string value;  // opened with the one-time key, when ok
};

Asked ask(const Config& c, Keyring& k, std::string_view caller, Kind kind, const std::string& vault,
          const std::string& host) {
  auto pair = x25519_generate();
  BOOST_REQUIRE(pair);
  Request r{kind, vault, host, kind == Kind::derive ? "read" : "", kind == Kind::derive ? 30u : 0u, pair->pub};
  std::string log;
  Asked a{parsed(answer(c, k, caller, format_request(r), 1700000000, &log)), ""};
  if (a.resp.ok) {
    a.value.resize(a.resp.sealed.ct.size());
    BOOST_REQUIRE(open(a.resp.sealed, pair->priv.k, response_aad(r, a.resp.expires),
                       {reinterpret_cast<uint8_t*>(a.value.data()), a.value.size()}));
  }
  return a;
}

}  // namespace

// Who asks what: the door (role egress) gets the credential for a pair its rules tie, and
// nothing else; the workload gets derived keys only with workloadMayAsk, never a credential.
BOOST_AUTO_TEST_CASE(credentials_to_the_door_only_derive_only_when_the_workload_may_ask) {
  const std::string token = "ghp_tok3n";
  auto c = config();
  c.credentials = {{"github", "api.github.com"}};
  auto k = keyring_with_credential(token);

  auto door = ask(c, k, kDoorRole, Kind::credential, "github", "api.github.com");
  BOOST_TEST(door.resp.ok, door.resp.reason);
  BOOST_TEST(door.value == token);
  // The same request from the workload's role: refused (control: the door's above).
  auto app = ask(c, k, "app", Kind::credential, "github", "api.github.com");
  BOOST_TEST(!app.resp.ok);
  BOOST_TEST(app.resp.reason.find("egress door only") != std::string::npos, app.resp.reason);
  // Another host than the rule ties, another credential, a role no one has: refused.
  BOOST_TEST(!ask(c, k, kDoorRole, Kind::credential, "github", "evil.example").resp.ok);
  BOOST_TEST(!ask(c, k, kDoorRole, Kind::credential, "db", "api.github.com").resp.ok);
  BOOST_TEST(!ask(c, k, "db", Kind::credential, "github", "api.github.com").resp.ok);
  BOOST_TEST(!ask(c, k, "", Kind::credential, "github", "api.github.com").resp.ok);
  // The door derives nothing.
  BOOST_TEST(!ask(c, k, kDoorRole, Kind::derive, "db", "db.internal").resp.ok);

  // The workload's derive: served with workloadMayAsk (control), refused without.
  auto derived = ask(c, k, "app", Kind::derive, "db", "db.internal");
  BOOST_TEST(derived.resp.ok, derived.resp.reason);
  BOOST_TEST(derived.value.size() == kKeyLen);
  c.workload_may_ask = false;
  auto refused = ask(c, k, "app", Kind::derive, "db", "db.internal");
  BOOST_TEST(!refused.resp.ok);
  BOOST_TEST(refused.resp.reason.find("workloadMayAsk is false") != std::string::npos, refused.resp.reason);
  BOOST_TEST(ask(c, k, kDoorRole, Kind::credential, "github", "api.github.com").resp.ok);  // the door still is
}

// A credential's seal opens for a credential request only: the AAD says the kind.
BOOST_AUTO_TEST_CASE(credential_aad_differs_from_derive) {
  Request d{Kind::derive, "github", "api.github.com", "read", 30, {}};
  Request cr{Kind::credential, "github", "api.github.com", "", 0, {}};
  BOOST_TEST(response_aad(d, 5) != response_aad(cr, 5));
  auto back = parse_request(format_request(cr));
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST((back->kind == Kind::credential));
  BOOST_TEST(back->host == "api.github.com");
  cr.host = "*.github.com";  // a rule's wildcard host
  BOOST_TEST(parse_request(format_request(cr)).has_value());
  // A credential request carries no op or ttl.
  std::string with_op = format_request(cr);
  with_op.insert(with_op.find("pub="), "op=read\n");
  BOOST_TEST(!parse_request(with_op));
}

// The config: credentials the door may ask, workloadMayAsk off unless written, "egress" never
// the workload's role, a KMS for the door alone (no callerRole, no allow).
BOOST_AUTO_TEST_CASE(config_credentials_and_workload_may_ask) {
  const std::string head = R"({"name":"c1","vault":"/v","kek":"/k","socket":"/s/kms.sock",
    "tls":{"ca":"/ca","cert":"/c","key":"/k2"},"callerId":"c1")";
  const std::string allow = R"("allow":{"vaults":["db"],"hosts":["h"],"operations":["read"],"maxTtl":60})";
  auto plain = parse_config(head + R"(,"callerRole":"app",)" + allow + "}", "kms.json");
  BOOST_REQUIRE(plain);
  BOOST_TEST(!plain->workload_may_ask);
  BOOST_TEST(plain->caller_roles() == (std::vector<std::string>{"app"}), boost::test_tools::per_element());
  auto both = parse_config(head + R"(,"callerRole":"app",)" + allow +
                               R"(,"workloadMayAsk":true,"credentials":[{"vault":"github","host":"*.github.com"}]})",
                           "kms.json");
  BOOST_REQUIRE_MESSAGE(both, (both ? "" : both.error().what()));
  BOOST_TEST(both->workload_may_ask);
  BOOST_TEST((both->credentials == std::vector<CredentialGrant>{{"github", "*.github.com"}}));
  BOOST_TEST(both->caller_roles() == (std::vector<std::string>{"app", "egress"}), boost::test_tools::per_element());
  auto door_only = parse_config(head + R"(,"credentials":[{"vault":"github","host":"api.github.com"}]})", "kms.json");
  BOOST_REQUIRE_MESSAGE(door_only, (door_only ? "" : door_only.error().what()));
  BOOST_TEST(door_only->caller_roles() == (std::vector<std::string>{"egress"}), boost::test_tools::per_element());
  BOOST_TEST(!parse_config(head + "}", "kms.json"));  // no caller at all
  BOOST_TEST(!parse_config(head + R"(,"callerRole":"egress",)" + allow + "}", "kms.json"));
  BOOST_TEST(!parse_config(head + R"(,"credentials":[{"vault":"a/b","host":"h"}]})", "kms.json"));
  BOOST_TEST(!parse_config(head + R"(,"credentials":[{"vault":"a","host":"h","op":"x"}]})", "kms.json"));
  BOOST_TEST(!parse_config(head + R"(,"callerRole":"app","workloadMayAsk":true})", "kms.json"));  // nothing to ask
}

// An 8 KiB credential (a long JWT) goes through: sealed by the worker, its response within
// kMaxResponse, parsed and opened by the door's side whole.
BOOST_AUTO_TEST_CASE(an_8_kib_credential_reaches_the_door_whole) {
  std::string token(8192, 'j');
  for (size_t i = 0; i < token.size(); ++i) token[i] = static_cast<char>('a' + i % 26);
  auto c = config();
  c.credentials = {{"github", "api.github.com"}};
  auto k = keyring_with_credential(token);
  auto pair = x25519_generate();
  BOOST_REQUIRE(pair);
  Request r{Kind::credential, "github", "api.github.com", "", 0, pair->pub};
  std::string text = answer(c, k, kDoorRole, format_request(r), 1700000000, nullptr);
  BOOST_TEST(text.size() <= kMaxResponse);
  auto resp = parsed(text);
  BOOST_REQUIRE_MESSAGE(resp.ok, resp.reason);
  std::string value(resp.sealed.ct.size(), '\0');
  BOOST_REQUIRE(open(resp.sealed, pair->priv.k, response_aad(r, resp.expires),
                     {reinterpret_cast<uint8_t*>(value.data()), value.size()}));
  BOOST_TEST(value == token);
}
