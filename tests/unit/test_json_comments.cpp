// JSON with one reading (docs/policy.md "Claims"): json::Document::parse refuses comments (yajl_tree_parse would
// accept them, Go's decoder would not), so the depth scan, is_one_object and the parser agree on
// every byte; the Writer checks every yajl_gen status and stops at the first failure.
#define BOOST_TEST_MODULE json_comments
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/json.hpp"
#include "oci/config.hpp"
#include "oci/config_write.hpp"
#include "runtime/lifecycle/state_store.hpp"
#include "spec-mapping/policy.hpp"

using namespace sh;

namespace {
std::string error_of(const std::string& text) {
  auto d = json::Document::parse(text, "t.json");
  return d ? "" : d.error().what();
}

// n levels of arrays, each followed by a comment holding a closing bracket: a comment-blind scan
// counts [ ] [ ] ... (depth 1), yajl counts n.
std::string interleaved(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += "[/*]*/";
  return s + std::string(n, ']');
}
}  // namespace

BOOST_AUTO_TEST_CASE(comments_are_refused_naming_the_byte) {
  BOOST_TEST(error_of(R"({"a": /* x */ 1})") == "t.json: invalid JSON: a comment at byte 6 (comments are not JSON, "
                                                "and other readers of this document would not see what we see)");
  BOOST_TEST(error_of("{\"a\": 1 // x\n}").find("a comment at byte 8") != std::string::npos);
  BOOST_TEST(error_of("/**/{}").find("a comment at byte 0") != std::string::npos);
  BOOST_TEST(error_of(R"({"a": 1}/)").find("a comment at byte 8") != std::string::npos);
  // a key hidden from one reader: a comment-stripper sees one hostname, a text scan two
  BOOST_TEST(error_of(R"({/* "hostname": "evil", */ "hostname": "good"})").find("a comment") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(slashes_in_strings_are_data) {
  auto d = json::Document::parse(R"({"path": "/a/*b*/c//d", "e\"/*": "\/"})", "t.json");
  BOOST_REQUIRE_MESSAGE(d, (d ? "" : d.error().what()));
  BOOST_TEST(*d->root().get("path")->as_string() == "/a/*b*/c//d");
  BOOST_TEST(*d->root().get("e\"/*")->as_string() == "/");
}

BOOST_AUTO_TEST_CASE(depth_hidden_behind_comments_is_refused_not_walked) {
  // 200000 levels: the duplicate-key walk overflowed the stack; 150: yajl's generator wrote past
  // its 128-entry state array when the config's sharness block was re-encoded.
  for (size_t n : {size_t(200000), size_t(150)}) {
    std::string e = error_of("{\"a\":" + interleaved(n) + "}");
    BOOST_TEST(e.find("a comment at byte 6") != std::string::npos, e);
    auto c = oci::parse_config(R"({"ociVersion": "1.0.2", "sharness": {"a": )" + interleaved(n) + "}}", "config.json");
    BOOST_REQUIRE(!c);
    BOOST_TEST(c.error().what().find("config.json: invalid JSON: a comment at byte") == 0u, c.error().what());
  }
  // brackets only inside a comment
  BOOST_TEST(error_of("{\"a\": /*" + std::string(150, '[') + "*/ 1}").find("a comment at byte 6") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(is_one_object_reads_as_the_parser_does) {
  BOOST_TEST(json::is_one_object(R"({"a": "/*}"})"));
  BOOST_TEST(!json::is_one_object(R"({"a": 1 /* } */})"));
  BOOST_TEST(!json::is_one_object(R"({"a": 1}/*x*/)"));
  BOOST_TEST(!json::is_one_object(R"({"a": 1}{"b": 2})"));
}

BOOST_AUTO_TEST_CASE(writer_stops_at_the_first_failed_status) {
  // 300 opens: yajl refuses the 128th; the writer keeps that status and never calls yajl again
  // (calling on wrote past yajl's state array: ASan in the fuzz build).
  json::Writer w;
  for (int i = 0; i < 300; ++i) w.begin_array();
  for (int i = 0; i < 300; ++i) w.end_array();
  BOOST_TEST(!w.ok());
  auto t = w.text();
  BOOST_REQUIRE(!t);
  BOOST_TEST(t.error().what() == "JSON generation failed: nested deeper than the generator's limit");
  json::Writer n;
  n.number(std::numeric_limits<double>::quiet_NaN());
  BOOST_TEST(!n.text());
  json::Writer k;
  k.begin_object().integer(1);  // a key must be a string
  BOOST_TEST(!k.text());
}

BOOST_AUTO_TEST_CASE(kept_blocks_that_do_not_parse_fail_the_write) {
  // A config whose kept sharness block (or process.landlock) is not JSON is an error, never a
  // config written without it: exec reads the saved block for its stacked filter.
  oci::Config c;
  c.oci_version = "1.0.2";
  c.sharness_json = R"({"policy": {"id": "x", "hash": "y"} /* */})";
  auto t = oci::config_to_json(c, false);
  BOOST_REQUIRE(!t);
  BOOST_TEST(t.error().what().find("config.json: sharness: invalid JSON: a comment") == 0u, t.error().what());
  c.sharness_json = R"({"policy": )";
  BOOST_TEST(!oci::config_to_json(c, false));
  BOOST_TEST(!oci::config_to_json(c, true));
  c.sharness_json = R"({"policy": {"id": "x", "hash": "y"}})";
  auto ok = oci::config_to_json(c, false);
  BOOST_REQUIRE(ok);
  BOOST_TEST(ok->ends_with(R"(,"sharness":{"policy": {"id": "x", "hash": "y"}}})"), *ok);  // spliced as it is
  c.sharness_json.reset();
  c.process.emplace();
  c.process->landlock_json = "{\"ruleset\": // x\n{}}";
  auto l = oci::config_to_json(c, false);
  BOOST_REQUIRE(!l);
  BOOST_TEST(l.error().what().find("config.json: process.landlock: invalid JSON: a comment") == 0u, l.error().what());
}

BOOST_AUTO_TEST_CASE(the_fuzz_regressions_are_refused_cleanly) {
  // fuzz/regressions/config/comment-*: one input per finding (depth hidden in
  // comments, in the sharness block, a hidden key, a commented block): each an error, no crash.
  std::string f = __FILE__;
  std::string dir = f.substr(0, f.rfind("/tests/unit/")) + "/fuzz/regressions/config";
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.path().filename().string().starts_with("comment-")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    auto c = oci::parse_config(ss.str(), "config.json");
    BOOST_TEST(!c.has_value(), e.path());
    if (!c) BOOST_TEST(c.error().what().find("invalid JSON: a comment at byte") != std::string::npos, c.error().what());
    ++n;
  }
  BOOST_TEST(n >= 5u);
}

BOOST_AUTO_TEST_CASE(every_reader_refuses_them) {
  // exec --process, update --resources, a policy, the state store: one parser, one rule.
  auto p = oci::parse_process_json(R"({"args": ["sh"], "cwd": "/" /* , "noNewPrivileges": false */})", "process.json");
  BOOST_REQUIRE(!p);
  BOOST_TEST(p.error().what().find("process.json: invalid JSON: a comment") == 0u, p.error().what());
  auto r = oci::parse_resources_json(R"({"pids": {"limit": 4} // , "pids": {"limit": 1000}
  })", "resources");
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("resources: invalid JSON: a comment") == 0u, r.error().what());
  auto pol = policy::parse_policy(R"({"id": "c", "version": 1 /* , "pids": {"limit": 100000} */})", "policy.json");
  BOOST_REQUIRE(!pol);
  BOOST_TEST(pol.error().what().find("invalid JSON: a comment") != std::string::npos, pol.error().what());
  auto st = lifecycle::record_from_json(R"({"id": "x" /* */})", "state.json");
  BOOST_REQUIRE(!st);
  BOOST_TEST(st.error().what().find("state.json: invalid JSON: a comment") == 0u, st.error().what());
}
