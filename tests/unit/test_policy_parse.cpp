// The policy parser: every section, and every kind of bad policy rejected with the JSON path.
#define BOOST_TEST_MODULE policy_parse
#include <boost/test/unit_test.hpp>

#include <string>

#include "spec-mapping/policy.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

const char* kFull = R"({
  "$schema": "./schema.json",
  "id": "full-1",
  "version": 1,
  "description": "every key",
  "bestEffort": true,
  "identity": {"uid": 1000, "gid": 1001, "capabilities": ["cap_kill", "CAP_CHOWN"], "noNewPrivileges": true},
  "namespaces": ["uts", "pid", "mount"],
  "network": "loopback",
  "memory": {"limit": "256MiB", "addressSpace": 1073741824},
  "cpu": {"quota": 25000, "period": 50000},
  "pids": {"limit": 64},
  "wallClock": {"seconds": 3600},
  "syscalls": {"defaultAction": "kill", "allow": ["@basic-io", "openat", "exit_group"]},
  "devices": ["null", "pts"],
  "mounts": {"readonlyRoot": true, "bindsReadOnly": true,
             "tmpfs": [{"path": "/tmp", "size": "8MiB"}, {"path": "/run", "exec": true}],
             "readonlyBinds": [{"source": "/srv/data", "destination": "/data"}],
             "maskedPaths": ["/proc/kcore"], "readonlyPaths": ["/proc/sys"]}
})";

// The error text of parsing `text` ("" if it parsed).
std::string error_of(const std::string& text) {
  auto p = parse_policy(text);
  return p ? "" : p.error().what();
}

// A minimal valid policy with `extra` spliced in as more top-level members.
std::string with(const std::string& extra) {
  return R"({"id": "t", "version": 1)" + (extra.empty() ? "" : ", " + extra) + "}";
}

}  // namespace

BOOST_AUTO_TEST_CASE(full_policy) {
  auto r = parse_policy(kFull);
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  const Policy& p = *r;
  BOOST_TEST(p.id == "full-1");
  BOOST_TEST(p.version == 1);
  BOOST_TEST(p.description == "every key");
  BOOST_TEST(p.best_effort);
  BOOST_REQUIRE(p.identity.uid);
  BOOST_TEST(!p.identity.uid->ephemeral);
  BOOST_TEST(p.identity.uid->value == 1000u);
  BOOST_TEST(*p.identity.gid == 1001u);
  // Normalised to upper case, sorted.
  BOOST_TEST((*p.identity.capabilities == std::vector<std::string>{"CAP_CHOWN", "CAP_KILL"}));
  BOOST_TEST(p.identity.no_new_privileges);
  BOOST_TEST((p.namespaces == std::vector<std::string>{"mount", "pid", "uts"}));
  BOOST_TEST((*p.network == Network::loopback));
  BOOST_TEST(*p.memory->limit == 256ull << 20);
  BOOST_TEST(*p.memory->address_space == 1ull << 30);
  BOOST_TEST(p.cpu->quota == 25000u);
  BOOST_TEST(p.cpu->period == 50000u);
  BOOST_TEST(*p.pids->limit == 64);
  BOOST_TEST(p.pids->fork);
  BOOST_TEST(*p.wall_clock_seconds == 3600u);
  BOOST_TEST((p.syscalls->default_action == DefaultAction::kill));
  BOOST_TEST((p.syscalls->allow == std::vector<std::string>{"@basic-io", "openat", "exit_group"}));
  BOOST_TEST((*p.devices == std::vector<std::string>{"null", "pts"}));
  BOOST_TEST(p.mounts.readonly_root);
  BOOST_TEST(p.mounts.binds_readonly);
  BOOST_REQUIRE(p.mounts.tmpfs.size() == 2u);
  BOOST_TEST(p.mounts.tmpfs[0].path == "/tmp");
  BOOST_TEST(*p.mounts.tmpfs[0].size == 8ull << 20);
  BOOST_TEST(!p.mounts.tmpfs[0].exec);
  BOOST_TEST(!p.mounts.tmpfs[1].size);
  BOOST_TEST(p.mounts.tmpfs[1].exec);
  BOOST_TEST(p.mounts.readonly_binds[0].source == "/srv/data");
  BOOST_TEST(p.mounts.readonly_binds[0].destination == "/data");
  BOOST_TEST((p.mounts.masked_paths == std::vector<std::string>{"/proc/kcore"}));
  BOOST_TEST((p.mounts.readonly_paths == std::vector<std::string>{"/proc/sys"}));
  BOOST_TEST(p.hash.size() == 64u);
}

BOOST_AUTO_TEST_CASE(defaults_of_a_minimal_policy) {
  auto p = parse_policy(with(""));
  BOOST_REQUIRE(p);
  BOOST_TEST(!p->best_effort);  // refusing to degrade is the default
  BOOST_TEST(!p->identity.uid);
  BOOST_TEST(!p->identity.capabilities);
  BOOST_TEST(!p->network);
  BOOST_TEST(!p->syscalls);
  BOOST_TEST(!p->devices);
  BOOST_TEST(p->namespaces.empty());
}

BOOST_AUTO_TEST_CASE(ephemeral_uid_and_fork_false) {
  auto p = parse_policy(with(R"("identity": {"uid": "ephemeral"}, "pids": {"fork": false})"));
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  BOOST_TEST(p->identity.uid->ephemeral);
  BOOST_TEST(!p->pids->fork);
  BOOST_TEST(p->pids->effective_limit() == 1);
  BOOST_TEST(error_of(with(R"("pids": {"fork": false, "limit": 4})")) ==
             "policy.json: pids.fork: false means no new process (a limit of 1), but limit is 4");
}

BOOST_AUTO_TEST_CASE(unknown_keys_are_errors_naming_the_path) {
  BOOST_TEST(error_of(with(R"("memory": {"limitt": 5})")) == "policy.json: memory.limitt: unknown key");
  BOOST_TEST(error_of(with(R"("colour": "blue")")) == "policy.json: colour: unknown key");
  BOOST_TEST(error_of(with(R"("mounts": {"tmpfs": [{"path": "/tmp", "sise": 1}]})")) ==
             "policy.json: mounts.tmpfs[0].sise: unknown key");
  BOOST_TEST(error_of(with(R"("identity": {"user": 5})")) == "policy.json: identity.user: unknown key");
}

BOOST_AUTO_TEST_CASE(no_section_is_reserved_any_more) {
  BOOST_TEST(reserved_sections().empty());
  // secrets is parsed now: an empty one is an error naming the missing key, not "not supported".
  auto e = error_of(with(R"("secrets": {})"));
  BOOST_TEST(e.find("policy.json: secrets.vaults") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(wrong_types) {
  BOOST_TEST(error_of(with(R"("bestEffort": "yes")")) == "policy.json: bestEffort: expected a boolean, got a string");
  BOOST_TEST(error_of(with(R"("memory": [])")) == "policy.json: memory: expected an object, got an array");
  BOOST_TEST(error_of(with(R"("pids": {"limit": "4"})")) == "policy.json: pids.limit: expected an integer, got a string");
  BOOST_TEST(error_of(with(R"("pids": {"limit": 4.5})")) == "policy.json: pids.limit: expected an integer, got 4.5");
  BOOST_TEST(error_of(with(R"("namespaces": "pid")")) == "policy.json: namespaces: expected an array, got a string");
  BOOST_TEST(error_of(with(R"("identity": {"uid": true})")) ==
             "policy.json: identity.uid: expected a uid number or \"ephemeral\"");
  BOOST_TEST(error_of(with(R"("identity": {"uid": "nobody"})")) ==
             "policy.json: identity.uid: expected a uid number or \"ephemeral\", got \"nobody\"");
  BOOST_TEST(error_of(with(R"("network": "bridge")")) ==
             "policy.json: network: expected \"none\", \"loopback\" or \"host\", got \"bridge\"");
  BOOST_TEST(error_of(with(R"("syscalls": {"allow": ["read"], "defaultAction": "trap"})")) ==
             "policy.json: syscalls.defaultAction: expected \"errno\", \"kill\" or \"log\", got \"trap\"");
  BOOST_TEST(error_of(with(R"("memory": {"limit": true})")) ==
             "policy.json: memory.limit: expected a size in bytes (a non-negative integer) or a string like \"128MiB\"");
  BOOST_TEST(error_of(with(R"("memory": {"limit": "128MB"})")) ==
             "policy.json: memory.limit: \"128MB\" is not a size (an integer of bytes, or e.g. \"128MiB\": KiB, MiB, GiB, TiB)");
}

BOOST_AUTO_TEST_CASE(negative_and_absurd_limits) {
  BOOST_TEST(error_of(with(R"("memory": {"limit": -1})")) ==
             "policy.json: memory.limit: expected a size in bytes (a non-negative integer) or a string like \"128MiB\"");
  BOOST_TEST(error_of(with(R"("memory": {"limit": "1MiB"})")) ==
             "policy.json: memory.limit: 1 MiB is below the minimum 4 MiB");
  BOOST_TEST(error_of(with(R"("memory": {"addressSpace": "2TiB"})")) ==
             "policy.json: memory.addressSpace: 2 TiB is above the maximum 1 TiB");
  BOOST_TEST(error_of(with(R"("memory": {"limit": "99999999999999TiB"})")) ==
             "policy.json: memory.limit: \"99999999999999TiB\" is too large");
  BOOST_TEST(error_of(with(R"("pids": {"limit": 0})")) == "policy.json: pids.limit: 0 is out of range [1, 4194304]");
  BOOST_TEST(error_of(with(R"("pids": {"limit": -3})")) == "policy.json: pids.limit: -3 is out of range [1, 4194304]");
  BOOST_TEST(error_of(with(R"("pids": {"limit": 4194305})")) ==
             "policy.json: pids.limit: 4194305 is out of range [1, 4194304]");
  BOOST_TEST(error_of(with(R"("pids": {"limit": 99999999999999999999})")) ==
             "policy.json: pids.limit: 99999999999999999999 is out of range [1, 4194304]");
  BOOST_TEST(error_of(with(R"("wallClock": {"seconds": 0})")) ==
             "policy.json: wallClock.seconds: 0 is out of range [1, 2592000]");
  BOOST_TEST(error_of(with(R"("wallClock": {"seconds": 2592001})")) ==
             "policy.json: wallClock.seconds: 2592001 is out of range [1, 2592000]");
  BOOST_TEST(error_of(with(R"("wallClock": {})")) == "policy.json: wallClock.seconds: required");
  BOOST_TEST(error_of(with(R"("cpu": {"quota": 10})")) == "policy.json: cpu.quota: 10 is out of range [1000, 102400000]");
  BOOST_TEST(error_of(with(R"("cpu": {"quota": 5000, "period": 10})")) ==
             "policy.json: cpu.period: 10 is out of range [1000, 1000000]");
  BOOST_TEST(error_of(with(R"("identity": {"uid": -1})")) ==
             "policy.json: identity.uid: -1 is out of range [0, 4294967294]");
  BOOST_TEST(error_of(with(R"("mounts": {"tmpfs": [{"path": "/tmp", "size": 100}]})")) ==
             "policy.json: mounts.tmpfs[0].size: 100 bytes is below the minimum 4 KiB");
}

BOOST_AUTO_TEST_CASE(unknown_names) {
  BOOST_TEST(error_of(with(R"("syscalls": {"allow": ["read", "frobnicate"]})")) ==
             "policy.json: syscalls.allow[1]: unknown syscall \"frobnicate\"");
  BOOST_TEST(error_of(with(R"("syscalls": {"allow": ["@basic-io", "@nope"]})")) ==
             "policy.json: syscalls.allow[1]: unknown syscall group \"@nope\"");
  BOOST_TEST(error_of(with(R"("syscalls": {"allow": ["read", "read"]})")) ==
             "policy.json: syscalls.allow[1]: duplicate \"read\"");
  BOOST_TEST(error_of(with(R"("syscalls": {})")) == "policy.json: syscalls.allow: required");
  BOOST_TEST(error_of(with(R"("identity": {"capabilities": ["CAP_KILL", "CAP_FLY"]})")) ==
             "policy.json: identity.capabilities[1]: unknown capability \"CAP_FLY\"");
  BOOST_TEST(error_of(with(R"("identity": {"capabilities": ["CAP_KILL", "cap_kill"]})")) ==
             "policy.json: identity.capabilities[1]: duplicate \"CAP_KILL\"");
  BOOST_TEST(error_of(with(R"("devices": ["null", "sda"])")).starts_with(
      "policy.json: devices[1]: unknown device \"sda\" (null, zero,"));
  BOOST_TEST(error_of(with(R"("namespaces": ["pid", "net"])")) ==
             "policy.json: namespaces[1]: unknown namespace \"net\" (cgroup, ipc, mount, pid, time, user, uts)");
  BOOST_TEST(error_of(with(R"("namespaces": ["network"])")) ==
             "policy.json: namespaces[0]: the network namespace is set by the \"network\" key");
  BOOST_TEST(error_of(with(R"("namespaces": ["pid", "pid"])")) == "policy.json: namespaces[1]: duplicate \"pid\"");
}

BOOST_AUTO_TEST_CASE(required_fields_version_and_id) {
  BOOST_TEST(error_of(R"({"version": 1})") == "policy.json: id: required");
  BOOST_TEST(error_of(R"({"id": "x"})") == "policy.json: version: required");
  BOOST_TEST(error_of(R"({"id": "x", "version": 2})") ==
             "policy.json: version: policy format version 2 is not supported (this runtime reads 1)");
  BOOST_TEST(error_of(R"({"id": "a b", "version": 1})") ==
             "policy.json: id: \"a b\" is not a policy id (1-128 of A-Z a-z 0-9 . _ - +, starting alphanumeric)");
  BOOST_TEST(error_of(R"({"id": "", "version": 1})").starts_with("policy.json: id: \"\" is not a policy id"));
}

BOOST_AUTO_TEST_CASE(paths_must_be_absolute_and_plain) {
  BOOST_TEST(error_of(with(R"("mounts": {"maskedPaths": ["proc/kcore"]})")) ==
             "policy.json: mounts.maskedPaths[0]: \"proc/kcore\" is not an absolute path");
  BOOST_TEST(error_of(with(R"("mounts": {"readonlyBinds": [{"source": "/a/../etc", "destination": "/x"}]})")) ==
             "policy.json: mounts.readonlyBinds[0].source: \"/a/../etc\" contains \"..\"");
  BOOST_TEST(error_of(with(R"("mounts": {"readonlyBinds": [{"source": "/a"}]})")) ==
             "policy.json: mounts.readonlyBinds[0].destination: required");
}

BOOST_AUTO_TEST_CASE(malformed_json_and_duplicate_keys) {
  BOOST_TEST(error_of(R"({"id": "x", "version": 1,)").starts_with("policy.json: invalid JSON: "));
  BOOST_TEST(error_of("[1, 2]") == "policy.json: expected a JSON object at the top level");
  BOOST_TEST(error_of("") .starts_with("policy.json: invalid JSON"));
  BOOST_TEST(error_of(R"({"id": "x", "version": 1, "memory": {"limit": "8MiB", "limit": "1TiB"}})") ==
             "policy.json: memory.limit: duplicate key");
  BOOST_TEST(error_of(R"({"id": "x", "id": "y", "version": 1})") == "policy.json: id: duplicate key");
}

BOOST_AUTO_TEST_CASE(ephemeral_uid_with_user_namespace_is_refused) {
  BOOST_TEST(error_of(with(R"("identity": {"uid": "ephemeral"}, "namespaces": ["user"])")) ==
             "policy.json: identity.uid: \"ephemeral\" picks a host uid; it cannot be combined with a user namespace");
}

BOOST_AUTO_TEST_CASE(serialization_parses_back_to_the_same_model) {
  auto p = parse_policy(kFull);
  BOOST_REQUIRE(p);
  auto again = parse_policy(policy_to_json(*p, true));
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(p->same_rules(*again));
  // A different document (sizes written as bytes): a different hash, the same rules.
  BOOST_TEST(p->hash != again->hash);
}

BOOST_AUTO_TEST_CASE(sizes) {
  auto size_of = [](const std::string& v) -> std::string {
    auto p = parse_policy(with("\"memory\": {\"limit\": " + v + "}"));
    return p ? std::to_string(*p->memory->limit) : p.error().what();
  };
  BOOST_TEST(size_of("\"4MiB\"") == "4194304");
  BOOST_TEST(size_of("\"4096KiB\"") == "4194304");
  BOOST_TEST(size_of("\"1GiB\"") == "1073741824");
  BOOST_TEST(size_of("\"1TiB\"") == "1099511627776");
  BOOST_TEST(size_of("\"8388608\"") == "8388608");
  BOOST_TEST(size_of("8388608") == "8388608");
  BOOST_TEST(format_size(128ull << 20) == "128 MiB");
  BOOST_TEST(format_size(1000) == "1000 bytes");
  BOOST_TEST(format_size(3ull << 30) == "3 GiB");
}
