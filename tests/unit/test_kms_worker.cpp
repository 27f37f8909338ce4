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
  return format_request(Request{std::move(vault), "db.internal", "read", ttl, pair->pub});
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
  BOOST_TEST(parsed(answer(c, k, request("db", 30), 1700000000, &log)).ok);
  auto other = parsed(answer(c, k, request("payroll", 30), 1700000000, &log));
  BOOST_TEST(!other.ok);
  BOOST_TEST(other.reason.find("payroll") != std::string::npos);
  auto long_ttl = parsed(answer(c, k, request("db", 3600), 1700000000, &log));
  BOOST_TEST(!long_ttl.ok);
  for (auto now : {std::optional<int64_t>{}, std::optional<int64_t>{0}, std::optional<int64_t>{-1},
                   wall_clock_seconds(failing_clock), wall_clock_seconds(zero_clock)}) {
    for (auto& req : {request("db", 30), request("payroll", 30), request("db", 3600)}) {
      auto r = parsed(answer(c, k, req, now, &log));
      BOOST_TEST(!r.ok);
      BOOST_TEST(r.reason == "the KMS clock could not be read");
      BOOST_TEST(log == "refused: the clock could not be read");
    }
  }
}
