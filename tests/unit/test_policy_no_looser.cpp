// looser_sections(): a client's policy against the floor, one case per section of the policy
// (docs/policy.md's composition table), and the grant sections with and without a floor.
#define BOOST_TEST_MODULE policy_no_looser
#include <boost/test/unit_test.hpp>

#include "spec-mapping/no_looser.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

Policy parse(const std::string& body) {
  auto p = parse_policy(R"({"version": 1, )" + body + "}");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

const char* kFloor = R"("id": "floor",
  "identity": {"uid": "ephemeral", "capabilities": ["CAP_KILL"], "noNewPrivileges": true},
  "namespaces": ["mount", "pid"], "network": "none",
  "memory": {"limit": "128MiB", "addressSpace": "128MiB"}, "cpu": {"quota": 50000, "period": 100000},
  "pids": {"limit": 4}, "wallClock": {"seconds": 60},
  "syscalls": {"defaultAction": "errno", "allow": ["read", "write", "openat"]},
  "devices": ["null", "zero"],
  "mounts": {"readonlyRoot": true, "tmpfs": [{"path": "/tmp", "size": "16MiB"}],
             "readonlyBinds": [{"source": "/srv", "destination": "/srv"}]},
  "files": {"/etc": ["read_file", "read_dir"], "/tmp": ["read_file", "write_file"]},
  "ports": {"bind": [], "connect": [443]},
  "scope": ["signal"],
  "exec": [{"path": "/bin/busybox", "sha256": "3d9f2889d6782537624a4e1a10e68a2ddd53e0ee8bac02676f27308f42ec6bf6"}])";

// The sections named, in order.
std::vector<std::string> sections(const Policy* floor, const std::string& client, const Grants& g = {}) {
  std::vector<std::string> out;
  for (const auto& l : looser_sections(floor, parse(R"("id": "c", )" + client), g)) out.push_back(l.section);
  return out;
}

using V = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(a_policy_that_states_nothing_or_less_is_no_looser) {
  Policy floor = parse(kFloor);
  BOOST_TEST(looser_sections(&floor, parse(R"("id": "empty")")).empty());
  BOOST_TEST(looser_sections(&floor, floor).empty());
  // Tighter in every section it states.
  BOOST_TEST(sections(&floor, R"("identity": {"uid": "ephemeral", "capabilities": []}, "network": "none",
      "memory": {"limit": "64MiB"}, "cpu": {"quota": 10000, "period": 100000}, "pids": {"fork": false},
      "wallClock": {"seconds": 2}, "syscalls": {"defaultAction": "kill", "allow": ["read"]}, "devices": ["null"],
      "mounts": {"tmpfs": [{"path": "/tmp", "size": "4MiB"}], "maskedPaths": ["/proc/kcore"]},
      "namespaces": ["ipc"], "files": {"/etc/passwd": ["read_file"]}, "ports": {"connect": [443]},
      "scope": ["abstract_unix_socket"], "exec": [{"path": "/bin/busybox",
      "sha256": "3d9f2889d6782537624a4e1a10e68a2ddd53e0ee8bac02676f27308f42ec6bf6"}])")
                 .empty());
}

BOOST_AUTO_TEST_CASE(each_looser_section_is_named_with_the_floors_value) {
  Policy floor = parse(kFloor);
  struct Case {
    const char* client;
    V want;
  } cases[] = {
      {R"("bestEffort": true)", {"bestEffort"}},
      {R"("identity": {"uid": 0})", {"identity.uid"}},
      {R"("identity": {"gid": 0})", {"identity.gid"}},
      {R"("identity": {"capabilities": ["CAP_KILL", "CAP_SYS_ADMIN"]})", {"identity.capabilities"}},
      {R"("network": "host")", {"network"}},
      {R"("memory": {"limit": "1GiB"})", {"memory.limit"}},
      {R"("memory": {"addressSpace": "1TiB"})", {"memory.addressSpace"}},
      {R"("cpu": {"quota": 200000, "period": 100000})", {"cpu"}},
      {R"("pids": {"limit": 1000})", {"pids.limit"}},
      {R"("wallClock": {"seconds": 3600})", {"wallClock.seconds"}},
      {R"("syscalls": {"defaultAction": "log", "allow": ["read"]})", {"syscalls.defaultAction"}},
      {R"("syscalls": {"allow": ["read", "ptrace"]})", {"syscalls.allow"}},
      {R"("devices": ["null", "kvm"])", {"devices"}},
      {R"("mounts": {"tmpfs": [{"path": "/tmp", "size": "1GiB"}]})", {"mounts.tmpfs /tmp"}},
      {R"("mounts": {"tmpfs": [{"path": "/tmp", "size": "1MiB", "exec": true}]})", {"mounts.tmpfs /tmp"}},
      {R"("mounts": {"tmpfs": [{"path": "/dev/shm"}]})", {"mounts.tmpfs /dev/shm"}},
      {R"("mounts": {"readonlyBinds": [{"source": "/", "destination": "/host"}]})", {"mounts.readonlyBinds"}},
      {R"("files": {"/": ["read_file"]})", {"files /"}},
      {R"("files": {"/etc": ["write_file"]})", {"files /etc"}},
      {R"("ports": {"connect": [443, 22]})", {"ports.connect"}},
      {R"("ports": {"bind": [8080]})", {"ports.bind"}},
      {R"("exec": [{"path": "/bin/sh", "sha256": "0000000000000000000000000000000000000000000000000000000000000000"}])",
       {"exec /bin/sh"}},
  };
  for (const auto& c : cases) BOOST_TEST(sections(&floor, c.client) == c.want, c.client);
  // The message names the floor's value.
  auto l = looser_sections(&floor, parse(R"("id": "c", "memory": {"limit": "1GiB"})"));
  BOOST_REQUIRE(l.size() == 1u);
  BOOST_TEST(describe(l[0]) == "memory.limit 1 GiB (the floor's: 128 MiB)");
  l = looser_sections(&floor, parse(R"("id": "c", "network": "host", "identity": {"uid": 0})"));
  BOOST_REQUIRE(l.size() == 2u);
  BOOST_TEST(describe(l[0]) == "identity.uid 0 (the floor's: ephemeral)");
  BOOST_TEST(describe(l[1]) == "network host (the floor's: none)");
}

BOOST_AUTO_TEST_CASE(ids_a_fixed_floor_allows) {
  Policy floor = parse(R"("id": "f", "identity": {"uid": 1000})");
  BOOST_TEST(sections(&floor, R"("identity": {"uid": 1000})").empty());
  BOOST_TEST(sections(&floor, R"("identity": {"uid": "ephemeral"})").empty());
  BOOST_TEST(sections(&floor, R"("identity": {"gid": 1000})").empty());  // the uid's gid
  BOOST_TEST(sections(&floor, R"("identity": {"uid": 0})") == V{"identity.uid"});
  BOOST_TEST(sections(&floor, R"("identity": {"gid": 0})") == V{"identity.gid"});
}

BOOST_AUTO_TEST_CASE(exec_under_a_files_floor_needs_an_execute_rule) {
  Policy floor = parse(R"("id": "f", "files": {"/usr/bin": ["execute", "read_file"], "/etc": ["read_file"]})");
  const char* pin = R"("sha256": "3d9f2889d6782537624a4e1a10e68a2ddd53e0ee8bac02676f27308f42ec6bf6"}])";
  BOOST_TEST(sections(&floor, std::string(R"("exec": [{"path": "/usr/bin/python3", )") + pin).empty());
  BOOST_TEST(sections(&floor, std::string(R"("exec": [{"path": "/etc/evil", )") + pin) == V{"exec /etc/evil"});
  // A floor with an allowlist but no files: execute only on its pins.
  Policy pins = parse(std::string(R"("id": "p", "exec": [{"path": "/bin/busybox", )") + pin);
  BOOST_TEST(sections(&pins, R"("files": {"/usr": ["execute"]})") == V{"files /usr"});
  BOOST_TEST(sections(&pins, R"("files": {"/usr": ["read_file"]})").empty());
}

BOOST_AUTO_TEST_CASE(grant_sections_the_floor_lacks_are_looser) {
  Policy floor = parse(kFloor);
  const std::string db = R"("role": "db", "accepts": {"roles": ["app"], "over": "unix"},
      "secrets": {"vaults": ["db"], "hosts": ["db.internal"], "operations": ["read"], "ttl": 600})";
  BOOST_TEST(sections(&floor, db) == (V{"role", "accepts", "secrets"}));
  BOOST_TEST(sections(nullptr, db) == (V{"role", "accepts", "secrets"}));  // no floor: none either
  BOOST_TEST(sections(&floor, R"("role": "app", "edges": [{"to": "db", "over": "unix"}])") == (V{"role", "edges"}));
  BOOST_TEST(sections(&floor, R"("role": "app", "edges": [])") == V{"role"});  // no edge asked for
  // mayAdd, section by section.
  BOOST_TEST(sections(&floor, db, Grants{MeshGrants{true, false, true}, true}).empty());
  BOOST_TEST(sections(&floor, db, Grants{MeshGrants{true, false, false}, false}) == (V{"accepts", "secrets"}));
  BOOST_TEST(sections(nullptr, db, Grants{MeshGrants{true, false, true}, true}).empty());
  auto l = looser_sections(&floor, parse(R"("id": "c", "role": "db")"));
  BOOST_REQUIRE(l.size() == 1u);
  BOOST_TEST(describe(l[0]) == "role \"db\" (the floor's: none)");
}

BOOST_AUTO_TEST_CASE(grant_sections_the_floor_has_must_be_within_it) {
  Policy floor = parse(R"("id": "f", "role": "app", "network": "loopback",
      "edges": [{"to": "db", "over": "unix"}, {"to": "cache", "over": "tcp", "port": 16379}],
      "accepts": {"roles": ["admin", "web"], "over": "tcp", "port": 8080},
      "secrets": {"vaults": ["db"], "hosts": ["a", "b"], "operations": ["read"], "ttl": 60})");
  // mayAdd does not widen a section the floor has.
  Grants all{MeshGrants{true, true, true}, true};
  BOOST_TEST(sections(&floor, R"("role": "app", "edges": [{"to": "db", "over": "unix"}])", all).empty());
  BOOST_TEST(sections(&floor, R"("role": "db")", all) == V{"role"});
  BOOST_TEST(sections(&floor, R"("role": "app", "edges": [{"to": "vault", "over": "unix"}])", all) == V{"edges"});
  BOOST_TEST(sections(&floor, R"("role": "app", "edges": [{"to": "cache", "over": "tcp", "port": 22}])", all) == V{"edges"});
  BOOST_TEST(sections(&floor, R"("role": "app", "accepts": {"roles": ["web"], "over": "tcp", "port": 8080})", all).empty());
  BOOST_TEST(sections(&floor, R"("role": "app", "accepts": {"roles": ["app"], "over": "tcp", "port": 8080})", all) ==
             V{"accepts"});
  BOOST_TEST(sections(&floor, R"("role": "app", "accepts": {"roles": ["web"], "over": "tcp", "port": 22})", all) ==
             V{"accepts"});
  BOOST_TEST(sections(&floor, R"("role": "app", "secrets": {"vaults": ["db", "web"], "hosts": ["a"],
      "operations": ["read", "write"], "ttl": 600, "allowWeakerMemory": true})", all) ==
             (V{"secrets.vaults", "secrets.operations", "secrets.ttl", "secrets.allowWeakerMemory"}));
}
