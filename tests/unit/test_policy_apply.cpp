// apply_to_config(): every mapping rule from a policy onto an OCI config, and the merged
// config.json / `policy map` outputs built on it.
#define BOOST_TEST_MODULE policy_apply
#include <boost/test/unit_test.hpp>

#include "sidecar_shows.hpp"

#include <sys/resource.h>

#include <algorithm>

#include "oci/config_write.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/map.hpp"
#include "spec-mapping/seccomp_map.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

Policy parse(const std::string& body) {
  auto p = parse_policy(R"({"version": 1, )" + body + "}");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

oci::Config config(const std::string& text) {
  auto c = oci::parse_config(text);
  BOOST_REQUIRE_MESSAGE(c, (c ? "" : c.error().what()));
  return *c;
}

// A config in the shape Docker or `runc spec` writes, looser than the policies below.
const char* kConfig = R"({
  "ociVersion": "1.2.0",
  "process": {
    "user": {"uid": 0, "gid": 0, "additionalGids": [10, 27]},
    "args": ["sh"], "env": ["PATH=/bin", "SHARNESS_POLICY_ID=forged", "HOME=/root"], "cwd": "/",
    "capabilities": {"bounding": ["CAP_CHOWN", "CAP_KILL", "CAP_SYS_ADMIN", "cap_net_raw"],
                     "effective": ["CAP_KILL", "CAP_SYS_ADMIN"], "permitted": ["CAP_KILL", "CAP_SYS_ADMIN"],
                     "ambient": ["CAP_SYS_ADMIN"]},
    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024},
                {"type": "RLIMIT_AS", "hard": 67108864, "soft": 33554432}]
  },
  "root": {"path": "rootfs"},
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/etc/hosts", "type": "bind", "source": "/var/lib/x/hosts", "options": ["rbind", "rw"]},
    {"destination": "/data", "source": "/srv/data", "options": ["bind"]},
    {"destination": "/tmp/", "type": "bind", "source": "/host/tmp", "options": ["rbind"]}
  ],
  "annotations": {"org.sharness.policy.id": "forged"},
  "linux": {
    "namespaces": [{"type": "pid"}, {"type": "network", "path": "/proc/1/ns/net"}, {"type": "ipc", "path": "/proc/7/ns/ipc"}],
    "devices": [{"type": "c", "path": "/dev/fuse", "major": 10, "minor": 229},
                {"type": "c", "path": "/dev/null2", "major": 1, "minor": 3},
                {"type": "b", "path": "/dev/sda", "major": 8, "minor": 0}],
    "resources": {
      "devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rw"},
                  {"allow": true, "type": "c", "major": 1, "minor": 9, "access": "rwm"},
                  {"allow": true, "type": "c", "major": 136, "access": "rwm"},
                  {"allow": false, "type": "c", "major": 136, "minor": 3, "access": "rwm"}],
      "memory": {"limit": 536870912, "reservation": 268435456},
      "cpu": {"quota": 200000, "period": 100000},
      "pids": {"limit": 1000}
    },
    "seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["acct"], "action": "SCMP_ACT_ERRNO"}]},
    "maskedPaths": ["/proc/kcore"],
    "readonlyPaths": ["/proc/sys"]
  }
})";

const char* kPolicy = R"("id": "strict",
  "identity": {"uid": 1234, "capabilities": ["CAP_KILL", "CAP_NET_RAW"], "noNewPrivileges": true},
  "namespaces": ["ipc", "mount", "pid", "uts"], "network": "none",
  "memory": {"limit": "128MiB", "addressSpace": "128MiB"}, "cpu": {"quota": 50000, "period": 100000},
  "pids": {"limit": 4}, "wallClock": {"seconds": 60},
  "syscalls": {"allow": ["@default", "@basic-io", "clone"]},
  "devices": ["null", "zero", "urandom", "pts"],
  "mounts": {"readonlyRoot": true, "bindsReadOnly": true, "tmpfs": [{"path": "/tmp", "size": "16MiB"}],
             "readonlyBinds": [{"source": "/srv/ro", "destination": "/ro"}],
             "maskedPaths": ["/proc/kcore", "/proc/keys"], "readonlyPaths": ["/proc/bus"]})";

struct Applied {
  oci::Config c;
  Extension ext;
};

Applied apply(const Policy& p, const char* text = kConfig) {
  Applied a{config(text), {}};
  auto r = apply_to_config(p, a.c, a.ext, host::probe());
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  return a;
}

const oci::Rlimit* find_rlimit(const oci::Config& c, const std::string& type) {
  for (const auto& r : c.process->rlimits)
    if (r.type == type) return &r;
  return nullptr;
}

const oci::Mount* mount_at(const oci::Config& c, const std::string& dest) {
  for (const auto& m : c.mounts)
    if (m.destination == dest) return &m;
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::ranges::find(v, s) != v.end(); }

}  // namespace

BOOST_AUTO_TEST_CASE(user_and_capabilities) {
  auto a = apply(parse(kPolicy));
  const auto& proc = *a.c.process;
  BOOST_TEST(proc.user.uid == 1234u);
  BOOST_TEST(proc.user.gid == 1234u);  // gid defaults to the uid
  BOOST_TEST(proc.user.additional_gids.empty());
  BOOST_TEST((*proc.capabilities.bounding == std::vector<std::string>{"CAP_KILL", "CAP_NET_RAW"}));
  BOOST_TEST((*proc.capabilities.effective == std::vector<std::string>{"CAP_KILL"}));
  BOOST_TEST((*proc.capabilities.permitted == std::vector<std::string>{"CAP_KILL"}));
  BOOST_TEST(proc.capabilities.ambient->empty());
  // Absent inside the config's capabilities object: empty (as runc reads it), and stays empty.
  BOOST_TEST((proc.capabilities.inheritable && proc.capabilities.inheritable->empty()));
  BOOST_TEST(proc.no_new_privileges);
}

// A policy's fixed uid 0 never turns a non-root config user into root (a pod with
// runAsNonRoot): the config's non-root uid and gid are kept, and the bounds say so.
BOOST_AUTO_TEST_CASE(a_policy_uid_0_keeps_a_non_root_user) {
  const char* nonroot = R"({"process": {"args": ["sh"], "user": {"uid": 1000, "gid": 1000, "additionalGids": [0]}}})";
  auto a = apply(parse(R"("id": "root", "identity": {"uid": 0})"), nonroot);
  BOOST_TEST(a.c.process->user.uid == 1000u);
  BOOST_TEST(a.c.process->user.gid == 1000u);
  BOOST_TEST(a.c.process->user.additional_gids.empty());  // still dropped
  auto kept = [](const Applied& x, const std::string& what) {
    return std::ranges::any_of(x.ext.bounds, [&](const Bound& b) { return b.mechanism.find(what) != std::string::npos; });
  };
  BOOST_TEST(kept(a, "the config's non-root uid 1000 kept over the policy's uid 0"));
  BOOST_TEST(kept(a, "the config's non-root gid 1000 kept over the policy's gid 0"));
  // An explicit gid 0: the same.
  auto g = apply(parse(R"("id": "g", "identity": {"uid": 2000, "gid": 0})"), nonroot);
  BOOST_TEST(g.c.process->user.uid == 2000u);
  BOOST_TEST(g.c.process->user.gid == 1000u);
  // A root config user takes the policy's uid 0, and any non-root uid replaces the config's.
  auto r = apply(parse(R"("id": "root", "identity": {"uid": 0})"));
  BOOST_TEST(r.c.process->user.uid == 0u);
  BOOST_TEST(!kept(r, "kept over"));
  auto n = apply(parse(R"("id": "n", "identity": {"uid": 3000})"), nonroot);
  BOOST_TEST(n.c.process->user.uid == 3000u);
  BOOST_TEST(n.c.process->user.gid == 3000u);
}

BOOST_AUTO_TEST_CASE(absent_bounding_set_becomes_the_policy_list) {
  auto a = apply(parse(R"("id": "p", "identity": {"capabilities": []})"), R"({"process": {"args": ["sh"]}})");
  BOOST_REQUIRE(a.c.process->capabilities.bounding);
  BOOST_TEST(a.c.process->capabilities.bounding->empty());
}

BOOST_AUTO_TEST_CASE(ephemeral_uid_leaves_a_marker) {
  auto a = apply(parse(R"("id": "p", "identity": {"uid": "ephemeral"}, "pids": {"limit": 4})"));
  BOOST_TEST(a.ext.ephemeral_uid);
  BOOST_TEST(a.ext.ephemeral_gid);
  BOOST_TEST(a.c.process->user.additional_gids.empty());
  // RLIMIT_NPROC only with a uid of the container's own.
  BOOST_REQUIRE(find_rlimit(a.c, "RLIMIT_NPROC"));
  BOOST_TEST(find_rlimit(a.c, "RLIMIT_NPROC")->hard == 4u);
  BOOST_TEST(find_rlimit(a.c, "RLIMIT_NPROC")->resource == RLIMIT_NPROC);
  auto b = apply(parse(R"("id": "p", "identity": {"uid": "ephemeral", "gid": 5000})"));
  BOOST_TEST(!b.ext.ephemeral_gid);
  BOOST_TEST(b.c.process->user.gid == 5000u);
  auto fixed = apply(parse(R"("id": "p", "identity": {"uid": 1000}, "pids": {"limit": 4})"));
  BOOST_TEST(!find_rlimit(fixed.c, "RLIMIT_NPROC"));  // a shared uid: per-uid counting would count strangers
  BOOST_TEST(!fixed.ext.ephemeral_uid);
  auto nofork = apply(parse(R"("id": "p", "identity": {"uid": "ephemeral"}, "pids": {"fork": false})"));
  BOOST_TEST(find_rlimit(nofork.c, "RLIMIT_NPROC")->hard == 1u);
  BOOST_TEST(nofork.c.linux.resources->pids->limit == 1);
}

BOOST_AUTO_TEST_CASE(rlimits_take_the_minimum) {
  auto a = apply(parse(kPolicy));
  // The config's RLIMIT_AS (64 MiB hard, 32 MiB soft) is already tighter than 128 MiB.
  BOOST_TEST(find_rlimit(a.c, "RLIMIT_AS")->hard == 64ull << 20);
  BOOST_TEST(find_rlimit(a.c, "RLIMIT_AS")->soft == 32ull << 20);
  BOOST_TEST(find_rlimit(a.c, "RLIMIT_NOFILE")->hard == 1024u);
  auto b = apply(parse(R"("id": "p", "memory": {"addressSpace": "16MiB"})"));
  BOOST_TEST(find_rlimit(b.c, "RLIMIT_AS")->hard == 16ull << 20);
  BOOST_TEST(find_rlimit(b.c, "RLIMIT_AS")->soft == 16ull << 20);
  auto c = apply(parse(R"("id": "p", "memory": {"addressSpace": "16MiB"})"), R"({"process": {"args": ["sh"]}})");
  BOOST_TEST(find_rlimit(c.c, "RLIMIT_AS")->hard == 16ull << 20);
  BOOST_TEST(find_rlimit(c.c, "RLIMIT_AS")->resource == RLIMIT_AS);
}

BOOST_AUTO_TEST_CASE(namespaces_union_and_network_none_removes_the_join) {
  auto a = apply(parse(kPolicy));
  const auto& ns = a.c.linux.namespaces;
  auto find = [&](const std::string& t) { return a.c.find_namespace(t); };
  for (auto t : {"pid", "ipc", "mount", "uts", "network"}) BOOST_REQUIRE_MESSAGE(find(t), t);
  BOOST_TEST(find("network")->path == "");  // the join of the host's netns is gone: a new, empty one
  BOOST_TEST(find("ipc")->path == "");      // a join of another's ipc namespace is replaced too
  BOOST_TEST(ns.size() == 5u);
  BOOST_TEST(std::ranges::count_if(a.ext.bounds, [](const Bound& b) {
               return b.mechanism.find("/proc/1/ns/net replaced") != std::string::npos;
             }) == 1);
  BOOST_TEST(*a.ext.network == "none");
  // network "host" adds nothing and leaves the config's join alone.
  auto h = apply(parse(R"("id": "p", "network": "host")"));
  BOOST_TEST(h.c.find_namespace("network")->path == "/proc/1/ns/net");
  // loopback is a new network namespace too.
  auto l = apply(parse(R"("id": "p", "network": "loopback")"), R"({"process": {"args": ["sh"]}})");
  BOOST_TEST(l.c.find_namespace("network")->path == "");
  BOOST_TEST(*l.ext.network == "loopback");
}

BOOST_AUTO_TEST_CASE(user_namespace_needs_mappings) {
  oci::Config c = config(R"({"process": {"args": ["sh"]}})");
  Extension ext;
  auto r = apply_to_config(parse(R"("id": "p", "namespaces": ["user"])"), c, ext, host::probe());
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what() ==
             "policy p: namespaces: a new user namespace needs linux.uidMappings and linux.gidMappings in the config");
  oci::Config m = config(R"({"process": {"args": ["sh"]}, "linux": {"uidMappings": [{"containerID": 0, "hostID": 100000,
      "size": 65536}], "gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}]}})");
  BOOST_TEST(apply_to_config(parse(R"("id": "p", "namespaces": ["user"])"), m, ext, host::probe()).has_value());
  BOOST_TEST(m.has_namespace("user"));
}

BOOST_AUTO_TEST_CASE(resources_take_the_minimum) {
  auto a = apply(parse(kPolicy));
  const auto& r = *a.c.linux.resources;
  BOOST_TEST(*r.memory->limit == 128ll << 20);
  BOOST_TEST(*r.memory->reservation == 128ll << 20);  // a reservation above the limit is clamped
  BOOST_TEST(*r.cpu->quota == 50000);
  BOOST_TEST(*r.cpu->period == 100000u);
  BOOST_TEST(r.pids->limit == 4);
  // A config already tighter keeps its values.
  auto t = apply(parse(kPolicy), R"({"process": {"args": ["sh"]}, "linux": {"resources": {"memory": {"limit": 8388608},
      "cpu": {"quota": 1000, "period": 10000}, "pids": {"limit": 2}}}})");
  BOOST_TEST(*t.c.linux.resources->memory->limit == 8388608);
  BOOST_TEST(*t.c.linux.resources->cpu->quota == 1000);
  BOOST_TEST(*t.c.linux.resources->cpu->period == 10000u);
  BOOST_TEST(t.c.linux.resources->pids->limit == 2);
  // Unlimited (-1, 0) in the config means the policy's.
  auto u = apply(parse(kPolicy), R"({"process": {"args": ["sh"]}, "linux": {"resources": {"memory": {"limit": -1},
      "cpu": {"quota": -1}, "pids": {"limit": 0}}}})");
  BOOST_TEST(*u.c.linux.resources->memory->limit == 128ll << 20);
  BOOST_TEST(*u.c.linux.resources->cpu->quota == 50000);
  BOOST_TEST(u.c.linux.resources->pids->limit == 4);
  // A memory+swap limit below the policy's memory limit caps the memory too.
  auto s = apply(parse(kPolicy), R"({"process": {"args": ["sh"]}, "linux": {"resources": {"memory": {"swap": 67108864}}}})");
  BOOST_TEST(*s.c.linux.resources->memory->limit == 64ll << 20);
}

BOOST_AUTO_TEST_CASE(devices_deny_all_then_allow_the_intersection) {
  // The policy allows null, zero, urandom, pts and fuse; the config's rules deny everything
  // but 1:3 (rw), 1:9 and 136:*, minus 136:3, and allow 10:229 read-only.
  auto a = apply(parse(R"("id": "d", "devices": ["null", "zero", "urandom", "pts", "fuse", "kvm"])"),
                 R"({"process": {"args": ["sh"]}, "linux": {
      "devices": [{"type": "c", "path": "/dev/fuse", "major": 10, "minor": 229},
                  {"type": "c", "path": "/dev/kvm", "major": 10, "minor": 232},
                  {"type": "c", "path": "/dev/null2", "major": 1, "minor": 3},
                  {"type": "b", "path": "/dev/sda", "major": 8, "minor": 0}],
      "resources": {"devices": [{"allow": false, "access": "rwm"},
                  {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rw"},
                  {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "r"},
                  {"allow": false, "type": "c", "major": 136, "minor": 3, "access": "rwm"}]}}})");
  const auto& rules = a.c.linux.resources->devices;
  BOOST_REQUIRE(rules.size() >= 4u);
  BOOST_TEST(!rules[0].allow);
  BOOST_TEST(rules[0].type == "a");
  BOOST_TEST(rules[0].access == "rwm");
  auto rule = [&](int64_t major, std::optional<int64_t> minor) -> const oci::DeviceRule* {
    for (const auto& r : rules)
      if (r.allow && r.major == major && r.minor == minor) return &r;
    return nullptr;
  };
  // The runtime's default devices count as granted whatever the config's rules say (as runc).
  BOOST_REQUIRE(rule(1, 3));
  BOOST_TEST(rule(1, 3)->access == "rwm");
  BOOST_REQUIRE(rule(1, 5));
  BOOST_REQUIRE(rule(136, std::nullopt));
  // Others: only the access the config grants too.
  BOOST_REQUIRE(rule(10, 229));
  BOOST_TEST(rule(10, 229)->access == "r");
  BOOST_TEST(!rule(10, 232));  // kvm: the policy allows it, the config does not
  // The config's denial of one pts minor under the wildcard still holds, after the allow.
  BOOST_TEST(std::ranges::count_if(rules, [](const oci::DeviceRule& r) {
               return !r.allow && r.major == 136 && r.minor == 3;
             }) == 1);
  BOOST_TEST((*a.ext.devices == std::vector<std::string>{"fuse", "null", "pts", "urandom", "zero"}));
  // Nodes of devices not allowed are not created.
  BOOST_REQUIRE(a.c.linux.devices.size() == 2u);
  BOOST_TEST(a.c.linux.devices[0].path == "/dev/fuse");
  BOOST_TEST(a.c.linux.devices[1].path == "/dev/null2");
  // The config of kConfig: fuse is not in its rules at all (deny all first).
  auto k = apply(parse(kPolicy));
  BOOST_TEST((*k.ext.devices == std::vector<std::string>{"null", "pts", "urandom", "zero"}));
  BOOST_TEST(k.c.linux.devices.size() == 1u);
  // No rules in the config: the policy's list as is.
  auto b = apply(parse(R"("id": "p", "devices": ["kvm"])"), R"({"process": {"args": ["sh"]}})");
  BOOST_REQUIRE(b.c.linux.resources->devices.size() == 2u);
  BOOST_TEST(b.c.linux.resources->devices[1].allow);
  BOOST_TEST(*b.c.linux.resources->devices[1].major == 10);
  BOOST_TEST(*b.c.linux.resources->devices[1].minor == 232);
  BOOST_TEST(b.c.linux.resources->devices[1].access == "rwm");
  // An empty list: deny everything.
  auto e = apply(parse(R"("id": "p", "devices": [])"), R"({"process": {"args": ["sh"]}})");
  BOOST_TEST(e.c.linux.resources->devices.size() == 1u);
}

BOOST_AUTO_TEST_CASE(mounts) {
  auto a = apply(parse(kPolicy));
  BOOST_TEST(a.c.root.readonly);
  auto hosts = mount_at(a.c, "/etc/hosts");
  BOOST_REQUIRE(hosts);
  BOOST_TEST(has(hosts->options, "ro"));
  BOOST_TEST(!has(hosts->options, "rw"));
  BOOST_TEST(has(mount_at(a.c, "/data")->options, "ro"));  // a bind by option, without type
  BOOST_TEST(mount_at(a.c, "/proc")->options.empty());     // not a bind: untouched
  // The policy's tmpfs replaces the config's bind at /tmp/ (trailing slash and all).
  BOOST_TEST(!mount_at(a.c, "/tmp/"));
  auto tmp = mount_at(a.c, "/tmp");
  BOOST_REQUIRE(tmp);
  BOOST_TEST(tmp->type == "tmpfs");
  BOOST_TEST((tmp->options == std::vector<std::string>{"nosuid", "nodev", "noexec", "mode=1777", "size=16777216"}));
  auto ro = mount_at(a.c, "/ro");
  BOOST_REQUIRE(ro);
  BOOST_TEST(ro->source == "/srv/ro");
  BOOST_TEST((ro->options == std::vector<std::string>{"rbind", "ro", "nosuid", "nodev"}));
  BOOST_TEST((a.c.linux.masked_paths == std::vector<std::string>{"/proc/kcore", "/proc/keys"}));
  BOOST_TEST((a.c.linux.readonly_paths == std::vector<std::string>{"/proc/sys", "/proc/bus"}));
}

BOOST_AUTO_TEST_CASE(seccomp_is_stacked_not_replaced) {
  auto a = apply(parse(kPolicy));
  // The config's own filter stays as it was.
  BOOST_REQUIRE(a.c.linux.seccomp);
  BOOST_TEST(a.c.linux.seccomp->default_action == "SCMP_ACT_ALLOW");
  BOOST_TEST(a.c.linux.seccomp->syscalls.size() == 1u);
  // The policy's goes to the extension.
  BOOST_REQUIRE(a.ext.seccomp);
  const auto& f = *a.ext.seccomp;
  BOOST_TEST(f.default_action == "SCMP_ACT_ERRNO");
  BOOST_TEST(*f.default_errno_ret == 1u);
  BOOST_TEST(has(f.syscalls[0].names, "read"));
  BOOST_TEST(has(f.syscalls[0].names, "execve"));  // always allowed
  BOOST_TEST(!has(f.syscalls[0].names, "clone"));
  auto clone = std::ranges::find_if(f.syscalls, [](const oci::SeccompSyscall& s) { return s.names[0] == "clone"; });
  BOOST_REQUIRE(clone != f.syscalls.end());
  BOOST_REQUIRE(clone->args.size() == 1u);
  BOOST_TEST(clone->args[0].op == "SCMP_CMP_MASKED_EQ");
  BOOST_TEST(clone->args[0].value == kCloneNewMask);
  BOOST_TEST(clone->args[0].value_two == 0u);
  auto clone3 = std::ranges::find_if(f.syscalls, [](const oci::SeccompSyscall& s) { return s.names[0] == "clone3"; });
  BOOST_REQUIRE(clone3 != f.syscalls.end());
  BOOST_TEST(clone3->action == "SCMP_ACT_ERRNO");
  BOOST_TEST(*clone3->errno_ret == 38u);  // ENOSYS
  auto none = apply(parse(R"("id": "p")"));
  BOOST_TEST(!none.ext.seccomp);
  auto kill = apply(parse(R"("id": "p", "syscalls": {"allow": ["read"], "defaultAction": "kill"})"));
  BOOST_TEST(kill.ext.seccomp->default_action == "SCMP_ACT_KILL_PROCESS");
  auto log = apply(parse(R"("id": "p", "syscalls": {"allow": ["read"], "defaultAction": "log"})"));
  BOOST_TEST(log.ext.seccomp->default_action == "SCMP_ACT_LOG");
}

BOOST_AUTO_TEST_CASE(env_annotations_and_extension) {
  Policy p = parse(kPolicy);
  auto a = apply(p);
  const auto& env = a.c.process->env;
  BOOST_TEST(!has(env, "SHARNESS_POLICY_ID=forged"));  // replaced, not duplicated
  BOOST_TEST(has(env, "SHARNESS_POLICY_ID=strict"));
  BOOST_TEST(has(env, "SHARNESS_POLICY_HASH=" + p.hash));
  BOOST_TEST(has(env, "PATH=/bin"));
  BOOST_TEST(a.c.annotations.at(kAnnotationId) == "strict");
  BOOST_TEST(a.c.annotations.at(kAnnotationHash) == p.hash);
  BOOST_TEST(a.ext.policy_id == "strict");
  BOOST_TEST(a.ext.policy_hash == p.hash);
  BOOST_TEST(*a.ext.wall_clock_seconds == 60u);
  BOOST_TEST(!a.ext.best_effort);
  BOOST_TEST(!a.ext.bounds.empty());
}

BOOST_AUTO_TEST_CASE(a_client_policy_cannot_loosen_the_floor) {
  Policy floor = parse(kPolicy);
  // The client asks for more memory, host network, CAP_SYS_ADMIN, ptrace, and tightens pids.
  auto client = parse_policy(R"({"id": "client", "version": 1, "network": "host", "memory": {"limit": "1GiB"},
      "identity": {"capabilities": ["CAP_SYS_ADMIN", "CAP_KILL"]}, "pids": {"limit": 2},
      "syscalls": {"defaultAction": "log", "allow": ["ptrace", "read", "write"]}})");
  BOOST_REQUIRE(client);
  Policy eff = intersect(floor, *client);
  BOOST_TEST(eff.id == "strict+client");
  oci::Config c = config(kConfig);
  Extension ext;
  BOOST_REQUIRE(apply_to_config(eff, c, ext, host::probe()));
  BOOST_TEST(*c.linux.resources->memory->limit == 128ll << 20);
  BOOST_TEST(c.linux.resources->pids->limit == 2);
  BOOST_TEST(c.find_namespace("network")->path == "");
  BOOST_TEST((*c.process->capabilities.bounding == std::vector<std::string>{"CAP_KILL"}));
  BOOST_TEST(ext.seccomp->default_action == "SCMP_ACT_ERRNO");
  BOOST_TEST(!has(ext.seccomp->syscalls[0].names, "ptrace"));
  BOOST_TEST(has(ext.seccomp->syscalls[0].names, "read"));
  BOOST_TEST(c.annotations.at(kAnnotationId) == "strict+client");
}

BOOST_AUTO_TEST_CASE(policy_apply_refuses_a_config_naming_a_policy_by_annotation) {
  // Only create resolves the annotation (from the runtime config's policy directories).
  auto r = merged_config_json(parse(kPolicy),
                              R"({"ociVersion": "1.0.2", "root": {"path": "rootfs"}, "process": {"args": ["sh"], "cwd": "/"},
                                  "annotations": {"org.sharness.policy": "harsh"}})",
                              "b/config.json", false, host::probe());
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("annotations.org.sharness.policy names an installed policy") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(merged_config_json_has_the_sharness_block) {
  Policy p = parse(kPolicy);
  auto merged = merged_config_json(p, kConfig, "config.json", true, host::probe());
  BOOST_REQUIRE_MESSAGE(merged, (merged ? "" : merged.error().what()));
  auto doc = json::Document::parse(*merged, "merged");
  BOOST_REQUIRE(doc);
  auto sh = doc->root().get("sharness");
  BOOST_REQUIRE(sh);
  auto ext = parse_extension(*sh);
  BOOST_REQUIRE_MESSAGE(ext, (ext ? "" : ext.error().what()));
  BOOST_TEST(ext->policy_hash == p.hash);
  BOOST_TEST(ext->seccomp.has_value());
  // The rest is a config the OCI parser reads, tightened.
  auto c = oci::parse_config(*merged);
  BOOST_REQUIRE(c);
  BOOST_TEST(c->root.readonly);
  BOOST_TEST(c->process->user.uid == 1234u);
  // Applying twice is refused: apply to the original.
  auto twice = merged_config_json(p, *merged, "config.json", true, host::probe());
  BOOST_REQUIRE(!twice);
  BOOST_TEST(twice.error().what().find("already carries a \"sharness\" block") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(map_without_a_bundle) {
  auto out = map_policy_json(parse(kPolicy), false, host::probe(), kSidecarShows);
  BOOST_REQUIRE(out);
  auto doc = json::Document::parse(*out, "map");
  BOOST_REQUIRE(doc);
  auto root = doc->root();
  BOOST_TEST(root.get("process")->get("user").has_value());
  BOOST_TEST(root.get("process")->get("capabilities").has_value());
  BOOST_TEST(root.get("process")->get("rlimits").has_value());
  BOOST_TEST(root.get("linux")->get("namespaces").has_value());
  BOOST_TEST(root.get("linux")->get("resources").has_value());
  BOOST_TEST(root.get("root")->get("readonly").has_value());
  BOOST_TEST(root.get("sharness")->get("seccomp").has_value());
  BOOST_TEST(!root.get("ociVersion").has_value());
  // An ephemeral uid has no user section to print: the marker says it.
  auto eph = map_policy_json(parse(R"("id": "e", "identity": {"uid": "ephemeral"})"), false, host::probe(), kSidecarShows);
  auto edoc = json::Document::parse(*eph, "map");
  BOOST_TEST(!edoc->root().get("process")->get("user").has_value());
  BOOST_TEST(edoc->root().get("sharness")->get("ephemeralUid").has_value());
}
