// json::Document refuses nesting deeper than json::kMaxDepth before yajl builds a tree
// (BUG-2: 100000 levels overflowed the stack), counts only brackets outside strings, and
// whatever it accepts the Writer can emit again.
#define BOOST_TEST_MODULE json_depth
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "base/json.hpp"
#include "oci/config.hpp"

using namespace sh;

namespace {

std::string repo() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/unit/"));
}

std::string nested(size_t n, char open = '[', char close = ']') {
  return std::string(n, open) + std::string(n, close);
}

std::string nested_objects(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += "{\"a\":";
  s += "1";
  s += std::string(n, '}');
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(at_the_limit_parses_and_round_trips) {
  for (auto text : {nested(json::kMaxDepth), nested_objects(json::kMaxDepth)}) {
    auto d = json::Document::parse(text, "t.json");
    BOOST_REQUIRE_MESSAGE(d.has_value(), (d ? std::string() : d.error().what()));
    json::Writer w;
    w.value(d->root().raw());
    BOOST_TEST(w.str() == text);  // yajl_gen's own depth limit (128) is not reached
  }
}

BOOST_AUTO_TEST_CASE(one_level_more_is_refused_naming_the_depth) {
  for (auto text : {nested(json::kMaxDepth + 1), nested_objects(json::kMaxDepth + 1)}) {
    auto d = json::Document::parse(text, "t.json");
    BOOST_REQUIRE(!d.has_value());
    BOOST_TEST(d.error().what().find("t.json: invalid JSON: nested deeper than 100 levels") == 0u,
               d.error().what());
  }
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_an_error_not_a_crash) {
  // 1 000 000 levels: was a SIGSEGV in check_duplicates (and yajl_tree_free) before.
  auto d = json::Document::parse("{\"a\":" + nested(1000000) + "}", "config.json");
  BOOST_REQUIRE(!d.has_value());
  BOOST_TEST(d.error().what().find("nested deeper than 100 levels (at byte 104)") != std::string::npos,
             d.error().what());
}

BOOST_AUTO_TEST_CASE(brackets_inside_strings_do_not_count) {
  std::string s = "{\"k\\\"[{\": \"" + nested(5000) + "\\\\\", \"v\": [\"]]]]\"]}";
  auto d = json::Document::parse(s, "t.json");
  BOOST_REQUIRE_MESSAGE(d.has_value(), (d ? std::string() : d.error().what()));
  BOOST_TEST(d->root().get("v")->size() == 1u);
}

BOOST_AUTO_TEST_CASE(unbalanced_closers_do_not_hide_depth) {
  // Extra closers are yajl's to refuse; they must not let deeper nesting through.
  auto d = json::Document::parse("]]]]" + nested(json::kMaxDepth + 1), "t.json");
  BOOST_REQUIRE(!d.has_value());
  BOOST_TEST(d.error().what().find("nested deeper") != std::string::npos, d.error().what());
}

BOOST_AUTO_TEST_CASE(config_json_in_the_regression_corpus_is_refused) {
  // The input the bad-input suite found (fuzz/regressions/config/).
  std::ifstream f(repo() + "/fuzz/regressions/config/deep-nesting-100000-levels.json");
  BOOST_REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  auto c = oci::parse_config(ss.str());
  BOOST_REQUIRE(!c.has_value());
  BOOST_TEST(c.error().what().find("config.json: invalid JSON: nested deeper than 100 levels") == 0u,
             c.error().what());
}
