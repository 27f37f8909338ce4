// `policy diff A B` (spec-mapping/diff): what A allows that B does not, built on the floor check.
#define BOOST_TEST_MODULE policy_diff
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "spec-mapping/diff.hpp"
#include "spec-mapping/policy.hpp"

using namespace sh;
using namespace sh::policy;

namespace {
Policy parse(const std::string& body) {
  auto p = parse_policy("{\"id\": \"t\", \"version\": 1" + std::string(body.empty() ? "" : ", ") + body + "}");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

std::vector<std::string> sections(const std::vector<Looser>& v) {
  std::vector<std::string> out;
  for (const auto& l : v) out.push_back(l.section);
  return out;
}

bool has(const std::vector<Looser>& v, const std::string& section) {
  return std::ranges::any_of(v, [&](const Looser& l) { return l.section == section; });
}

const std::string kB = R"("memory": {"limit": "128MiB"}, "pids": {"limit": 4}, "namespaces": ["pid", "mount"],
  "syscalls": {"defaultAction": "errno", "allow": ["read", "write"]}, "ports": {"bind": [], "connect": [443]},
  "files": {"/tmp": ["read_file", "write_file"]}, "priority": {"oomScoreAdjMin": 0},
  "exec": [{"path": "/bin/busybox", "sha256": ")" +
                       std::string(64, 'a') + R"("}], "scope": ["signal"], "identity": {"noNewPrivileges": true})";
}  // namespace

BOOST_AUTO_TEST_CASE(same_policy_allows_nothing_more) {
  auto b = parse(kB);
  BOOST_TEST(allows_more(b, b).empty());
}

BOOST_AUTO_TEST_CASE(each_section_where_a_is_looser) {
  auto b = parse(kB);
  auto a = parse(R"("memory": {"limit": "1GiB"}, "pids": {"limit": 100}, "namespaces": ["pid"],
    "syscalls": {"defaultAction": "log", "allow": ["read", "write", "ptrace"]}, "ports": {"bind": [80], "connect": [443]},
    "files": {"/tmp": ["read_file", "write_file"], "/etc": ["read_file"]},
    "exec": [{"path": "/bin/busybox", "sha256": ")" + std::string(64, 'b') + R"("}])");
  auto d = allows_more(a, b);
  for (auto s : {"memory.limit", "pids.limit", "namespaces", "syscalls.defaultAction", "syscalls.allow", "ports.bind",
                 "files /etc", "exec /bin/busybox", "scope", "identity.noNewPrivileges"})
    BOOST_TEST(has(d, s), s);
  // The other way, B is tighter everywhere, but its pin is another build: that one file.
  BOOST_TEST(sections(allows_more(b, a)) == std::vector<std::string>{"exec /bin/busybox"}, boost::test_tools::per_element());
  auto mem = std::ranges::find(d, std::string("memory.limit"), &Looser::section);
  BOOST_TEST(mem->client == "1 GiB");
  BOOST_TEST(mem->floor == "128 MiB");
  BOOST_TEST(describe_diff(*mem, "b.json") == "  memory.limit: 1 GiB (b.json: 128 MiB)");
}

BOOST_AUTO_TEST_CASE(a_section_a_leaves_out_is_unbounded_alone) {
  // Composition would take B's value for an absent section; a policy alone has none.
  auto b = parse(kB);
  auto a = parse("");
  auto d = allows_more(a, b);
  for (auto s : {"memory.limit", "pids.limit", "syscalls", "files", "ports", "exec", "namespaces", "scope", "priority"})
    BOOST_TEST(has(d, s), s);
  auto ex = std::ranges::find(d, std::string("exec"), &Looser::section);
  BOOST_TEST(ex->client == "no allowlist");
  BOOST_TEST(ex->floor == "1 pin");
}

BOOST_AUTO_TEST_CASE(grant_sections_absent_on_b_are_none) {
  auto b = parse("");
  auto a = parse(R"("role": "app")");
  BOOST_TEST(has(allows_more(a, b), "role"));
  BOOST_TEST(allows_more(b, a).empty());
}
