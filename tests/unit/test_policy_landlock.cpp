// The policy's files, ports, scope and exec sections: parsing, the Landlock block they map to,
// what an exec allowlist does to config.json, and composition (which only tightens).
#define BOOST_TEST_MODULE policy_landlock
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "oci/landlock.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/landlock_map.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

const std::string kHash1(64, 'a'), kHash2(64, 'b');

Policy parse(const std::string& body) {
  auto p = parse_policy(R"({"version": 1, "id": "t", )" + body + "}");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

std::string error_of(const std::string& body) {
  auto p = parse_policy(R"({"version": 1, "id": "t", )" + body + "}");
  return p ? "" : p.error().what();
}

uint64_t fs(std::initializer_list<const char*> names) {
  uint64_t m = 0;
  for (auto n : names) m |= oci::find_landlock_right(oci::LandlockKind::fs, n)->bit;
  return m;
}

std::string pin(const std::string& path, const std::string& hash) {
  return R"({"path": ")" + path + R"(", "sha256": ")" + hash + R"("})";
}

// Rights `p` grants at `path` (lexically: the union of its rules above the path).
uint64_t granted(const Policy& p, const std::string& path) {
  if (!p.files) return ~0ull;
  uint64_t m = 0;
  for (const auto& r : *p.files)
    if (r.path == "/" || r.path == path || path.starts_with(r.path + "/")) m |= r.access;
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sections_parse) {
  Policy p = parse(R"("files": {"/usr/": ["read_file", "read_dir"], "/tmp": ["write_file", "refer", "ioctl_dev"]},
                      "ports": {"bind": [8080], "connect": [443, 53]}, "scope": ["signal", "abstract_unix_socket"],
                      "exec": [)" + pin("/bin/busybox", kHash1) + "]");
  BOOST_REQUIRE(p.files);
  BOOST_REQUIRE(p.files->size() == 2u);
  BOOST_TEST((*p.files)[0].path == "/tmp");  // sorted; "/usr/" cleaned to "/usr"
  BOOST_TEST((*p.files)[0].access == fs({"write_file", "refer", "ioctl_dev"}));
  BOOST_TEST((*p.files)[1].path == "/usr");
  BOOST_TEST((p.ports->connect == std::vector<uint16_t>{53, 443}));
  BOOST_TEST((p.ports->bind == std::vector<uint16_t>{8080}));
  BOOST_TEST((*p.scope == std::vector<std::string>{"abstract_unix_socket", "signal"}));
  BOOST_TEST(p.exec->size() == 1u);
  // Written and read back: the same rules and the same hash.
  auto again = parse_policy(policy_to_json(p, true));
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(again->same_rules(p));
}

BOOST_AUTO_TEST_CASE(bad_sections_name_the_path) {
  BOOST_TEST(error_of(R"("files": {"/usr": ["read_fiel"]})") == "policy.json: files./usr[0]: unknown filesystem right \"read_fiel\"");
  BOOST_TEST(error_of(R"("files": {"usr": ["read_file"]})") == "policy.json: files.usr: \"usr\" is not an absolute path");
  BOOST_TEST(error_of(R"("files": {"/a/../etc": ["read_file"]})") == "policy.json: files./a/../etc: \"/a/../etc\" contains \"..\"");
  BOOST_TEST(error_of(R"("files": {"/usr": []})") == "policy.json: files./usr: must grant at least one right");
  BOOST_TEST(error_of(R"("files": {"/usr": ["bind_tcp"]})") == "policy.json: files./usr[0]: unknown filesystem right \"bind_tcp\"");
  BOOST_TEST(error_of(R"("files": {"/usr": ["read_file"], "/usr/": ["read_dir"]})") ==
             "policy.json: files./usr/: names \"/usr\" again");
  BOOST_TEST(error_of(R"("ports": {"connect": [70000]})") == "policy.json: ports.connect[0]: 70000 is out of range [0, 65535]");
  BOOST_TEST(error_of(R"("ports": {"connect": [443, 443]})") == "policy.json: ports.connect[1]: duplicate port 443");
  BOOST_TEST(error_of(R"("ports": {"listen": [1]})") == "policy.json: ports.listen: unknown key");
  BOOST_TEST(error_of(R"("scope": ["signals"])") ==
             "policy.json: scope[0]: unknown scope \"signals\" (abstract_unix_socket, signal)");
  BOOST_TEST(error_of(R"("exec": [{"path": "/bin/sh", "sha256": "ABC"}])") ==
             "policy.json: exec[0].sha256: \"ABC\" is not a SHA-256 (64 lowercase hex digits)");
  BOOST_TEST(error_of(R"("exec": [{"path": "/bin/sh"}])") == "policy.json: exec[0].sha256: required");
  BOOST_TEST(error_of(R"("exec": [)" + pin("/bin/sh", kHash1) + ", " + pin("/bin/sh", kHash2) + "]") ==
             "policy.json: exec[1].path: duplicate \"/bin/sh\"");
  // With an allowlist, execute comes from it alone.
  BOOST_TEST(error_of(R"("files": {"/bin": ["execute"]}, "exec": [)" + pin("/bin/sh", kHash1) + "]") ==
             "policy.json: files./bin: \"execute\" is granted only by the exec section (pinned binaries) when the "
             "policy has one");
}

BOOST_AUTO_TEST_CASE(block_from_the_sections) {
  BOOST_TEST(!landlock_block(parse(R"("pids": {"limit": 4})")));
  BOOST_TEST(!landlock_block(parse(R"("scope": [])")));  // handles nothing: no layer at all
  Policy p = parse(R"("files": {"/etc": ["read_file"]}, "ports": {"connect": [443]}, "scope": ["signal"],
                      "exec": [)" + pin("/bin/busybox", kHash1) + "]");
  auto b = landlock_block(p);
  BOOST_REQUIRE(b);
  BOOST_TEST(b->handled_fs == 0xffffull);  // every filesystem right up to ABI 7
  BOOST_TEST(b->disable_best_effort);      // bestEffort false (the default)
  BOOST_TEST(b->canonical_paths);
  BOOST_REQUIRE(b->path_beneath.size() == 2u);
  BOOST_TEST(b->path_beneath[0].allowed == fs({"read_file"}));
  BOOST_TEST(b->path_beneath[1].allowed == fs({"execute", "read_file"}));  // execve opens for reading too
  BOOST_TEST((b->path_beneath[1].paths == std::vector<std::string>{"/bin/busybox"}));
  BOOST_TEST(b->handled_net == 3u);
  BOOST_REQUIRE(b->net_port.size() == 1u);  // no bind rule: binding is denied on every port
  BOOST_TEST(b->net_port[0].allowed == 2u);
  BOOST_TEST(b->scoped == 2u);
  // The block is a valid process.landlock block (the runtime parses it back).
  auto back = oci::parse_landlock(oci::landlock_to_json(*b), "sharness.landlock");
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  // exec alone handles execute only.
  auto e = landlock_block(parse(R"("bestEffort": true, "exec": [)" + pin("/bin/busybox", kHash1) + "]"));
  BOOST_REQUIRE(e);
  BOOST_TEST(e->handled_fs == fs({"execute"}));
  BOOST_TEST(e->path_beneath[0].allowed == fs({"execute"}));
  BOOST_TEST(!e->disable_best_effort);
}

// With TCP handled (a ports section), the mesh's TCP ends are granted: connect to each TCP
// edge's local port, bind the TCP service port; UNIX edges add nothing, and without a ports
// section TCP stays unhandled.
BOOST_AUTO_TEST_CASE(tcp_edges_get_port_rules) {
  const char* mesh = R"("role": "app", "network": "loopback",
      "edges": [{"to": "db", "over": "unix"}, {"to": "cache", "over": "tcp", "port": 16379},
                {"to": "web", "over": "tcp", "port": 443}],
      "accepts": {"roles": ["front"], "over": "tcp", "port": 8080})";
  auto b = landlock_block(parse(std::string(mesh) + R"(, "ports": {"connect": [443, 53]})"));
  BOOST_REQUIRE(b);
  BOOST_TEST(b->handled_net == 3u);
  BOOST_REQUIRE(b->net_port.size() == 2u);
  const uint64_t bind = oci::find_landlock_right(oci::LandlockKind::net, "bind_tcp")->bit;
  const uint64_t connect = oci::find_landlock_right(oci::LandlockKind::net, "connect_tcp")->bit;
  BOOST_TEST(b->net_port[0].allowed == bind);
  BOOST_TEST((b->net_port[0].ports == std::vector<uint16_t>{8080}));
  BOOST_TEST(b->net_port[1].allowed == connect);
  BOOST_TEST((b->net_port[1].ports == std::vector<uint16_t>{53, 443, 16379}));  // sorted, 443 once
  // UNIX accepts: no bind rule, binding stays denied everywhere.
  auto u = landlock_block(parse(R"("role": "app", "network": "loopback", "ports": {},
      "edges": [{"to": "cache", "over": "tcp", "port": 16379}], "accepts": {"roles": ["front"], "over": "unix"})"));
  BOOST_REQUIRE(u);
  BOOST_REQUIRE(u->net_port.size() == 1u);
  BOOST_TEST(u->net_port[0].allowed == connect);
  BOOST_TEST((u->net_port[0].ports == std::vector<uint16_t>{16379}));
  // No ports section: TCP not handled, no layer from the mesh alone.
  BOOST_TEST(!landlock_block(parse(mesh)));
  // The block still parses back as a process.landlock block.
  auto back = oci::parse_landlock(oci::landlock_to_json(*b), "sharness.landlock");
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
}

BOOST_AUTO_TEST_CASE(exec_allowlist_tightens_the_config) {
  Policy p = parse(R"("exec": [)" + pin("/bin/busybox", kHash1) + "]");
  oci::Config c;
  c.process.emplace();
  c.mounts = {{"/proc", "proc", "proc", {}, {}, {}},
              {"/dev", "tmpfs", "tmpfs", {"nosuid", "mode=755"}, {}, {}},
              {"/data", "bind", "/srv", {"rbind", "exec"}, {}, {}},
              {"/sys", "sysfs", "sysfs", {"nosuid", "ro"}, {}, {}}};
  c.linux.namespaces = {{"pid", "/proc/1/ns/pid"}, {"mount", ""}};
  c.linux.sysctl["vm.memfd_noexec"] = "0";
  Extension ext;
  BOOST_REQUIRE(apply_to_config(p, c, ext, host::probe()));
  BOOST_TEST(c.root.readonly);
  auto has = [](const oci::Mount& m, const char* o) { return std::ranges::find(m.options, o) != m.options.end(); };
  BOOST_TEST(has(c.mounts[0], "noexec"));
  BOOST_TEST(has(c.mounts[1], "noexec"));
  BOOST_TEST(has(c.mounts[2], "noexec"));
  BOOST_TEST(!has(c.mounts[2], "exec"));
  BOOST_TEST(!has(c.mounts[3], "noexec"));  // read-only: nothing can be written there to run
  BOOST_TEST(c.linux.namespaces[0].path.empty());  // a joined pid namespace becomes a new one
  BOOST_TEST(c.linux.sysctl["vm.memfd_noexec"] == "2");
  BOOST_REQUIRE(ext.exec);
  BOOST_TEST(ext.exec->at(0).path == "/bin/busybox");
  BOOST_REQUIRE(ext.landlock);
  // The extension carries both, and reads them back.
  auto doc = json::Document::parse(extension_to_json(ext), "config.json");
  BOOST_REQUIRE(doc);
  auto back = parse_extension(json::Value(doc->root().raw(), "config.json: sharness"));
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST((*back->exec == *ext.exec));
  BOOST_TEST((*back->landlock == *ext.landlock));
  // Without exec nothing of this happens.
  oci::Config plain;
  plain.process.emplace();
  plain.mounts = {{"/dev", "tmpfs", "tmpfs", {"nosuid"}, {}, {}}};
  BOOST_REQUIRE(apply_to_config(parse(R"("files": {"/": ["read_file"]})"), plain, ext, host::probe()));
  BOOST_TEST(!plain.root.readonly);
  BOOST_TEST(!has(plain.mounts[0], "noexec"));
  BOOST_TEST(!plain.linux.sysctl.contains("vm.memfd_noexec"));
}

BOOST_AUTO_TEST_CASE(files_intersect_by_path_and_right) {
  Policy a = parse(R"("files": {"/usr": ["read_file", "read_dir"], "/tmp": ["read_file", "write_file"], "/srv": ["read_file"]})");
  Policy b = parse(R"("files": {"/usr/lib": ["read_file", "execute"], "/": ["write_file"], "/home": ["read_file"]})");
  Policy r = intersect(a, b);
  BOOST_REQUIRE(r.files);
  // /usr/lib: a's /usr (read_file read_dir) and b's /usr/lib (read_file execute) -> read_file;
  // /tmp, /srv, /usr: b's "/" grants write_file only -> /tmp keeps write_file, /srv and /usr nothing.
  std::vector<std::pair<std::string, uint64_t>> got;
  for (const auto& f : *r.files) got.emplace_back(f.path, f.access);
  std::vector<std::pair<std::string, uint64_t>> want = {{"/tmp", fs({"write_file"})}, {"/usr/lib", fs({"read_file"})}};
  BOOST_TEST((got == want));
  // No place gets a right that either side denies there.
  for (auto path : {"/", "/usr", "/usr/lib", "/usr/lib/x", "/tmp", "/tmp/a", "/srv", "/home", "/etc"}) {
    BOOST_TEST((granted(r, path) & ~granted(a, path)) == 0u, path);
    BOOST_TEST((granted(r, path) & ~granted(b, path)) == 0u, path);
  }
  // "/usrx" is not beneath "/usr".
  Policy c = parse(R"("files": {"/usrx": ["read_file"]})");
  BOOST_TEST(intersect(a, c).files->empty());
  // Absent is "not handled": the other side's rules stand.
  BOOST_TEST((*intersect(a, parse(R"("pids": {"limit": 3})")).files == *a.files));
}

BOOST_AUTO_TEST_CASE(ports_scope_and_exec_compose) {
  Policy a = parse(R"("ports": {"bind": [80, 8080], "connect": [443]}, "scope": ["signal"],
                      "exec": [)" + pin("/bin/busybox", kHash1) + ", " + pin("/bin/tool", kHash1) + "]");
  Policy b = parse(R"("ports": {"bind": [8080], "connect": [53, 443]}, "scope": ["abstract_unix_socket"],
                      "exec": [)" + pin("/bin/busybox", kHash1) + ", " + pin("/bin/tool", kHash2) + ", " +
                   pin("/bin/other", kHash1) + "]");
  Policy r = intersect(a, b);
  BOOST_TEST((r.ports->bind == std::vector<uint16_t>{8080}));
  BOOST_TEST((r.ports->connect == std::vector<uint16_t>{443}));
  BOOST_TEST((*r.scope == std::vector<std::string>{"abstract_unix_socket", "signal"}));  // scopes restrict: union
  // Only the same path with the same content is in both allowlists.
  BOOST_REQUIRE(r.exec->size() == 1u);
  BOOST_TEST(r.exec->at(0).path == "/bin/busybox");
  // A side without exec but with files that grant execute: pins survive only under its execute rules,
  // and execute leaves the files rules (it comes from the pins alone).
  Policy files = parse(R"("files": {"/bin": ["execute", "read_file"], "/opt": ["execute"]})");
  Policy f = intersect(files, a);
  BOOST_REQUIRE(f.exec);
  BOOST_TEST(f.exec->size() == 2u);
  Policy narrow = parse(R"("files": {"/opt": ["execute"], "/bin": ["read_file"]})");
  Policy n = intersect(narrow, a);
  BOOST_TEST(n.exec->empty());  // nothing pinned is executable under narrow
  for (const auto& rule : *n.files) BOOST_TEST((rule.access & fs({"execute"})) == 0u);
  // The composition is a valid policy (its hash is over this text).
  auto again = parse_policy(policy_to_json(f));
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  BOOST_TEST(again->same_rules(f));
}
