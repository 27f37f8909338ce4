// Audit records into denials (runtime/linux/audit_events) and the policy field each points at
// (spec-mapping/denial_field), on records this machine's kernel (6.18, Landlock ABI 7) wrote.
#define BOOST_TEST_MODULE audit_events
#include <boost/test/unit_test.hpp>

#include "runtime/lifecycle/denial_reader.hpp"
#include "runtime/linux/audit_events.hpp"
#include "spec-mapping/denial_field.hpp"

using namespace sh;
using namespace sh::audit;

namespace {
const char* kSeccompText =
    "audit(1796652265.699:5): auid=4294967295 uid=0 gid=0 ses=4294967295 pid=18174 comm=\"exp\" exe=\"/tmp/dn/exp\" "
    "sig=0 arch=c000003e syscall=272 compat=0 ip=0x7fc6a65030f7 code=0x50000";
const char* kAccessText = "audit(1796652265.699:6): domain=1c27c6aac blockers=fs.read_file path=\"/etc/passwd\" dev=\"vda\" ino=409603";
const char* kDomainText =
    "audit(1796652265.699:6): domain=1c27c6aac status=allocated mode=enforcing pid=18174 uid=0 exe=\"/tmp/dn/exp\" "
    "comm=\"exp\"";
const char* kSyscallText =
    "audit(1796652265.699:6): arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c a1=55b73715d032 a2=0 a3=0 "
    "items=0 ppid=18173 pid=18175 auid=4294967295 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) "
    "ses=4294967295 comm=\"cat\" exe=\"/bin/busybox\" key=(null)";
const char* kEoeText = "audit(1796652265.699:6): ";

Record rec(int type, const char* text) {
  auto r = parse_record(type, text);
  BOOST_REQUIRE(r);
  return *r;
}
}  // namespace

BOOST_AUTO_TEST_CASE(parses_fields_quoted_hex_and_plain) {
  auto r = rec(kSeccomp, kSeccompText);
  BOOST_TEST(r.serial == 5u);
  BOOST_TEST(r.stamp == "1796652265.699");
  BOOST_TEST(r.fields["exe"] == "/tmp/dn/exp");
  BOOST_TEST(r.fields["syscall"] == "272");
  // An untrusted string with a space is hex-encoded by the kernel.
  auto h = parse_record(kLandlockAccess, "audit(1.002:9): domain=1 blockers=fs.read_file path=2F746D702F6120622F");
  BOOST_REQUIRE(h);
  BOOST_TEST(h->fields["path"] == "/tmp/a b/");
  BOOST_TEST(!parse_record(kSeccomp, "not an audit record"));
}

BOOST_AUTO_TEST_CASE(seccomp_record_is_a_denial_at_once) {
  Assembler a;
  std::vector<Denial> out;
  a.add(rec(kSeccomp, kSeccompText), out);
  BOOST_REQUIRE(out.size() == 1u);
  BOOST_TEST(out[0].bound == "seccomp");
  BOOST_TEST(out[0].syscall == "unshare");  // 272 on x86_64
  BOOST_TEST(out[0].action == "errno");
  BOOST_TEST(out[0].pid == 18174);
  BOOST_TEST(out[0].time == "2026-12-07T14:04:25.699Z");
  auto line = lifecycle::denial_json(out[0]);
  BOOST_TEST(line.find("\"field\":\"syscalls.allow\"") != std::string::npos);
  BOOST_TEST(line.find("add \\\"unshare\\\" to syscalls.allow") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(landlock_event_completes_at_its_eoe) {
  Assembler a;
  std::vector<Denial> out;
  a.add(rec(kLandlockAccess, kAccessText), out);
  a.add(rec(kLandlockDomain, kDomainText), out);
  a.add(rec(kSyscall, kSyscallText), out);
  BOOST_TEST(out.empty());  // not before its EOE
  a.add(rec(kEoe, kEoeText), out);
  BOOST_REQUIRE(out.size() == 1u);
  const auto& d = out[0];
  BOOST_TEST(d.bound == "landlock");
  BOOST_TEST(d.access == "fs.read_file");
  BOOST_TEST(d.path == "/etc/passwd");
  BOOST_TEST(d.pid == 18175);  // the SYSCALL record's: the process denied, not the domain's maker
  BOOST_TEST(d.exe == "/bin/busybox");
  BOOST_TEST(a.domain_creator("1c27c6aac") == 18174);
  // A lone SYSCALL event is not a denial, and flush() gives up on an event without its EOE.
  a.add(rec(kSyscall, "audit(1.0:7): pid=1 exe=\"/x\""), out);
  a.add(rec(kLandlockAccess, "audit(1.0:8): domain=2 blockers=net.connect_tcp daddr=1.1.1.1 dest=80"), out);
  BOOST_TEST(out.size() == 1u);
  a.flush(out);
  BOOST_REQUIRE(out.size() == 2u);
  BOOST_TEST(out[1].port == 80);
}

BOOST_AUTO_TEST_CASE(each_denial_names_the_field_that_would_allow_it) {
  using policy::landlock_field;
  BOOST_TEST(landlock_field("fs.read_file", "/data/x", -1).field == "files");
  BOOST_TEST(landlock_field("fs.read_file", "/data/x", -1).allow == "add \"/data/x\": [\"read_file\"] to files");
  BOOST_TEST(landlock_field("fs.write_file,fs.truncate", "/a", -1).allow ==
             "add \"/a\": [\"write_file\", \"truncate\"] to files");
  BOOST_TEST(landlock_field("fs.execute", "/tmp/x", -1).field == "exec");
  BOOST_TEST(landlock_field("net.connect_tcp", "", 443).field == "ports.connect");
  BOOST_TEST(landlock_field("net.bind_tcp", "", 8080).allow == "add 8080 to ports.bind");
  BOOST_TEST(landlock_field("scope.signal", "", -1).field == "scope");
  auto s = policy::seccomp_field("ptrace");
  BOOST_TEST(s.field == "syscalls.allow");
  BOOST_TEST(policy::seccomp_field("unshare").allow.find("CLONE_NEW") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(seccomp_actions_by_code) {
  BOOST_TEST(seccomp_action("0x80000000") == "kill_process");
  BOOST_TEST(seccomp_action("0x7ffc0000") == "log");
  BOOST_TEST(seccomp_action("0x50000") == "errno");
  BOOST_TEST(syscall_name("c000003e", "101") == "ptrace");
}
