// `hello`: what the containers print is parsed into records, each attempt gets an outcome and
// the mechanism that the error points at (never one it does not), allowed attempts and
// missing results fail the run, and harsh.json is looked for where the docs say.
#define BOOST_TEST_MODULE hello
#include <boost/test/unit_test.hpp>

#include "cmd/sharness-runtime/hello.hpp"

using namespace sh;
using namespace sh::lifecycle::hello;

namespace sh::lifecycle::hello {
std::ostream& operator<<(std::ostream& o, Outcome v) { return o << outcome_name(v); }
}  // namespace sh::lifecycle::hello

namespace {

std::string repo() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/unit/"));
}

Facts harsh_facts() {
  auto p = policy::load_policy(repo() + "/policies/harsh.json");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  auto f = facts_of(*p);
  BOOST_REQUIRE_MESSAGE(f, (f ? "" : f.error().what()));
  return *f;
}

// What harsh's containers print on this kind of host (taken from a real run).
RunResult held_main() {
  RunResult r;
  r.exit_code = 0;
  r.out =
      "@@mem|1|dd: out of memory\n"
      "@@net-host|1|nc: socket: Operation not permitted\n"
      "@@net-out|1|nc: socket: Operation not permitted\n"
      "@@write-root|1|touch: /hostile: Read-only file system\n"
      "@@write-etc|1|touch: /etc/hostile: Read-only file system\n"
      "@@write-procsys|1|sh: can't create /proc/sys/kernel/hostname: Read-only file system\n"
      "@@exec-tmp|126|sh: /tmp/true: Permission denied\n"
      "@@chown|1|chown: /tmp/owned: Operation not permitted\n"
      "@@caps|1|setpriv: capget: Operation not permitted\n"
      "@@userns|1|unshare: unshare(0x10000000): Operation not permitted\n"
      "@@mount|1|mount: permission denied (are you root?)\n"
      "@@unshare|1|unshare: unshare(0x40020000): Operation not permitted\n"
      "@@setns|1|nsenter: setns(): can't reassociate to namespace 'mnt': Operation not permitted\n"
      "@@kill-host|1|sh: can't kill pid 4242: No such process\n"
      "@@read-secret|1|cat: can't open '/srv/secret': Permission denied\n"
      "@@net-port|1|nc: socket: Operation not permitted\n"
      "@@signal-domain|1|kill: can't kill pid 1: Operation not permitted\n";
  return r;
}

RunResult held_fork() {
  RunResult r;
  r.exit_code = 2;
  r.out = "@@fork-started|1|\n@@fork-started|2|\n@@fork-started|3|\n@@fork-events|0|\n";
  r.err = "sh: can't fork: Resource temporarily unavailable\n";
  return r;
}

// The watchdog's record: init started at 100 s of boot time, the limit 3 s after, fired `after`
// seconds after the start.
lifecycle::WatchdogFired fired(double after, uint64_t limit = 3) {
  constexpr uint64_t s = 1'000'000'000;
  return {100 * s, (100 + limit) * s, 100 * s + uint64_t(after * 1e9)};
}

RunResult held_clock() {
  RunResult r;
  r.exit_code = 137;
  r.seconds = 3.1;
  r.out = "@@clock-trapped|ok|\n";
  r.fired = fired(3.01);
  return r;
}

const Row& row_of(const std::vector<Row>& rows, std::string_view prefix) {
  for (auto& r : rows)
    if (r.attempt.starts_with(prefix)) return r;
  BOOST_FAIL("no row starting with " << prefix);
  return rows.front();
}

}  // namespace

BOOST_AUTO_TEST_CASE(records_parse_with_continuations_and_bars) {
  auto recs = parse_records("noise\n@@a|1|first line\nsecond line\n@@b|0|x|y\n@@c\n@@d|7\n");
  BOOST_REQUIRE_EQUAL(recs.size(), 4u);
  BOOST_CHECK_EQUAL(recs[0].key, "a");
  BOOST_CHECK_EQUAL(recs[0].value, "1");
  BOOST_CHECK_EQUAL(recs[0].detail, "first line; second line");
  BOOST_CHECK_EQUAL(recs[1].detail, "x|y");  // only the first two bars split
  BOOST_CHECK_EQUAL(recs[2].key, "c");
  BOOST_CHECK_EQUAL(recs[3].value, "7");
  auto again = parse_records("@@n|1|\n@@n|2|\n@@n|3|\n");
  BOOST_CHECK_EQUAL(find_record(again, "n")->value, "3");  // a counter: the last wins
  BOOST_CHECK(find_record(again, "m") == nullptr);
}

BOOST_AUTO_TEST_CASE(harsh_facts_and_sizes) {
  Facts f = harsh_facts();
  BOOST_CHECK_EQUAL(f.policy_id, "harsh");
  BOOST_CHECK_EQUAL(f.memory_limit, 128ull << 20);
  BOOST_CHECK_EQUAL(f.address_space, 128ull << 20);
  BOOST_CHECK_EQUAL(f.pids_limit, 4);
  BOOST_CHECK(f.nproc);
  BOOST_CHECK_EQUAL(f.wall_clock, 60u);
  BOOST_CHECK(f.seccomp_denies("ptrace"));
  BOOST_CHECK(f.seccomp_denies("socket"));
  BOOST_CHECK(!f.seccomp_denies("read"));
  BOOST_CHECK_EQUAL(f.network, "none");
  BOOST_CHECK(f.readonly_root && f.no_capabilities && f.tmp_noexec);
  BOOST_CHECK_EQUAL(hog_bytes(f), 400ull << 20);
  BOOST_CHECK_EQUAL(fork_attempts(f), 4);  // init + 4 children would be 5 processes
  BOOST_CHECK_NE(main_script(f).find("bs=419430400"), std::string::npos);
  Facts big;
  big.memory_limit = 1ull << 30;
  BOOST_CHECK_GT(hog_bytes(big), big.memory_limit);  // always past the cap
}

// With the probe (CMake target landlock-probe) the memfd attempt is made; the mechanism is
// read from what the probe printed.
BOOST_AUTO_TEST_CASE(memfd_attempt_with_the_probe) {
  Facts f = harsh_facts();
  RunResult m = held_main();
  m.out += "@@memfd|1|memfd_create-exec errno 1 EPERM\nmemfd_create errno 1 EPERM\n";
  auto rows = rows_from(f, m, held_fork(), held_clock(), 3, 0);
  const Row& r = row_of(rows, "run a binary from a memfd");
  BOOST_CHECK_EQUAL(r.outcome, Outcome::denied);
  BOOST_CHECK_EQUAL(r.stopped_by,
                    "seccomp: memfd_create() not allowed; behind it: vm.memfd_noexec=2 in the container's pid namespace");
  // A policy whose seccomp allows memfd_create: the sysctl is what answers.
  f.allowed.insert("memfd_create");
  m = held_main();
  m.out += "@@memfd|1|memfd_create-exec errno 13 EACCES\nmemfd_create ok\nmemfd-exec errno 13 EACCES\n";
  rows = rows_from(f, m, held_fork(), held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "run a binary from a memfd").stopped_by,
                    "vm.memfd_noexec=2 in the container's pid namespace (EACCES)");
  // It ran: allowed, and the run fails.
  m = held_main();
  m.out += "@@memfd|0|memfd-exec ok (the copy ran)\n";
  rows = rows_from(f, m, held_fork(), held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "run a binary from a memfd").outcome, Outcome::allowed);
  BOOST_CHECK_EQUAL(exit_code(rows), 1);
}

BOOST_AUTO_TEST_CASE(everything_held_under_harsh) {
  Facts f = harsh_facts();
  auto rows = rows_from(f, held_main(), held_fork(), held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(exit_code(rows), 0);
  int attempted = 0;
  for (auto& r : rows) {
    if (!r.attempted()) {
      BOOST_CHECK_EQUAL(r.kind, "-");
      continue;
    }
    ++attempted;
    BOOST_CHECK_MESSAGE(r.held(), r.attempt << ": " << outcome_name(r.outcome) << " " << r.detail);
    BOOST_CHECK_MESSAGE(r.kind.starts_with("Boundary"), r.attempt << ": " << r.kind);
    BOOST_CHECK_MESSAGE(!r.stopped_by.empty() && r.stopped_by.find("not identified") == std::string::npos,
                        r.attempt << ": " << r.stopped_by);
  }
  BOOST_CHECK_EQUAL(attempted, 19);
  BOOST_CHECK_EQUAL(row_of(rows, "read a file outside the rules").stopped_by, "Landlock: no files rule covers /srv (EACCES)");
  BOOST_CHECK(row_of(rows, "run a dropped binary").stopped_by.starts_with("exec allowlist: Landlock execute only"));
  BOOST_CHECK_EQUAL(row_of(rows, "connect to a port not listed").stopped_by,
                    "seccomp: socket() not allowed; behind it: empty netns (only lo); behind it: Landlock: connect only to []");
  BOOST_CHECK_EQUAL(row_of(rows, "signal init from exec").stopped_by,
                    "Landlock scope signal: init is outside the exec'd process's domain");
  BOOST_CHECK_EQUAL(row_of(rows, "run a binary from a memfd").outcome, Outcome::not_attempted);
  BOOST_CHECK_EQUAL(row_of(rows, "run a binary from a memfd").stopped_by,
                    "would meet: seccomp, memfd_create() not allowed; vm.memfd_noexec=2 in the container's pid namespace (EACCES)");
  BOOST_CHECK(row_of(rows, "allocate").stopped_by.starts_with("RLIMIT_AS 128 MiB"));
  BOOST_CHECK(row_of(rows, "fork").stopped_by.starts_with("RLIMIT_NPROC 4"));
  BOOST_CHECK_EQUAL(row_of(rows, "fork").detail, "process 5 refused (4 ran): can't fork: Resource temporarily unavailable");
  BOOST_CHECK(row_of(rows, "connect to the outside").stopped_by.starts_with("seccomp: socket()"));
  BOOST_CHECK_EQUAL(row_of(rows, "outlive").kind, "Boundary (watchdog)");
  BOOST_CHECK_EQUAL(row_of(rows, "call ptrace").outcome, Outcome::not_attempted);
  BOOST_CHECK_EQUAL(row_of(rows, "call ptrace").stopped_by, "would meet: seccomp, ptrace() not allowed");
  std::string table = format_table(rows);
  BOOST_CHECK_NE(table.find("seen: dd: out of memory"), std::string::npos);
  BOOST_CHECK_NE(format_summary(rows).find("19 of 19 attempts held; 6 not attempted"), std::string::npos);
}

// Debian 12's kernel (6.1: Landlock ABI 2, no vm.memfd_noexec): every attempt hello makes is
// held, a row names Landlock only where it enforces, and a stand-in says by what it holds.
BOOST_AUTO_TEST_CASE(held_and_truthful_on_landlock_abi_2) {
  auto p = policy::load_policy(repo() + "/policies/harsh.json");
  BOOST_REQUIRE(p);
  policy::HostProbe bookworm;
  bookworm.landlock_abi = 2;
  bookworm.memfd_noexec = false;
  auto f = facts_of(*p, bookworm);
  BOOST_REQUIRE(f);
  RunResult m = held_main();
  // No signal-domain record: hello does not make that attempt on this kernel.
  m.out = m.out.substr(0, m.out.find("@@signal-domain"));
  auto rows = rows_from(*f, m, held_fork(), held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(exit_code(rows), 0);
  for (auto& r : rows)
    if (r.attempted()) {
      BOOST_CHECK_MESSAGE(r.held(), r.attempt << ": " << outcome_name(r.outcome) << " " << r.detail);
      BOOST_CHECK_MESSAGE(r.stopped_by.find("Landlock: connect") == std::string::npos, r.attempt << ": " << r.stopped_by);
      BOOST_CHECK_MESSAGE(r.stopped_by.find("memfd_noexec") == std::string::npos, r.attempt << ": " << r.stopped_by);
    }
  BOOST_CHECK_EQUAL(row_of(rows, "connect to a port not listed").stopped_by,
                    "seccomp: socket() not allowed; behind it: empty netns (only lo); Landlock TCP rules (ABI 4) stood in "
                    "for by the empty network namespace on this kernel (Landlock ABI 2)");
  const Row& sig = row_of(rows, "signal init from exec");
  BOOST_CHECK_EQUAL(sig.outcome, Outcome::not_attempted);
  BOOST_CHECK_NE(sig.detail.find("Landlock ABI 2: no signal scope (ABI 6, Linux 6.12)"), std::string::npos);
  BOOST_CHECK_EQUAL(sig.stopped_by, "signals leaving the container: held by the pid namespace (\"signal a host process\")");
  BOOST_CHECK_EQUAL(row_of(rows, "signal a host process").stopped_by,
                    "pid namespace: the host pid does not exist in here (standing in for Landlock's signal scope, ABI 6, "
                    "on this kernel's ABI 2)");
  BOOST_CHECK_EQUAL(row_of(rows, "run a binary from a memfd").stopped_by,
                    "would meet: seccomp, memfd_create() not allowed");
  BOOST_CHECK_NE(format_summary(rows).find("18 of 18 attempts held; 7 not attempted"), std::string::npos);
  // The table cuts the column, and says each stand-in in full below its row.
  BOOST_CHECK_NE(format_table(rows).find("    stopped by: pid namespace: the host pid does not exist in here (standing in "
                                         "for Landlock's signal scope, ABI 6, on this kernel's ABI 2)\n"),
                 std::string::npos);
  // The same kernel facts with everything there: as on this host.
  policy::HostProbe now;
  now.landlock_abi = 7;
  now.memfd_noexec = true;
  auto f7 = facts_of(*p, now);
  BOOST_REQUIRE(f7);
  auto rows7 = rows_from(*f7, held_main(), held_fork(), held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows7, "signal init from exec").stopped_by,
                    "Landlock scope signal: init is outside the exec'd process's domain");
}

BOOST_AUTO_TEST_CASE(the_layer_named_follows_the_error) {
  Facts f = harsh_facts();
  RunResult m = held_main();
  m.out = "@@net-out|1|nc: can't connect to remote host (1.1.1.1): Network is unreachable\n"
          "@@mem|137|Killed\n";
  RunResult fk = held_fork();
  fk.out = "@@fork-started|3|\n@@fork-events|1|\n";  // the pids cgroup counted the refusal
  auto rows = rows_from(f, m, fk, held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "connect to the outside").stopped_by, "network namespace: only lo, down (ENETUNREACH)");
  BOOST_CHECK_EQUAL(row_of(rows, "allocate").outcome, Outcome::killed);
  BOOST_CHECK(row_of(rows, "allocate").stopped_by.starts_with("memory cgroup limit 128 MiB: OOM kill"));
  BOOST_CHECK(row_of(rows, "fork").stopped_by.starts_with("pids cgroup limit 4"));
  // records missing from the main container: no result, and that fails the run
  BOOST_CHECK_EQUAL(row_of(rows, "write to /").outcome, Outcome::no_result);
  BOOST_CHECK_EQUAL(exit_code(rows), 1);
}

BOOST_AUTO_TEST_CASE(allowed_attempts_fail_the_run) {
  Facts f = harsh_facts();
  RunResult m = held_main();
  m.out += "@@kill-host|0|\n";  // the last record wins: the signal went through
  auto rows = rows_from(f, m, held_fork(), held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "signal a host").outcome, Outcome::allowed);
  BOOST_CHECK_EQUAL(row_of(rows, "signal a host").kind, "-");
  BOOST_CHECK_EQUAL(exit_code(rows), 1);

  // the host's listener saw a connection: allowed, whatever the container printed
  rows = rows_from(f, held_main(), held_fork(), held_clock(), 3, 1);
  BOOST_CHECK_EQUAL(row_of(rows, "reach the host").outcome, Outcome::allowed);
  BOOST_CHECK_EQUAL(exit_code(rows), 1);

  // every child started
  RunResult fk;
  fk.exit_code = 0;
  fk.out = "@@fork-started|4|\n@@fork-all|4|\n";
  rows = rows_from(f, held_main(), fk, held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "fork").outcome, Outcome::allowed);

  // the clock: survived
  RunResult c = held_clock();
  c.exit_code = 0;
  c.fired.reset();
  c.out += "@@clock-survived|ok|\n";
  rows = rows_from(f, held_main(), held_fork(), c, 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "outlive").outcome, Outcome::allowed);
  BOOST_CHECK_EQUAL(exit_code(rows), 1);
}

// The clock is judged by the watchdog's own record, not by how long `run` took: on a slow machine
// (seen: 8.1 to 9.1 s from `run` to its exit in a TCG guest at load 20) the start of four
// containers before the limit and the teardown after the kill are not the watchdog's.
BOOST_AUTO_TEST_CASE(a_slow_machine_is_not_a_late_kill) {
  Facts f = harsh_facts();
  RunResult c = held_clock();
  c.seconds = 9.1;
  auto rows = rows_from(f, held_main(), held_fork(), c, 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "outlive").outcome, Outcome::killed);
  BOOST_TEST(row_of(rows, "outlive").detail.find("SIGKILL from the watchdog 3.01 s after the container started "
                                                  "(`run` returned after 9.1 s)") != std::string::npos,
             row_of(rows, "outlive").detail);
  BOOST_CHECK_EQUAL(exit_code(rows), 0);
  // A timer that woke a little late on a loaded host is still the limit's kill.
  c.fired = fired(3 + kWatchdogLateness);
  BOOST_CHECK_EQUAL(row_of(rows_from(f, held_main(), held_fork(), c, 3, 0), "outlive").outcome, Outcome::killed);
  // A floor with a shorter clock than hello's: killed earlier, held all the more.
  c.fired = fired(2.0, 2);
  BOOST_CHECK_EQUAL(row_of(rows_from(f, held_main(), held_fork(), c, 3, 0), "outlive").outcome, Outcome::killed);
}

BOOST_AUTO_TEST_CASE(a_late_kill_or_another_killer_is_not_held) {
  Facts f = harsh_facts();
  // The watchdog fired 7.5 s after the start, though `run` itself was quick: late.
  RunResult c = held_clock();
  c.fired = fired(7.5);
  c.seconds = 3.2;
  auto rows = rows_from(f, held_main(), held_fork(), c, 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "outlive").outcome, Outcome::allowed);
  BOOST_TEST(row_of(rows, "outlive").detail.find("the watchdog fired late: 7.50 s after the container started") !=
                 std::string::npos,
             row_of(rows, "outlive").detail);
  BOOST_CHECK_EQUAL(exit_code(rows), 1);
  // Armed with a looser limit than this run asked for (10 s for 3), fired "on time" for itself.
  c.fired = fired(10.0, 10);
  BOOST_CHECK_EQUAL(row_of(rows_from(f, held_main(), held_fork(), c, 3, 0), "outlive").outcome, Outcome::allowed);
  // SIGKILL with no record: something else killed it (the OOM killer, a user), not the clock.
  c = held_clock();
  c.fired.reset();
  c.fired_error = "";
  rows = rows_from(f, held_main(), held_fork(), c, 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "outlive").outcome, Outcome::no_result);
  BOOST_CHECK_EQUAL(exit_code(rows), 1);
  // Ended by itself with another status.
  c = held_clock();
  c.exit_code = 1;
  BOOST_CHECK_EQUAL(row_of(rows_from(f, held_main(), held_fork(), c, 3, 0), "outlive").outcome, Outcome::allowed);
}

BOOST_AUTO_TEST_CASE(a_missing_tool_is_no_result_not_held) {
  Facts f = harsh_facts();
  RunResult m = held_main();
  m.out += "@@setns|127|sh: nsenter: not found\n";
  auto rows = rows_from(f, m, held_fork(), held_clock(), 3, 0);
  BOOST_CHECK_EQUAL(row_of(rows, "enter a namespace").outcome, Outcome::no_result);
  BOOST_CHECK_EQUAL(exit_code(rows), 1);
}

BOOST_AUTO_TEST_CASE(harsh_is_looked_for_in_order) {
  auto c = policy_candidates({"/etc/sharness/policies", "/opt/p/"}, "/usr/local/bin/sharness-runtime");
  std::vector<std::string> want = {"/etc/sharness/policies/harsh.json", "/opt/p/harsh.json",
                                   "/usr/local/share/sharness/policies/harsh.json", "/usr/local/policies/harsh.json",
                                   "/usr/policies/harsh.json"};
  BOOST_CHECK_EQUAL_COLLECTIONS(c.begin(), c.end(), want.begin(), want.end());
  c = policy_candidates({}, "/work/main/build/sharness-runtime");
  BOOST_CHECK_EQUAL(c[1], "/work/main/policies/harsh.json");  // a build dir inside the tree
}

// hello's KMS lines: what the workload may ask for, the master keys elsewhere, and the memory
// mode this host gives (memfd_secret, the weaker mode the policy allows, or a refusal).
BOOST_AUTO_TEST_CASE(kms_section_says_what_can_be_asked_and_where_the_keys_are) {
  auto p = policy::parse_policy(R"({"id": "k", "version": 1, "role": "app",
    "secrets": {"vaults": ["db", "web"], "hosts": ["db.internal"], "operations": ["read"], "ttl": 600}})");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  policy::HostProbe with, without;
  with.memfd_secret = true;
  std::string s = kms_section(*p, with);
  for (const char* want : {"vaults [db, web]", "hosts [db.internal]", "operations [read]", "at most 600 s",
                           "role app", "never in the container", "own throwaway uid", "frozen between calls",
                           "secret pages: memfd_secret"})
    BOOST_TEST(s.find(want) != std::string::npos, want << " in: " << s);
  std::string refused = kms_section(*p, without);
  BOOST_TEST(refused.find("secret pages: MISSING") != std::string::npos, refused);
  BOOST_TEST(refused.find("allowWeakerMemory") != std::string::npos, refused);
  auto weak = policy::parse_policy(R"({"id": "k", "version": 1, "role": "app",
    "secrets": {"vaults": ["db"], "hosts": ["h"], "operations": ["read"], "ttl": 6, "allowWeakerMemory": true}})");
  BOOST_REQUIRE(weak);
  std::string w = kms_section(*weak, without);
  BOOST_TEST(w.find("secret pages: WEAKER MODE") != std::string::npos, w);
  // Who asks: the door only, unless the policy says workloadMayAsk.
  BOOST_TEST(s.find("the workload may ask for nothing itself (secrets.workloadMayAsk is false)") != std::string::npos, s);
  auto asks = policy::parse_policy(R"({"id": "k", "version": 1, "role": "app",
    "secrets": {"vaults": ["db"], "hosts": ["h"], "operations": ["read"], "ttl": 6, "workloadMayAsk": true}})");
  BOOST_REQUIRE(asks);
  std::string a = kms_section(*asks, with);
  BOOST_TEST(a.find("the workload may ask for: keys derived") != std::string::npos, a);
  BOOST_TEST(a.find("(secrets.workloadMayAsk)") != std::string::npos, a);
  auto none = policy::parse_policy(R"({"id": "n", "version": 1})");
  BOOST_REQUIRE(none);
  BOOST_TEST(kms_section(*none, with).rfind("KMS: none (policy n has no \"secrets\"", 0) == 0u, kms_section(*none, with));
}

BOOST_AUTO_TEST_CASE(a_container_that_never_started_is_no_verdict) {
  const std::string stale =
      "sharness-runtime: create: exec allowlist: /bin/busybox: SHA-256 is " + std::string(64, '7') +
      ", the policy pins " + std::string(64, '3') + "; if this build is the one to trust, refresh the pin: ...\n";
  RunResult refused{"", stale, 1, 0.1};
  BOOST_TEST(never_started(refused));
  RunResult ran{"@@mem|1|dd: out of memory\n", "", 1, 0.1};
  BOOST_TEST(!never_started(ran));
  RunResult killed_early{"", "", 137, 0.1};  // ran, killed before it printed: not "never started"
  BOOST_TEST(!never_started(killed_early));
  RunResult ok{"", "", 0, 0.1};
  BOOST_TEST(!never_started(ok));

  std::string r = format_not_started({{"main", stale}, {"fork", stale}}, 4, "/etc/sharness/policies/harsh.json");
  BOOST_TEST(r.find("2 of 4 containers could not start") != std::string::npos);
  BOOST_TEST(r.find("neither held nor not held") != std::string::npos);
  BOOST_TEST(r.find("\"main\", \"fork\": sharness-runtime: create: exec allowlist: /bin/busybox: SHA-256 is") !=
             std::string::npos);
  // A logfmt line loses its time; the same message for two containers is said once.
  std::string lf = format_not_started({{"clock", "time=\"t1\" level=error msg=\"exec allowlist: x: SHA-256 is 1, the policy pins 2\""},
                                       {"main", "time=\"t2\" level=error msg=\"exec allowlist: x: SHA-256 is 1, the policy pins 2\""}},
                                      4, "h.json");
  BOOST_TEST(lf.find("  \"clock\", \"main\": exec allowlist: x: SHA-256 is 1, the policy pins 2\n") != std::string::npos);
  // A warning logged before the error is not the error.
  std::string w = format_not_started({{"main", "time=\"t0\" level=warning msg=\"landlock: ABI 4\"\n"
                                                "time=\"t1\" level=error msg=\"exec allowlist: x: SHA-256 is 1, the policy pins 2\"\n"}},
                                     3, "h.json");
  BOOST_TEST(w.find("  \"main\": exec allowlist: x: SHA-256 is 1, the policy pins 2\n") != std::string::npos);
  BOOST_TEST(w.find("policy pin --rootfs / h.json") != std::string::npos);
  std::string q = format_not_started({{"main", "time=\"t1\" level=error msg=\"exec \\\"/bin/x\\\": EACCES\"\n"}}, 3, "h.json");
  BOOST_TEST(q.find("  \"main\": exec \"/bin/x\": EACCES\n") != std::string::npos);
  BOOST_TEST(r.find("sharness-runtime policy pin --rootfs / /etc/sharness/policies/harsh.json --out") !=
             std::string::npos);
  BOOST_TEST(r.find("NOT held") == std::string::npos);
  // Another refusal: no pin advice, the error is the thing to fix.
  std::string o = format_not_started({{"main", "sharness-runtime: policy harsh: landlock ABI 6 needed"}}, 3, "h.json");
  BOOST_TEST(o.find("policy pin") == std::string::npos);
  BOOST_TEST(o.find("fix what the runtime's error above names") != std::string::npos);
}

// hello --workload python3's records section: each held attempt is matched to the denial record
// that names its bound; a bound the kernel does not audit says so; a due record that is absent is
// MISSING (and counted), unless the record's notice says that bound is not recorded here.
BOOST_AUTO_TEST_CASE(python_attempts_are_matched_to_their_denial_records) {
  Facts f = harsh_facts();
  f.landlock_abi = 7;
  f.tmp_noexec = true;
  RunResult run{"@@read-outside|EACCES|x\n@@write-etc|EROFS|x\n@@exec-tmp|EACCES|x\n@@socket|EPERM|x\n"
                "@@ptrace|EPERM|x\n@@alloc|MemoryError|x\n@@kill-host|0|killed it\n",
                "", 0, 1.0};
  std::vector<Audited> expected;
  auto rows = python_rows(f, run, &expected);
  BOOST_REQUIRE_EQUAL(rows.size(), expected.size());
  std::string jsonl =
      R"({"time":"t","kind":"denial","pid":1,"exe":"/usr/bin/python3.11","bound":"landlock","access":"fs.read_file","path":"/var/lib/dpkg/status","domain":"1","field":"files","allow":"a"})" "\n"
      R"({"time":"t","kind":"denial","pid":1,"exe":"/usr/bin/python3.11","bound":"seccomp","syscall":"socket","action":"errno","field":"syscalls.allow","allow":"a"})" "\n"
      R"({"time":"t","kind":"denial","pid":1,"exe":"/usr/bin/python3.11","bound":"seccomp","syscall":"bpf","action":"errno","field":"syscalls.allow","allow":"a"})" "\n";
  size_t missing = 99;
  std::string out = format_records(rows, expected, jsonl, missing);
  BOOST_TEST_MESSAGE(out);
  auto line = [&](std::string_view attempt) {
    size_t at = out.find(attempt);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, attempt);
    return out.substr(at, out.find('\n', at) - at);
  };
  BOOST_TEST(line("read a file outside").find("landlock fs.read_file /var/lib/dpkg/status -> files") != std::string::npos);
  BOOST_TEST(line("open a socket").find("seccomp socket -> syscalls.allow") != std::string::npos);
  BOOST_TEST(line("write outside the workspace (/etc)").find("none: a read-only mount's EROFS") != std::string::npos);
  BOOST_TEST(line("os.execv").find("none: noexec on /tmp refused it before Landlock") != std::string::npos);
  BOOST_TEST(line("allocate").find("none: RLIMIT_AS") != std::string::npos);
  // ptrace's record is absent (bpf's is another syscall's): MISSING, and the only one.
  BOOST_TEST(line("call ptrace()").find("MISSING: no seccomp record of ptrace") != std::string::npos);
  BOOST_TEST(missing == 1u);
  // An attempt that was not held gets no line.
  BOOST_TEST(out.find("signal the host") == std::string::npos);

  // Audit off: the record's notice stands for Landlock's rows; seccomp's are still due.
  std::string off = R"({"time":"t","kind":"notice","detail":"audit is disabled on this host (audit_enabled 0): Landlock denials are not recorded"})" "\n";
  out = format_records(rows, expected, off + jsonl.substr(jsonl.find('\n') + 1), missing);
  BOOST_TEST(line("read a file outside").find("none: the record says audit is disabled") != std::string::npos);
  BOOST_TEST(missing == 1u);

  // Landlock ABI 6 writes no audit records: not due, and said so.
  f.landlock_abi = 6;
  rows = python_rows(f, run, &expected);
  out = format_records(rows, expected, "", missing);
  BOOST_TEST(line("read a file outside").find("none: Landlock ABI 6 writes no audit records") != std::string::npos);
  BOOST_TEST(missing == 2u);  // socket and ptrace
}
