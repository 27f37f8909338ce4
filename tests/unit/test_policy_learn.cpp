// policy learn's pure half (spec-mapping/learn): the recording floor leaves out exactly the
// learned sections, files fold where a reviewer would fold them and nowhere else, and the
// learned policy parses, keeps --from's other sections and pins every executed file.
#define BOOST_TEST_MODULE policy_learn
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "oci/landlock.hpp"
#include "spec-mapping/learn.hpp"

using namespace sh;
using namespace sh::policy;

namespace {
uint64_t r(std::initializer_list<const char*> names) {
  uint64_t m = 0;
  for (auto n : names) m |= oci::find_landlock_right(oci::LandlockKind::fs, n)->bit;
  return m;
}
std::map<std::string, uint64_t> rules(const std::vector<FileRule>& v) {
  std::map<std::string, uint64_t> m;
  for (const auto& x : v) m[x.path] = x.access;
  return m;
}
const std::string A(64, 'a'), B(64, 'b');

Policy from_policy() {
  auto p = parse_policy(R"({"id": "base", "version": 1, "network": "none", "memory": {"limit": "64MiB"},
    "syscalls": {"defaultAction": "kill", "allow": ["read"]}, "files": {"/": ["read_file"]},
    "ports": {"bind": [80], "connect": []}, "pids": {"limit": 9}, "scope": ["signal"],
    "exec": [{"path": "/bin/busybox", "sha256": ")" + A + R"("}]})");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}
}  // namespace

BOOST_AUTO_TEST_CASE(recording_floor_drops_only_the_learned_sections) {
  Policy f = recording_floor(from_policy());
  BOOST_TEST(!f.syscalls);
  BOOST_TEST(!f.files);
  BOOST_TEST(!f.exec);
  BOOST_TEST(!f.ports);
  BOOST_TEST(!f.pids);
  BOOST_TEST(f.network.has_value());
  BOOST_TEST(f.memory.has_value());
  BOOST_TEST(f.scope.has_value());
  // What the learned pins will imply, so the run is recorded as it will run.
  BOOST_TEST(f.mounts.readonly_root);
  BOOST_TEST((std::ranges::find(f.namespaces, "pid") != f.namespaces.end()));
  Policy none = recording_floor(Policy{});
  BOOST_TEST(none.mounts.readonly_root);
  BOOST_TEST(!none.id.empty());
}

BOOST_AUTO_TEST_CASE(a_lone_file_keeps_its_own_rule) {
  Trace t;
  t.files["/usr/share/zoneinfo/UTC"] = r({"read_file"});
  BOOST_TEST((rules(fold_files(t)) == std::map<std::string, uint64_t>{{"/usr/share/zoneinfo/UTC", r({"read_file"})}}));
}

BOOST_AUTO_TEST_CASE(two_files_or_a_listing_fold_into_the_directory) {
  Trace t;
  t.files["/usr/lib/x86_64-linux-gnu/libc.so.6"] = r({"read_file"});
  t.files["/usr/lib/x86_64-linux-gnu/libm.so.6"] = r({"read_file"});
  t.files["/usr/lib/python3.11/os.py"] = r({"read_file"});
  t.dirs["/usr/lib/python3.11"] = r({"read_dir"});
  // A subdirectory granting nothing its parent does not: subsumed.
  t.files["/usr/lib/python3.11/encodings/utf_8.py"] = r({"read_file"});
  t.dirs["/usr/lib/python3.11/encodings"] = r({"read_dir"});
  auto got = rules(fold_files(t));
  BOOST_TEST((got == std::map<std::string, uint64_t>{{"/usr/lib/python3.11", r({"read_file", "read_dir"})},
                                                     {"/usr/lib/x86_64-linux-gnu", r({"read_file"})}}));
}

BOOST_AUTO_TEST_CASE(etc_and_dev_stay_by_name) {
  Trace t;
  t.files["/etc/ld.so.cache"] = r({"read_file"});
  t.files["/etc/localtime"] = r({"read_file"});
  t.dirs["/etc"] = r({"read_dir"});
  t.files["/dev/null"] = r({"read_file", "write_file"});
  t.files["/dev/urandom"] = r({"read_file"});
  auto got = rules(fold_files(t));
  BOOST_TEST(got.count("/etc/ld.so.cache") == 1u);
  BOOST_TEST(got.count("/etc/localtime") == 1u);
  BOOST_TEST(got["/etc"] == r({"read_dir"}));  // listing /etc does not grant reading /etc/shadow
  BOOST_TEST(got.count("/dev/null") == 1u);
  BOOST_TEST(got.count("/dev") == 0u);
}

BOOST_AUTO_TEST_CASE(what_the_run_created_is_granted_where_it_was_created) {
  Trace t;
  t.dirs["/tmp"] = r({"make_dir"});
  t.dirs["/tmp/out"] = r({"make_reg"});
  t.files["/tmp/out/result.json"] = r({"write_file", "read_file"});
  t.created = {"/tmp/out", "/tmp/out/result.json"};
  // /tmp/out does not exist when the container is created: no rule can name it.
  BOOST_TEST((rules(fold_files(t)) ==
              std::map<std::string, uint64_t>{{"/tmp", r({"make_dir", "make_reg", "write_file", "read_file"})}}));
}

BOOST_AUTO_TEST_CASE(a_file_folds_into_the_nearest_listed_directory_above_it) {
  Trace t;
  t.dirs["/usr/lib/python3.11"] = r({"read_dir"});
  t.files["/usr/lib/python3.11/__pycache__/os.cpython-311.pyc"] = r({"read_file"});
  t.files["/usr/lib/python3.11/json/__pycache__/decoder.cpython-311.pyc"] = r({"read_file"});
  BOOST_TEST((rules(fold_files(t)) ==
              std::map<std::string, uint64_t>{{"/usr/lib/python3.11", r({"read_file", "read_dir"})}}));
  Trace root;  // listing / folds nothing into /
  root.dirs["/"] = r({"read_dir"});
  root.files["/data/a"] = r({"read_file"});
  BOOST_TEST(rules(fold_files(root)).count("/data/a") == 1u);
}

BOOST_AUTO_TEST_CASE(proc_is_one_rule_and_pins_need_none) {
  Trace t;
  t.files["/proc/1/status"] = r({"read_file"});
  t.dirs["/proc/1/fd"] = r({"read_dir"});
  t.files["/usr/bin/python3.11"] = r({"read_file"});
  t.execs = {"/usr/bin/python3.11"};
  BOOST_TEST((rules(fold_files(t)) == std::map<std::string, uint64_t>{{"/proc", r({"read_file", "read_dir"})}}));
}

BOOST_AUTO_TEST_CASE(learned_policy_keeps_from_and_replaces_the_learned_sections) {
  Policy from = from_policy();
  Trace t;
  t.syscalls = {"read", "write", "execve", "exit_group", "openat"};
  t.files["/data/in.txt"] = r({"read_file"});
  t.execs = {"/usr/bin/python3.11", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"};
  t.connect = {443};
  t.peak_tasks = 1;
  std::map<std::string, std::string> sha{{"/usr/bin/python3.11", A}, {"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", B}};
  auto p = learned_policy({&from, "py", "d", &t, &sha});
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  BOOST_TEST(p->id == "py");
  BOOST_TEST((p->syscalls->allow == std::vector<std::string>{"openat", "read", "write"}));  // the five left out
  BOOST_TEST((p->syscalls->default_action == DefaultAction::kill));  // from --from
  BOOST_TEST(p->exec->size() == 2u);
  BOOST_TEST((p->ports->bind.empty() && p->ports->connect == std::vector<uint16_t>{443}));
  BOOST_TEST(!p->pids->fork);
  BOOST_TEST(*p->memory->limit == (64ull << 20));
  BOOST_TEST(p->network.has_value());
  BOOST_TEST(!p->hash.empty());
}

BOOST_AUTO_TEST_CASE(a_run_that_forked_gets_its_peak_and_threads_count_too) {
  Trace t;
  t.forked = true;
  t.peak_tasks = 3;
  auto p = learned_policy({nullptr, "x", "", &t, nullptr});
  BOOST_REQUIRE(p);
  BOOST_TEST((p->pids->fork && *p->pids->limit == 3));
  Trace threads;
  threads.peak_tasks = 4;  // no fork, but threads: the pids cgroup counts them
  auto q = learned_policy({nullptr, "x", "", &threads, nullptr});
  BOOST_REQUIRE(q);
  BOOST_TEST((q->pids->fork && *q->pids->limit == 4));
}

BOOST_AUTO_TEST_CASE(an_executed_file_without_a_digest_is_an_error) {
  Trace t;
  t.execs = {"/bin/sh"};
  std::map<std::string, std::string> none;
  auto p = learned_policy({nullptr, "x", "", &t, &none});
  BOOST_REQUIRE(!p);
  BOOST_TEST(p.error().what().find("/bin/sh") != std::string::npos);
}
