// Canonical JSON and the policy hash: stable across formatting, different for different content.
#define BOOST_TEST_MODULE policy_canonical
#include <boost/test/unit_test.hpp>

#include "spec-mapping/canonical.hpp"
#include "spec-mapping/policy.hpp"

using namespace sh;
using namespace sh::policy;

namespace {
std::string canon(const std::string& text) {
  auto c = canonicalize(text, "t.json");
  return c ? *c : "ERROR " + c.error().what();
}
std::string hash_of(const std::string& text) {
  auto p = parse_policy(text);
  return p ? p->hash : "ERROR " + p.error().what();
}
}  // namespace

BOOST_AUTO_TEST_CASE(sorted_keys_no_whitespace_numbers_as_given) {
  BOOST_TEST(canon(R"({ "b": 1, "a": {"z": [3, 2, 1], "y": null} })") == R"({"a":{"y":null,"z":[3,2,1]},"b":1})");
  // Numbers keep their source text: no float round trip, no exponent rewriting.
  BOOST_TEST(canon(R"({"x": 1.50, "y": 1e3, "z": -0, "w": 18446744073709551616})") ==
             R"({"w":18446744073709551616,"x":1.50,"y":1e3,"z":-0})");
  // Strings are re-escaped one way.
  BOOST_TEST(canon("{\"s\": \"a\\u0041\\n\\\"\\/\"}") == "{\"s\":\"aA\\n\\\"/\"}");
  // Keys sort by bytes: upper case before lower case.
  BOOST_TEST(canon(R"({"b": true, "B": false, "a": 0})") == R"({"B":false,"a":0,"b":true})");
  BOOST_TEST(canon("[ ]") == "[]");
}

BOOST_AUTO_TEST_CASE(duplicate_keys_and_bad_json_are_errors) {
  BOOST_TEST(canon(R"({"a": {"k": 1, "k": 2}})") == "ERROR t.json: a.k: duplicate key");
  BOOST_TEST(canon("{").starts_with("ERROR t.json: invalid JSON"));
}

BOOST_AUTO_TEST_CASE(sha256_known_answer) {
  BOOST_TEST(*sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  BOOST_TEST(*sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

BOOST_AUTO_TEST_CASE(hash_is_stable_across_reformatting) {
  std::string a = R"({"id":"p","version":1,"memory":{"limit":"128MiB","addressSpace":"128MiB"},"pids":{"limit":4}})";
  std::string b = "{\n  \"pids\" : { \"limit\" : 4 },\n\t\"version\": 1,\n  \"memory\": {\n    \"addressSpace\": \"128MiB\",\n"
                  "    \"limit\": \"128MiB\"\n  },\n  \"id\": \"p\"\n}\n";
  BOOST_TEST(hash_of(a) == hash_of(b));
  BOOST_TEST(hash_of(a).size() == 64u);
  BOOST_TEST(hash_of(a) == *policy_hash(a));
  BOOST_TEST(hash_of(a) == *sha256_hex(canon(b)));
}

BOOST_AUTO_TEST_CASE(hash_differs_for_different_content) {
  std::string base = R"({"id":"p","version":1,"pids":{"limit":4}})";
  BOOST_TEST(hash_of(base) != hash_of(R"({"id":"p","version":1,"pids":{"limit":5}})"));
  BOOST_TEST(hash_of(base) != hash_of(R"({"id":"q","version":1,"pids":{"limit":4}})"));
  BOOST_TEST(hash_of(base) != hash_of(R"({"id":"p","version":1,"pids":{"limit":4},"bestEffort":false})"));
  // Order inside an array is content (an allowlist's order is not, but we do not guess).
  BOOST_TEST(hash_of(R"({"id":"p","version":1,"devices":["null","zero"]})") !=
             hash_of(R"({"id":"p","version":1,"devices":["zero","null"]})"));
}
