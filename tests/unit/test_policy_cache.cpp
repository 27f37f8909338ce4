#define BOOST_TEST_MODULE policy_cache
#include <boost/test/unit_test.hpp>

#include "tests/unit/temp_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/file.hpp"
#include "base/sha256.hpp"
#include "runtime/lifecycle/policy_cache.hpp"
#include "spec-mapping/prepared_codec.hpp"

using namespace sh;
using namespace sh::lifecycle;
namespace fs = std::filesystem;

namespace {

const char* kStrict = R"({"id": "strict", "version": 1, "memory": {"limit": "64MiB"},
  "syscalls": {"defaultAction": "errno", "allow": ["read", "write", "exit_group", "@signal"]}})";
const char* kLooser = R"({"id": "strict", "version": 1, "memory": {"limit": "64MiB"},
  "syscalls": {"defaultAction": "errno", "allow": ["read", "write", "exit_group", "@signal", "ptrace"]}})";

void put_file(const fs::path& p, const std::string& data, mode_t mode = 0600) {
  fs::remove(p);
  std::ofstream(p, std::ios::binary) << data;
  BOOST_REQUIRE(::chmod(p.c_str(), mode) == 0);
}

struct Root : sh::test::TempDir {
  RuntimeConfig rc;
  host::Facts host;
  fs::path policy_file = path / "strict.json";
  Root() : TempDir("policy-cache-test") {
    host.kernel = "6.1.0-test";
    host.landlock_abi = 3;
    host.seccomp = host.no_new_privs = host.memory_cgroup = true;
    fs::create_directory(path / "state");
    ::chmod((path / "state").c_str(), 0700);
    write_policy(kStrict);
  }
  void write_policy(const std::string& text) { put_file(policy_file, text, 0644); }
  std::string state() const { return (path / "state").string(); }
  PolicyChoice choice() {
    auto ch = read_policy_choice(rc, policy_file.string(), oci::Config{});
    BOOST_REQUIRE(ch);
    return *ch;
  }
  fs::path entry() { return path / "state/.cache/policy" / (policy_cache_key(rc, choice(), host) + ".pol"); }
  policy::Prepared prepared(const std::string& root) {
    auto pp = prepared_policy(rc, choice(), host, root);
    BOOST_REQUIRE(pp);
    BOOST_REQUIRE(pp->has_value());
    return **pp;
  }
  bool allows(const std::string& name) { return prepared(state()).allowed.contains(name); }
  // An entry as the runtime writes one, for `pp` under the current key: what a forger who got
  // the format right would plant.
  std::string forge(const policy::Prepared& pp) {
    std::string key = policy_cache_key(rc, choice(), host);
    std::string payload = policy::encode_prepared(pp);
    return sha256_hex(key + payload) + payload;
  }
};

policy::Prepared prepare_text(const std::string& text, const host::Facts& host) {
  auto p = policy::parse_policy(text);
  BOOST_REQUIRE(p);
  auto pp = policy::prepare(*p, host);
  BOOST_REQUIRE(pp);
  return *pp;
}

// A Policy with every section set (values need not make sense: the codec carries them).
policy::Prepared everything() {
  using namespace policy;
  Prepared pp;
  Policy& p = pp.policy;
  p.id = "all";
  p.version = 1;
  p.description = "every field";
  p.best_effort = true;
  p.identity = Identity{Uid{false, 1234}, 99u, std::vector<std::string>{"CAP_KILL"}, true};
  p.namespaces = {"ipc", "pid"};
  p.network = Network::loopback;
  p.memory = Memory{64u << 20, 128u << 20, true};
  p.cpu = Cpu{50000, 100000};
  p.pids = Pids{-1, false};
  p.wall_clock_seconds = 60;
  p.priority = Priority{-500, -5, true};
  p.syscalls = Syscalls{{"read", "@signal"}, DefaultAction::kill};
  p.devices = std::vector<std::string>{"null", "zero"};
  p.mounts = Mounts{true, true, {Tmpfs{"/tmp", 16u << 20, true}}, {Bind{"/src", "/dst"}}, {"/proc/kcore"}, {"/proc/sys"}};
  p.mesh = Mesh{"web", std::vector<Edge>{Edge{"db", true, 5432}}, Accepts{{"lb"}, true, 8080}};
  p.files = std::vector<FileRule>{FileRule{"/etc", 3}};
  p.ports = Ports{{80}, {443, 8443}};
  p.scope = std::vector<std::string>{"signal"};
  p.exec = std::vector<Pin>{Pin{"/bin/busybox", std::string(64, 'a')}};
  p.secrets = SecretsPolicy{{"v"}, {"h"}, {"o"}, 600, true};
  EgressRule rule{"api.example.com", 443, std::vector<std::string>{"GET"}, std::vector<std::string>{"/v1/"},
                  Credential{"v", Inject::header, "x-key", "API_KEY"}};
  p.egress = EgressPolicy{{rule}, EgressBudgets{100, 1u << 20, std::nullopt}};
  p.hooks_from_config = false;
  p.hash = std::string(64, 'b');
  pp.allowed = {"read", "kill"};
  pp.explained = {Bound{"memory cgroup limit 64 MiB", true, "by the runtime", ""}, Bound{"x", false, "y", "why"}};
  return pp;
}

}  // namespace

BOOST_AUTO_TEST_CASE(codec_reads_back_every_field) {
  auto pp = everything();
  auto back = policy::decode_prepared(policy::encode_prepared(pp));
  BOOST_REQUIRE(back);
  BOOST_TEST(back->same(pp));
  // The control of same(): one field changed is seen.
  auto other = pp;
  other.policy.egress->rules[0].credential->env = "OTHER";
  BOOST_TEST(!other.same(pp));
}

BOOST_AUTO_TEST_CASE(codec_refuses_truncated_extended_and_out_of_range) {
  std::string bytes = policy::encode_prepared(everything());
  for (size_t n = 0; n < bytes.size(); n += 7)
    BOOST_TEST(!policy::decode_prepared(std::string_view(bytes).substr(0, n)), "a prefix of " << n << " bytes");
  BOOST_TEST(!policy::decode_prepared(bytes + std::string(8, '\0')));
  // Network is the 7th field: id, version, description, best_effort, identity... find it by
  // writing a policy whose only optional is the network, then set its value past the enum.
  policy::Prepared pp;
  pp.policy.network = policy::Network::host;
  std::string b = policy::encode_prepared(pp);
  auto at = b.find(std::string("\x02\0\0\0\0\0\0\0", 8));
  BOOST_REQUIRE(at != std::string::npos);
  b[at] = 3;
  BOOST_TEST(!policy::decode_prepared(b));
  b[at] = 2;
  BOOST_TEST(policy::decode_prepared(b).has_value());
}

BOOST_AUTO_TEST_CASE(key_covers_every_input) {
  Root r;
  std::string base = policy_cache_key(r.rc, r.choice(), r.host);
  BOOST_TEST(base.size() == 64u);
  BOOST_TEST(policy_cache_key(r.rc, r.choice(), r.host) == base);  // stable
  std::set<std::string> seen{base};
  auto differs = [&](const std::string& what, const std::string& k) {
    BOOST_TEST(seen.insert(k).second, what << " changes the key");
  };
  {
    auto ch = r.choice();
    ch.floor->text += " ";  // one byte more: same policy, other file
    differs("policy bytes", policy_cache_key(r.rc, ch, r.host));
    ch = r.choice();
    ch.floor->path += ".other";
    differs("policy path", policy_cache_key(r.rc, ch, r.host));
    ch = r.choice();
    ch.client = PolicySource{"/p/c.json", "{}"};
    ch.client_name = "c";
    differs("client policy", policy_cache_key(r.rc, ch, r.host));
    ch.client_name = "d";
    differs("client name", policy_cache_key(r.rc, ch, r.host));
    ch.grants.egress = true;
    differs("client grants", policy_cache_key(r.rc, ch, r.host));
  }
  auto rc = r.rc;
  rc.source = R"({"defaultPolicy": "x"})";
  differs("runtime config", policy_cache_key(rc, r.choice(), r.host));
  auto h = r.host;
  h.kernel = "6.12.0";
  differs("kernel", policy_cache_key(r.rc, r.choice(), h));
  h = r.host;
  h.landlock_abi = 6;
  differs("landlock abi", policy_cache_key(r.rc, r.choice(), h));
  h = r.host;
  h.memfd_noexec = true;
  differs("memfd_noexec", policy_cache_key(r.rc, r.choice(), h));
  h = r.host;
  h.namespaces.insert("time");
  differs("namespaces", policy_cache_key(r.rc, r.choice(), h));
}

BOOST_AUTO_TEST_CASE(a_hit_is_what_a_miss_prepared) {
  Root r;
  auto fresh = prepare_text(kStrict, r.host);
  auto cold = r.prepared(r.state());
  BOOST_TEST(cold.same(fresh));
  struct stat st;
  BOOST_REQUIRE(::stat(r.entry().c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
  BOOST_REQUIRE(::stat((r.path / "state/.cache/policy").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0700u);
  BOOST_TEST(r.prepared(r.state()).same(fresh));  // warm
  // No state root (the cache off): prepared afresh, nothing written.
  fs::remove(r.entry());
  BOOST_TEST(r.prepared("").same(fresh));
  BOOST_TEST(!fs::exists(r.entry()));
}

BOOST_AUTO_TEST_CASE(a_changed_policy_file_is_never_served_the_old_entry) {
  Root r;
  BOOST_TEST(!r.allows("ptrace"));  // cold
  BOOST_TEST(!r.allows("ptrace"));  // warm
  r.write_policy(kLooser);
  BOOST_TEST(r.allows("ptrace"));
  r.write_policy(kStrict);  // and back: its own entry again
  BOOST_TEST(!r.allows("ptrace"));
  // Another host: another entry, explained for that host.
  r.host.landlock_abi = 0;
  BOOST_TEST(r.prepared(r.state()).same(prepare_text(kStrict, r.host)));
}

BOOST_AUTO_TEST_CASE(forged_entry_is_used_only_when_owned_and_private) {
  Root r;
  auto want = r.prepared(r.state());
  auto forged = prepare_text(kLooser, r.host);  // allows ptrace, under kStrict's key
  // The control: a forged entry in a private file of ours is what gets used (so the refusals
  // below are the checks at work, not a test that cannot fail).
  put_file(r.entry(), r.forge(forged));
  BOOST_TEST(r.allows("ptrace"));

  put_file(r.entry(), r.forge(forged), 0666);  // world-writable
  BOOST_TEST(!r.allows("ptrace"));
  put_file(r.entry(), r.forge(forged), 0620);  // group-writable
  BOOST_TEST(!r.allows("ptrace"));
  put_file(r.entry(), r.forge(forged));
  BOOST_REQUIRE(::chown(r.entry().c_str(), 65534, 65534) == 0);  // not ours
  BOOST_TEST(!r.allows("ptrace"));
  // Each refusal rewrote the entry with the real preparation.
  auto file = read_file(r.entry());
  BOOST_REQUIRE(file);
  BOOST_TEST(*file == r.forge(want));

  // A symlink to a forged file is not followed.
  put_file(r.path / "elsewhere", r.forge(forged));
  fs::remove(r.entry());
  fs::create_symlink(r.path / "elsewhere", r.entry());
  BOOST_TEST(!r.allows("ptrace"));
}

BOOST_AUTO_TEST_CASE(corrupt_and_truncated_entries_are_ignored_and_rewritten) {
  Root r;
  auto want = r.prepared(r.state());
  std::string good = r.forge(want);
  for (const std::string& bad : {std::string(), std::string("garbage"), good.substr(0, good.size() - 1),
                                 good.substr(0, 64), good + "x"}) {
    put_file(r.entry(), bad);
    BOOST_TEST(r.prepared(r.state()).same(want));
    auto file = read_file(r.entry());
    BOOST_REQUIRE(file);
    BOOST_TEST(*file == good);
  }
  // A byte flipped in the payload: the digest no longer matches.
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 1;
  put_file(r.entry(), flipped);
  BOOST_TEST(r.prepared(r.state()).same(want));
}

BOOST_AUTO_TEST_CASE(an_unsafe_cache_directory_is_not_used) {
  Root r;
  auto forged = prepare_text(kLooser, r.host);
  (void)r.prepared(r.state());
  put_file(r.entry(), r.forge(forged));
  BOOST_REQUIRE(::chmod((r.path / "state/.cache/policy").c_str(), 0777) == 0);
  BOOST_TEST(!r.allows("ptrace"));
  BOOST_REQUIRE(::chmod((r.path / "state/.cache/policy").c_str(), 0700) == 0);
  BOOST_REQUIRE(::chmod((r.path / "state/.cache").c_str(), 0755) == 0);
  BOOST_TEST(!r.allows("ptrace"));
  BOOST_REQUIRE(::chmod((r.path / "state/.cache").c_str(), 0700) == 0);
  // A symlinked cache directory is not used either.
  fs::rename(r.path / "state/.cache/policy", r.path / "planted");
  fs::create_directory_symlink(r.path / "planted", r.path / "state/.cache/policy");
  BOOST_TEST(!r.allows("ptrace"));
}

BOOST_AUTO_TEST_CASE(errors_are_never_cached) {
  Root r;
  r.write_policy(R"({"id": "strict", "version": 1, "syscalls": {"allow": ["no_such_call"]}})");
  for (int i = 0; i < 2; ++i) BOOST_TEST(!prepared_policy(r.rc, r.choice(), r.host, r.state()));
  BOOST_TEST((!fs::exists(r.path / "state/.cache/policy") || fs::is_empty(r.path / "state/.cache/policy")));
}
