// The process.landlock block: every field, every error path (each naming the JSON path),
// and the round trip through landlock_to_json.
#define BOOST_TEST_MODULE oci_landlock
#include <boost/test/unit_test.hpp>

#include "oci/landlock.hpp"

using namespace sh;
using namespace sh::oci;

namespace {

const std::string kOrigin = "config.json: process.landlock";

constexpr uint64_t EXECUTE = 1ull << 0, WRITE_FILE = 1ull << 1, READ_FILE = 1ull << 2, READ_DIR = 1ull << 3,
                   REMOVE_DIR = 1ull << 4, REMOVE_FILE = 1ull << 5, MAKE_CHAR = 1ull << 6, MAKE_DIR = 1ull << 7,
                   MAKE_REG = 1ull << 8, MAKE_SOCK = 1ull << 9, MAKE_FIFO = 1ull << 10, MAKE_BLOCK = 1ull << 11,
                   MAKE_SYM = 1ull << 12, REFER = 1ull << 13, TRUNCATE = 1ull << 14, IOCTL_DEV = 1ull << 15;
constexpr uint64_t BIND_TCP = 1, CONNECT_TCP = 2;
constexpr uint64_t SCOPE_ABSTRACT = 1, SCOPE_SIGNAL = 2;

std::string error_of(const std::string& block) {
  auto r = parse_landlock(block, kOrigin);
  return r ? "" : r.error().what();
}

LandlockConfig ok(const std::string& block) {
  auto r = parse_landlock(block, kOrigin);
  BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
  return *r;
}

const char* kFull = R"({
  "ruleset": {
    "handledAccessFS": ["execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
                        "make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
                        "make_sym", "refer", "truncate", "ioctl_dev"],
    "handledAccessNet": ["bind_tcp", "connect_tcp"],
    "scoped": ["abstract_unix_socket", "signal"]
  },
  "rules": {
    "pathBeneath": [
      {"allowedAccess": ["execute", "read_file", "read_dir"], "paths": ["/usr", "/bin"]},
      {"allowedAccess": ["write_file", "truncate", "make_reg", "remove_file", "refer"], "paths": ["/tmp"]}
    ],
    "netPort": [
      {"allowedAccess": ["connect_tcp"], "ports": [443, 80]},
      {"allowedAccess": ["bind_tcp"], "ports": [0, 65535]}
    ]
  },
  "disableBestEffort": true
})";

}  // namespace

BOOST_AUTO_TEST_CASE(every_field) {
  auto c = ok(kFull);
  BOOST_TEST(c.handled_fs == (EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR |
                              MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM | REFER | TRUNCATE |
                              IOCTL_DEV));
  BOOST_TEST(c.handled_net == (BIND_TCP | CONNECT_TCP));
  BOOST_TEST(c.scoped == (SCOPE_ABSTRACT | SCOPE_SIGNAL));
  BOOST_REQUIRE(c.path_beneath.size() == 2u);
  BOOST_TEST(c.path_beneath[0].allowed == (EXECUTE | READ_FILE | READ_DIR));
  BOOST_TEST(c.path_beneath[0].paths == (std::vector<std::string>{"/usr", "/bin"}));
  BOOST_TEST(c.path_beneath[1].allowed == (WRITE_FILE | TRUNCATE | MAKE_REG | REMOVE_FILE | REFER));
  BOOST_REQUIRE(c.net_port.size() == 2u);
  BOOST_TEST(c.net_port[0].allowed == CONNECT_TCP);
  BOOST_TEST(c.net_port[0].ports == (std::vector<uint16_t>{443, 80}));
  BOOST_TEST(c.net_port[1].allowed == BIND_TCP);
  BOOST_TEST(c.net_port[1].ports == (std::vector<uint16_t>{0, 65535}));
  BOOST_TEST(c.disable_best_effort);
}

BOOST_AUTO_TEST_CASE(minimal_blocks_and_defaults) {
  auto c = ok(R"({"ruleset": {"handledAccessFS": ["read_file"]}})");
  BOOST_TEST(c.handled_fs == READ_FILE);
  BOOST_TEST(c.handled_net == 0u);
  BOOST_TEST(c.path_beneath.empty());
  BOOST_TEST(!c.disable_best_effort);  // best effort is the proposal's default
  // Scopes alone, network alone: each is a ruleset that restricts something.
  BOOST_TEST(ok(R"({"ruleset": {"scoped": ["signal"]}})").scoped == SCOPE_SIGNAL);
  BOOST_TEST(ok(R"({"ruleset": {"handledAccessNet": ["connect_tcp"]}})").handled_net == CONNECT_TCP);
  // handledAccessNet is the kernel's and landlockconfig's spelling; our first one is no alias.
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessNetwork": ["connect_tcp"]}})") ==
             "config.json: process.landlock.ruleset.handledAccessNetwork: unknown key (the network rights are "
             "\"handledAccessNet\")");
  // null reads as absent; duplicates are harmless.
  c = ok(R"({"ruleset": {"handledAccessFS": ["read_file", "read_file"], "scoped": null}, "rules": null,
             "disableBestEffort": false})");
  BOOST_TEST(c.handled_fs == READ_FILE);
  BOOST_TEST(c.scoped == 0u);
}

BOOST_AUTO_TEST_CASE(names_and_table) {
  BOOST_TEST(landlock_rights().size() == 20u);
  BOOST_TEST(find_landlock_right(LandlockKind::fs, "ioctl_dev")->abi == 5);
  BOOST_TEST(find_landlock_right(LandlockKind::fs, "refer")->abi == 2);
  BOOST_TEST(find_landlock_right(LandlockKind::fs, "truncate")->abi == 3);
  BOOST_TEST(find_landlock_right(LandlockKind::net, "bind_tcp")->abi == 4);
  BOOST_TEST(find_landlock_right(LandlockKind::scope, "signal")->abi == 6);
  BOOST_TEST(find_landlock_right(LandlockKind::fs, "bind_tcp") == nullptr);
  BOOST_TEST(landlock_names(LandlockKind::fs, READ_DIR | EXECUTE) == (std::vector<std::string>{"execute", "read_dir"}));
  BOOST_TEST((kLandlockFileRights == (EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV)));
}

BOOST_AUTO_TEST_CASE(unknown_rights_name_their_path) {
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file", "write_file"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["read_file"], "paths": ["/a"]},
                                {"allowedAccess": ["wirte_file"], "paths": ["/b"]}]}})") ==
             "config.json: process.landlock.rules.pathBeneath[1].allowedAccess[0]: "
             "unknown access right \"wirte_file\"");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file", "exec"]}})") ==
             "config.json: process.landlock.ruleset.handledAccessFS[1]: unknown access right \"exec\"");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessNet": ["bind_udp"]}})") ==
             "config.json: process.landlock.ruleset.handledAccessNet[0]: unknown access right \"bind_udp\"");
  BOOST_TEST(error_of(R"({"ruleset": {"scoped": ["ptrace"]}})") ==
             "config.json: process.landlock.ruleset.scoped[0]: unknown scope \"ptrace\"");
}

BOOST_AUTO_TEST_CASE(rights_of_the_wrong_kind) {
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["bind_tcp"]}})") ==
             "config.json: process.landlock.ruleset.handledAccessFS[0]: \"bind_tcp\" is a network right, not a "
             "filesystem right");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessNet": ["read_file"]}})") ==
             "config.json: process.landlock.ruleset.handledAccessNet[0]: \"read_file\" is a filesystem right, "
             "not a network right");
  BOOST_TEST(error_of(R"({"ruleset": {"scoped": ["connect_tcp"]}})") ==
             "config.json: process.landlock.ruleset.scoped[0]: \"connect_tcp\" is a network right, not a scope");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["signal"]}})") ==
             "config.json: process.landlock.ruleset.handledAccessFS[0]: \"signal\" is a scope, not a filesystem right");
}

BOOST_AUTO_TEST_CASE(rules_only_allow_handled_rights) {
  // The kernel refuses such a rule (EINVAL) at start; we refuse it at create.
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file"]},
      "rules": {"pathBeneath": [{"allowedAccess": ["read_file", "write_file"], "paths": ["/a"]}]}})") ==
             "config.json: process.landlock.rules.pathBeneath[0].allowedAccess[1]: \"write_file\" is not in "
             "ruleset.handledAccessFS (a rule can only allow a handled right)");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessNet": ["bind_tcp"]},
      "rules": {"netPort": [{"allowedAccess": ["connect_tcp"], "ports": [1]}]}})") ==
             "config.json: process.landlock.rules.netPort[0].allowedAccess[0]: \"connect_tcp\" is not in "
             "ruleset.handledAccessNet (a rule can only allow a handled right)");
  // Rules without any handled network right at all.
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file"]},
      "rules": {"netPort": [{"allowedAccess": ["connect_tcp"], "ports": [1]}]}})") ==
             "config.json: process.landlock.rules.netPort[0].allowedAccess[0]: \"connect_tcp\" is not in "
             "ruleset.handledAccessNet (a rule can only allow a handled right)");
}

BOOST_AUTO_TEST_CASE(rule_shapes) {
  const std::string rs = R"("ruleset": {"handledAccessFS": ["read_file"], "handledAccessNet": ["bind_tcp"]})";
  auto e = [&](const std::string& rules) { return error_of("{" + rs + R"(, "rules": )" + rules + "}"); };
  const std::string p = "config.json: process.landlock.rules";
  BOOST_TEST(e(R"({"pathBeneath": [{"paths": ["/a"]}]})") == p + ".pathBeneath[0].allowedAccess: required");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": [], "paths": ["/a"]}]})") ==
             p + ".pathBeneath[0].allowedAccess: must not be empty");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": "read_file", "paths": ["/a"]}]})") ==
             p + ".pathBeneath[0].allowedAccess: expected an array, got a string");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": ["read_file"]}]})") == p + ".pathBeneath[0].paths: required");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": ["read_file"], "paths": []}]})") ==
             p + ".pathBeneath[0].paths: must not be empty");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": ["read_file"], "paths": ["/a", "usr"]}]})") ==
             p + ".pathBeneath[0].paths[1]: \"usr\" is not an absolute path");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": ["read_file"], "paths": [""]}]})") ==
             p + ".pathBeneath[0].paths[0]: \"\" is not an absolute path");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": ["read_file"], "paths": [7]}]})") ==
             p + ".pathBeneath[0].paths[0]: expected a string, got a number");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": [1], "paths": ["/a"]}]})") ==
             p + ".pathBeneath[0].allowedAccess[0]: expected a string, got a number");
  BOOST_TEST(e(R"({"pathBeneath": [{"allowedAccess": ["read_file"], "paths": ["/a"], "path": "/b"}]})") ==
             p + ".pathBeneath[0].path: unknown key");
  BOOST_TEST(e(R"({"pathBeneath": {"allowedAccess": ["read_file"]}})") ==
             p + ".pathBeneath: expected an array, got an object");
  BOOST_TEST(e(R"({"pathBeneath": ["/a"]})") == p + ".pathBeneath[0]: expected an object, got a string");
  BOOST_TEST(e(R"({"netPort": [{"allowedAccess": ["bind_tcp"]}]})") == p + ".netPort[0].ports: required");
  BOOST_TEST(e(R"({"netPort": [{"allowedAccess": ["bind_tcp"], "ports": []}]})") ==
             p + ".netPort[0].ports: must not be empty");
  BOOST_TEST(e(R"({"netPort": [{"allowedAccess": ["bind_tcp"], "ports": [80, 65536]}]})") ==
             p + ".netPort[0].ports[1]: 65536 is out of range [0, 65535]");
  BOOST_TEST(e(R"({"netPort": [{"allowedAccess": ["bind_tcp"], "ports": [-1]}]})") ==
             p + ".netPort[0].ports[0]: -1 is out of range [0, 65535]");
  BOOST_TEST(e(R"({"netPort": [{"allowedAccess": ["bind_tcp"], "ports": ["80"]}]})") ==
             p + ".netPort[0].ports[0]: expected an integer, got a string");
  BOOST_TEST(e(R"({"netPort": [{"allowedAccess": ["bind_tcp"], "ports": [80], "port": 1}]})") ==
             p + ".netPort[0].port: unknown key");
  BOOST_TEST(e(R"({"netPort": [{"allowedAccess": [], "ports": [80]}]})") ==
             p + ".netPort[0].allowedAccess: must not be empty");
  BOOST_TEST(e(R"({"pathbeneath": []})") == p + ".pathbeneath: unknown key");
  BOOST_TEST(e(R"([])") == p + ": expected an object, got an array");
}

BOOST_AUTO_TEST_CASE(block_shapes) {
  const std::string p = "config.json: process.landlock";
  BOOST_TEST(error_of(R"([])") == p + ": expected an object, got an array");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file"]}, "disableBestEfort": true})") ==
             p + ".disableBestEfort: unknown key");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file"]}, "disableBestEffort": "yes"})") ==
             p + ".disableBestEffort: expected a boolean, got a string");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFs": ["read_file"]}})") ==
             p + ".ruleset.handledAccessFs: unknown key");
  BOOST_TEST(error_of(R"({"ruleset": []})") == p + ".ruleset: expected an object, got an array");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": "read_file"}})") ==
             p + ".ruleset.handledAccessFS: expected an array, got a string");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file"]}, "rules": []})") ==
             p + ".rules: expected an object, got an array");
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": ["read_file"]})").find(p + ": invalid JSON") == 0u);
}

BOOST_AUTO_TEST_CASE(a_ruleset_that_restricts_nothing_is_refused) {
  const std::string msg =
      "config.json: process.landlock: the ruleset handles nothing (handledAccessFS, handledAccessNet and scoped "
      "are all empty), so it would restrict nothing";
  BOOST_TEST(error_of("{}") == msg);
  BOOST_TEST(error_of(R"({"ruleset": {"handledAccessFS": [], "scoped": []}})") == msg);
  BOOST_TEST(error_of(R"({"disableBestEffort": true})") == msg);
}

BOOST_AUTO_TEST_CASE(parse_from_a_node) {
  auto doc = json::Document::parse(R"({"process": {"landlock": {"ruleset": {"scoped": ["nope"]}}}})", "config.json");
  BOOST_REQUIRE(doc.has_value());
  auto node = doc->root().get("process")->get("landlock");
  auto r = parse_landlock(*node);
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what() == "config.json: process.landlock.ruleset.scoped[0]: unknown scope \"nope\"");
}

BOOST_AUTO_TEST_CASE(round_trip) {
  auto c = ok(kFull);
  auto text = landlock_to_json(c);
  BOOST_TEST((ok(text) == c));
  BOOST_TEST((ok(landlock_to_json(c, true)) == c));
  // Sections with nothing in them are left out.
  LandlockConfig small;
  small.scoped = SCOPE_SIGNAL;
  BOOST_TEST(landlock_to_json(small) == R"({"ruleset":{"scoped":["signal"]}})");
  BOOST_TEST((ok(landlock_to_json(small)) == small));
}
