// intersect(): every composition rule, and the property that a second policy never loosens the floor.
#define BOOST_TEST_MODULE policy_compose
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "spec-mapping/canonical.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/landlock_map.hpp"
#include "spec-mapping/syscall_groups.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

Policy parse(const std::string& body) {
  auto p = parse_policy(R"({"version": 1, )" + body + "}");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

const char* kFloor = R"("id": "floor",
  "identity": {"uid": 1000, "capabilities": ["CAP_CHOWN", "CAP_KILL", "CAP_NET_BIND_SERVICE"], "noNewPrivileges": true},
  "namespaces": ["mount", "pid"], "network": "loopback",
  "memory": {"limit": "256MiB", "addressSpace": "1GiB"}, "cpu": {"quota": 50000, "period": 100000},
  "pids": {"limit": 64}, "wallClock": {"seconds": 600},
  "syscalls": {"defaultAction": "errno", "allow": ["@basic-io", "@default", "openat", "socket"]},
  "devices": ["null", "zero", "urandom", "tty"],
  "mounts": {"readonlyRoot": true, "tmpfs": [{"path": "/tmp", "size": "64MiB"}, {"path": "/run"}],
             "readonlyBinds": [{"source": "/srv", "destination": "/srv"}], "maskedPaths": ["/proc/kcore"]})";

// Does `a` allow no more than `b`, field by field? (What "only tightens" means.) The grant
// sections are checked against the floor only: a client's absence there keeps the floor's.
void expect_no_looser(const Policy& a, const Policy& b, bool b_is_floor = true) {
  auto le = [](const auto& x, const auto& y) { return !y || (x && *x <= *y); };  // absent = unlimited
  BOOST_TEST(le(a.memory ? a.memory->limit : std::nullopt, b.memory ? b.memory->limit : std::nullopt));
  BOOST_TEST(le(a.memory ? a.memory->address_space : std::nullopt, b.memory ? b.memory->address_space : std::nullopt));
  BOOST_TEST(le(a.wall_clock_seconds, b.wall_clock_seconds));
  if (b.pids) {
    BOOST_REQUIRE(a.pids);
    BOOST_TEST((b.pids->effective_limit() == 0 ||
                (a.pids->effective_limit() > 0 && a.pids->effective_limit() <= b.pids->effective_limit())));
  }
  if (b.cpu) {
    BOOST_REQUIRE(a.cpu);
    BOOST_TEST(double(a.cpu->quota) / double(a.cpu->period) <= double(b.cpu->quota) / double(b.cpu->period));
  }
  BOOST_TEST((!b.network || (a.network && *a.network <= *b.network)));
  if (b.identity.capabilities) {
    BOOST_REQUIRE(a.identity.capabilities);
    for (const auto& c : *a.identity.capabilities) BOOST_TEST(std::ranges::count(*b.identity.capabilities, c) == 1);
  }
  BOOST_TEST((!b.identity.no_new_privileges || a.identity.no_new_privileges));
  for (const auto& ns : b.namespaces) BOOST_TEST(std::ranges::count(a.namespaces, ns) == 1);
  if (b.syscalls) {
    BOOST_REQUIRE(a.syscalls);
    BOOST_TEST((a.syscalls->default_action >= b.syscalls->default_action));
    auto as = *expand(a.syscalls->allow), bs = *expand(b.syscalls->allow);
    BOOST_TEST(std::ranges::includes(bs, as));
  }
  if (b.devices) {
    BOOST_REQUIRE(a.devices);
    for (const auto& d : *a.devices) BOOST_TEST(std::ranges::count(*b.devices, d) == 1);
  }
  BOOST_TEST((!b.mounts.readonly_root || a.mounts.readonly_root));
  for (const auto& m : b.mounts.masked_paths) BOOST_TEST(std::ranges::count(a.mounts.masked_paths, m) == 1);
  for (const auto& t : a.mounts.tmpfs)
    BOOST_TEST(std::ranges::count_if(b.mounts.tmpfs, [&](const Tmpfs& x) { return x.path == t.path; }) == 1);
  if (b.identity.uid && !b.identity.uid->ephemeral)
    BOOST_TEST((a.identity.uid && (a.identity.uid->ephemeral || *a.identity.uid == *b.identity.uid)));
  if (b.identity.uid && b.identity.uid->ephemeral) {
    BOOST_TEST((a.identity.uid && a.identity.uid->ephemeral));
    BOOST_TEST((!a.identity.gid || a.identity.gid == b.identity.gid));  // a fresh gid stays fresh
  }
  if (!b_is_floor) return;
  // The grant sections: nothing b lacks, no more than b has (absent on b is none).
  BOOST_TEST((!a.mesh.role || a.mesh.role == b.mesh.role));
  if (a.mesh.edges)
    for (const auto& e : *a.mesh.edges) BOOST_TEST((b.mesh.edges && std::ranges::count(*b.mesh.edges, e) == 1));
  if (a.mesh.accepts) {
    BOOST_REQUIRE(b.mesh.accepts);
    for (const auto& r : a.mesh.accepts->roles) BOOST_TEST(std::ranges::count(b.mesh.accepts->roles, r) == 1);
  }
  if (a.secrets) {
    BOOST_REQUIRE(b.secrets);
    for (const auto& v : a.secrets->vaults) BOOST_TEST(std::ranges::count(b.secrets->vaults, v) == 1);
    BOOST_TEST(a.secrets->ttl <= b.secrets->ttl);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(limits_take_the_minimum) {
  Policy floor = parse(kFloor);
  Policy client = parse(R"("id": "client", "memory": {"limit": "128MiB", "addressSpace": "4GiB"},
                           "cpu": {"quota": 20000, "period": 20000}, "pids": {"limit": 4}, "wallClock": {"seconds": 60})");
  Policy r = intersect(floor, client);
  BOOST_TEST(*r.memory->limit == 128ull << 20);
  BOOST_TEST(*r.memory->address_space == 1ull << 30);
  // 0.5 CPU (floor) is less than 1.0 CPU (client): the floor's quota and period stay.
  BOOST_TEST(r.cpu->quota == 50000u);
  BOOST_TEST(r.cpu->period == 100000u);
  BOOST_TEST(*r.pids->limit == 4);
  BOOST_TEST(*r.wall_clock_seconds == 60u);
  Policy tighter_cpu = parse(R"("id": "c", "cpu": {"quota": 10000, "period": 50000})");
  BOOST_TEST(intersect(floor, tighter_cpu).cpu->quota == 10000u);
  BOOST_TEST(intersect(floor, tighter_cpu).cpu->period == 50000u);
  // fork: false on either side wins.
  Policy nofork = parse(R"("id": "n", "pids": {"fork": false})");
  BOOST_TEST(!intersect(floor, nofork).pids->fork);
  BOOST_TEST(intersect(floor, nofork).pids->effective_limit() == 1);
}

BOOST_AUTO_TEST_CASE(absent_means_unlimited) {
  Policy floor = parse(kFloor);
  Policy empty = parse(R"("id": "empty")");
  Policy r = intersect(floor, empty);
  BOOST_TEST(*r.memory->limit == 256ull << 20);
  BOOST_TEST(*r.pids->limit == 64);
  BOOST_TEST(r.syscalls->allow == floor.syscalls->allow);
  BOOST_TEST(*r.devices == *floor.devices);
  BOOST_TEST(*r.identity.capabilities == *floor.identity.capabilities);
  BOOST_TEST(r.mounts.tmpfs.empty());  // tmpfs is an allowance: both must grant it
  // and symmetric
  Policy s = intersect(empty, floor);
  BOOST_TEST(*s.memory->limit == 256ull << 20);
  BOOST_TEST(s.syscalls->allow == floor.syscalls->allow);
}

BOOST_AUTO_TEST_CASE(allowances_intersect) {
  Policy floor = parse(kFloor);
  Policy client = parse(R"("id": "client",
    "identity": {"capabilities": ["CAP_KILL", "CAP_SYS_ADMIN"]},
    "syscalls": {"defaultAction": "log", "allow": ["read", "write", "openat", "ptrace", "@network-io"]},
    "devices": ["null", "kvm"],
    "mounts": {"tmpfs": [{"path": "/tmp", "size": "1GiB", "exec": true}],
               "readonlyBinds": [{"source": "/etc/shadow", "destination": "/srv"}]})");
  Policy r = intersect(floor, client);
  BOOST_TEST((*r.identity.capabilities == std::vector<std::string>{"CAP_KILL"}));
  BOOST_TEST((r.syscalls->allow == std::vector<std::string>{"openat", "read", "socket", "write"}));
  BOOST_TEST((r.syscalls->default_action == DefaultAction::errno_eperm));  // harsher of errno and log
  BOOST_TEST((*r.devices == std::vector<std::string>{"null"}));
  BOOST_REQUIRE(r.mounts.tmpfs.size() == 1u);
  BOOST_TEST(*r.mounts.tmpfs[0].size == 64ull << 20);
  BOOST_TEST(!r.mounts.tmpfs[0].exec);
  BOOST_TEST(r.mounts.readonly_binds.empty());  // same destination, other source: not granted by both
}

BOOST_AUTO_TEST_CASE(restrictions_union_and_flags_or) {
  Policy a = parse(R"("id": "a", "namespaces": ["pid"], "mounts": {"maskedPaths": ["/proc/kcore"]},
                      "identity": {"noNewPrivileges": true}, "bestEffort": true)");
  Policy b = parse(R"("id": "b", "namespaces": ["ipc", "pid", "uts"], "mounts": {"maskedPaths": ["/proc/keys"],
                      "readonlyRoot": true, "bindsReadOnly": true}, "bestEffort": false)");
  Policy r = intersect(a, b);
  BOOST_TEST((r.namespaces == std::vector<std::string>{"ipc", "pid", "uts"}));
  BOOST_TEST((r.mounts.masked_paths == std::vector<std::string>{"/proc/kcore", "/proc/keys"}));
  BOOST_TEST(r.identity.no_new_privileges);
  BOOST_TEST(r.mounts.readonly_root);
  BOOST_TEST(r.mounts.binds_readonly);
  BOOST_TEST(!r.best_effort);  // either side refusing to degrade is enough
}

BOOST_AUTO_TEST_CASE(network_takes_the_stricter) {
  auto net = [](const char* n) { return parse(std::string(R"("id": "n", "network": ")") + n + "\""); };
  BOOST_TEST((*intersect(net("host"), net("none")).network == Network::none));
  BOOST_TEST((*intersect(net("loopback"), net("host")).network == Network::loopback));
  BOOST_TEST((*intersect(net("none"), net("loopback")).network == Network::none));
  BOOST_TEST((*intersect(net("host"), parse(R"("id": "x")")).network == Network::host));
}

BOOST_AUTO_TEST_CASE(default_action_takes_the_harsher) {
  auto sc = [](const char* a) {
    return parse(std::string(R"("id": "s", "syscalls": {"allow": ["read"], "defaultAction": ")") + a + "\"}");
  };
  BOOST_TEST((intersect(sc("log"), sc("kill")).syscalls->default_action == DefaultAction::kill));
  BOOST_TEST((intersect(sc("errno"), sc("log")).syscalls->default_action == DefaultAction::errno_eperm));
  BOOST_TEST((intersect(sc("kill"), sc("errno")).syscalls->default_action == DefaultAction::kill));
}

BOOST_AUTO_TEST_CASE(uid_conflicts_yield_an_ephemeral_uid) {
  auto uid = [](const std::string& v) { return parse(R"("id": "u", "identity": {"uid": )" + v + "}"); };
  BOOST_TEST(intersect(uid("1000"), uid("1000")).identity.uid->value == 1000u);
  BOOST_TEST(!intersect(uid("1000"), uid("1000")).identity.uid->ephemeral);
  BOOST_TEST(intersect(uid("1000"), uid("0")).identity.uid->ephemeral);  // a client cannot ask for root
  BOOST_TEST(intersect(uid("\"ephemeral\""), uid("1000")).identity.uid->ephemeral);
  BOOST_TEST(intersect(uid("1000"), parse(R"("id": "x")")).identity.uid->value == 1000u);
  // gids meet as the gids each side means (its own, else its uid's): a throwaway uid brings a
  // throwaway gid, which a client's gid 0 cannot replace.
  auto id = [](const std::string& v) { return parse(R"("id": "u", "identity": )" + v); };
  Policy r = intersect(uid("\"ephemeral\""), id(R"({"gid": 0})"));
  BOOST_TEST(r.identity.uid->ephemeral);
  BOOST_TEST(!r.identity.gid);  // follows the throwaway uid
  r = intersect(uid("1000"), id(R"({"gid": 0})"));
  BOOST_TEST(r.identity.uid->ephemeral);  // gid 1000 against 0: neither
  BOOST_TEST(!r.identity.gid);
  r = intersect(uid("1000"), id(R"({"gid": 1000})"));
  BOOST_TEST(r.identity.uid->value == 1000u);
  BOOST_TEST(*r.identity.gid == 1000u);
  r = intersect(id(R"({"uid": "ephemeral", "gid": 5})"), parse(R"("id": "x")"));
  BOOST_TEST(r.identity.uid->ephemeral);
  BOOST_TEST(*r.identity.gid == 5u);
  r = intersect(parse(R"("id": "x")"), id(R"({"gid": 7})"));
  BOOST_TEST(!r.identity.uid);
  BOOST_TEST(*r.identity.gid == 7u);
}

// role, edges, accepts and secrets grant identity and reach: absent on the floor is none.
BOOST_AUTO_TEST_CASE(grants_absent_on_the_floor_are_none) {
  Policy floor = parse(kFloor);
  const char* kGrants = R"("id": "db", "role": "db", "network": "loopback",
      "edges": [{"to": "vault", "over": "tcp", "port": 8200}], "accepts": {"roles": ["app"], "over": "unix"},
      "secrets": {"vaults": ["db"], "hosts": ["db.internal"], "operations": ["read"], "ttl": 600})";
  Policy client = parse(kGrants);
  Policy r = intersect(floor, client);
  BOOST_TEST(!r.mesh.role);
  BOOST_TEST(!r.mesh.edges);
  BOOST_TEST(!r.mesh.accepts);
  BOOST_TEST(!r.secrets);
  // The operator may let this policy add them where the floor has none: then they are its own.
  r = intersect(floor, client, Grants{MeshGrants{true, true, true}, true});
  BOOST_TEST(*r.mesh.role == "db");
  BOOST_TEST((*r.mesh.edges == *client.mesh.edges));
  BOOST_TEST((*r.mesh.accepts == *client.mesh.accepts));
  BOOST_TEST((*r.secrets == *client.secrets));
  r = intersect(floor, client, Grants{MeshGrants{true, false, false}, false});
  BOOST_TEST(*r.mesh.role == "db");
  BOOST_TEST(!r.mesh.edges);
  BOOST_TEST(!r.secrets);
  // Where the floor has them, they intersect, grants or not.
  Policy fl = parse(R"("id": "f", "role": "db", "secrets": {"vaults": ["db", "web"], "hosts": ["db.internal"],
      "operations": ["read"], "ttl": 60})");
  r = intersect(fl, client, Grants{MeshGrants{true, true, true}, true});
  BOOST_TEST((r.secrets->vaults == std::vector<std::string>{"db"}));
  BOOST_TEST(r.secrets->ttl == 60u);
  BOOST_TEST((*r.mesh.edges == *client.mesh.edges));  // the floor has no edges: added
  // A client that says nothing keeps the floor's.
  r = intersect(fl, parse(R"("id": "c", "pids": {"limit": 2})"));
  BOOST_TEST(*r.mesh.role == "db");
  BOOST_TEST((*r.secrets == *fl.secrets));
}

// The ports edges add to Landlock's port rules follow the edges composition kept: a client's
// TCP edge the floor lacks adds no port to the floor's ports section.
BOOST_AUTO_TEST_CASE(edge_ports_follow_the_composed_edges) {
  Policy floor = parse(R"("id": "f", "role": "app", "network": "loopback", "ports": {"connect": [443]})");
  Policy client = parse(R"("id": "c", "role": "app", "network": "loopback",
      "edges": [{"to": "db", "over": "tcp", "port": 15432}], "accepts": {"roles": ["x"], "over": "tcp", "port": 22})");
  Policy r = intersect(floor, client);
  auto ll = landlock_block(r);
  BOOST_REQUIRE(ll);
  for (const auto& rule : ll->net_port)
    for (auto port : rule.ports) BOOST_TEST((port == 443), "port " << port << " in the composed Landlock rules");
  // Granted by the operator: the ports come with the edges.
  r = intersect(floor, client, Grants{MeshGrants{false, true, true}, false});
  ll = landlock_block(r);
  std::vector<uint64_t> ports;
  for (const auto& rule : ll->net_port) ports.insert(ports.end(), rule.ports.begin(), rule.ports.end());
  BOOST_TEST(std::ranges::count(ports, 15432) == 1);
  BOOST_TEST(std::ranges::count(ports, 22) == 1);
}

BOOST_AUTO_TEST_CASE(id_and_hash_of_the_composition) {
  Policy floor = parse(kFloor);
  Policy client = parse(R"("id": "client", "pids": {"limit": 8})");
  Policy r = intersect(floor, client);
  BOOST_TEST(r.id == "floor+client");
  // The same document twice is that document: its own id and hash, exactly what is enforced.
  Policy same = intersect(floor, parse(kFloor));
  BOOST_TEST(same.id == "floor");
  BOOST_TEST(same.hash == floor.hash);
  // Another document with the floor's id does not pass for the floor.
  Policy twin = parse(std::string(kFloor) + R"(, "description": "another file")");
  BOOST_REQUIRE(twin.id == "floor");
  Policy t = intersect(floor, twin);
  BOOST_TEST(t.id == "floor+floor");
  BOOST_TEST(t.hash != floor.hash);
  BOOST_TEST(r.hash.size() == 64u);
  BOOST_TEST(r.hash == *policy_hash(policy_to_json(r)));
  BOOST_TEST(r.hash != floor.hash);
  // The composition is itself a valid policy document.
  auto again = parse_policy(policy_to_json(r, true));
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(again->same_rules(r));
  BOOST_TEST(again->hash == r.hash);
}

// The central promise: whatever the client asks, the result is no looser than the floor
// (and no looser than the client).
BOOST_AUTO_TEST_CASE(a_second_policy_cannot_loosen_the_floor) {
  Policy floor = parse(kFloor);
  const char* clients[] = {
      R"("id": "c1")",
      R"("id": "c2", "memory": {"limit": "1TiB", "addressSpace": "1TiB"}, "pids": {"limit": 4194304},
         "wallClock": {"seconds": 2592000}, "cpu": {"quota": 102400000, "period": 100000})",
      R"("id": "c3", "network": "host", "identity": {"uid": 0, "capabilities": ["CAP_SYS_ADMIN", "CAP_KILL"]},
         "syscalls": {"defaultAction": "log", "allow": ["@system-service", "@mount", "@debug", "ptrace"]},
         "devices": ["kvm", "fuse", "null"], "mounts": {"tmpfs": [{"path": "/tmp", "size": "1TiB", "exec": true},
         {"path": "/dev/shm"}], "readonlyBinds": [{"source": "/", "destination": "/host"}]})",
      R"("id": "c4", "network": "none", "pids": {"fork": false}, "memory": {"limit": "4MiB"},
         "syscalls": {"defaultAction": "kill", "allow": ["read"]}, "devices": [], "identity": {"capabilities": []},
         "namespaces": ["user", "cgroup"])",
      R"("id": "c5", "role": "db", "network": "loopback", "identity": {"gid": 0},
         "edges": [{"to": "vault", "over": "tcp", "port": 8200}], "accepts": {"roles": ["app"], "over": "unix"},
         "secrets": {"vaults": ["db"], "hosts": ["db.internal"], "operations": ["read"], "ttl": 600})",
  };
  for (const char* c : clients) {
    Policy client = parse(c);
    BOOST_TEST_CONTEXT(client.id) {
      expect_no_looser(intersect(floor, client), floor);
      expect_no_looser(intersect(floor, client), client, false);
      expect_no_looser(intersect(client, floor), floor, false);
    }
  }
}
