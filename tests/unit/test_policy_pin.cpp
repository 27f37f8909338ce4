// `policy pin`'s rewrite (spec-mapping/pin): only the digests that changed change, the text
// around them is kept, the hash follows, and what cannot be rewritten in place is rewritten
// from the model.
#define BOOST_TEST_MODULE policy_pin
#include <boost/test/unit_test.hpp>

#include <map>

#include "spec-mapping/pin.hpp"
#include "spec-mapping/policy.hpp"

using namespace sh;
using namespace sh::policy;

namespace {
const std::string A(64, 'a'), B(64, 'b'), C(64, 'c'), D(64, 'd');

std::string doc(const std::string& busybox, const std::string& sh, const std::string& desc = "two pins") {
  return "{\n  \"id\": \"t\",\n  \"version\": 1,\n  \"description\": \"" + desc +
         "\",\n  \"memory\": {\"limit\": \"128MiB\"},\n  \"exec\": [\n"
         "    {\"path\": \"/bin/busybox\", \"sha256\": \"" + busybox + "\"},\n"
         "    {\"path\": \"/bin/sh\",  \"sha256\": \"" + sh + "\"}\n  ]\n}\n";
}

// The lookup of a rootfs: each path to the pin found there (Debian 12's /bin -> usr/bin moves it).
auto moved(std::map<std::string, Pin> files) {
  return [files](const std::string& path) -> Result<Pin> {
    auto it = files.find(path);
    if (it == files.end()) return fail("exec allowlist: " + path + ": not found in the rootfs");
    return it->second;
  };
}

// A rootfs without links: each path to its digest.
auto from(const std::map<std::string, std::string>& digests) {
  std::map<std::string, Pin> files;
  for (const auto& [path, sha] : digests) files[path] = Pin{path, sha};
  return moved(std::move(files));
}
}  // namespace

BOOST_AUTO_TEST_CASE(changed_digest_only_that_literal_changes) {
  auto r = repin(doc(A, B), "t.json", from({{"/bin/busybox", C}, {"/bin/sh", B}}));
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  BOOST_TEST(r->text == doc(C, B));  // formatting and "128MiB" kept
  BOOST_REQUIRE(r->changes.size() == 1u);
  BOOST_TEST(r->changes[0].path == "/bin/busybox");
  BOOST_TEST(r->changes[0].old_sha256 == A);
  BOOST_TEST(r->changes[0].new_sha256 == C);
  BOOST_TEST(r->pins == 2u);
  BOOST_TEST(r->old_hash == parse_policy(doc(A, B))->hash);
  BOOST_TEST(r->new_hash == parse_policy(doc(C, B))->hash);
  BOOST_TEST(r->old_hash != r->new_hash);
  auto report = format_changes(*r);
  BOOST_TEST(report.find("/bin/busybox: " + A + " -> " + C + "\n") != std::string::npos);
  BOOST_TEST(report.find("1 of 2 pins changed; hash " + r->old_hash + " -> " + r->new_hash) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(nothing_changed_same_text_same_hash) {
  auto r = repin(doc(A, B), "t.json", from({{"/bin/busybox", A}, {"/bin/sh", B}}));
  BOOST_REQUIRE(r);
  BOOST_TEST(r->changes.empty());
  BOOST_TEST(r->text == doc(A, B));
  BOOST_TEST(r->new_hash == r->old_hash);
  BOOST_TEST(format_changes(*r).find("no pin changed (2 checked)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(digest_also_in_the_description_is_rewritten_from_the_model) {
  // The literal "A" appears in the description too: replacing text would change it, so the
  // policy is written from the model, the description intact and only the pin changed.
  auto r = repin(doc(A, B, A), "t.json", from({{"/bin/busybox", C}, {"/bin/sh", B}}));
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  auto p = parse_policy(r->text);
  BOOST_REQUIRE(p);
  BOOST_TEST(p->description == A);
  BOOST_REQUIRE(p->exec);
  BOOST_TEST((*p->exec)[0].sha256 == C);
  BOOST_TEST((*p->exec)[1].sha256 == B);
  BOOST_TEST(p->memory->limit.value_or(0) == 128ull << 20);
  BOOST_TEST(r->new_hash == p->hash);
}

BOOST_AUTO_TEST_CASE(shared_old_digest_split_in_two) {
  // Two pins had the same content; now they differ: one literal replacement cannot say that.
  auto r = repin(doc(A, A), "t.json", from({{"/bin/busybox", C}, {"/bin/sh", D}}));
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  auto p = parse_policy(r->text);
  BOOST_REQUIRE(p);
  BOOST_TEST((*p->exec)[0].sha256 == C);
  BOOST_TEST((*p->exec)[1].sha256 == D);
  BOOST_TEST(r->changes.size() == 2u);
}

BOOST_AUTO_TEST_CASE(errors_name_the_file_and_the_pin) {
  auto missing = repin(doc(A, B), "t.json", from({{"/bin/busybox", A}}));
  BOOST_REQUIRE(!missing);
  BOOST_TEST(missing.error().what().find("/bin/sh: not found in the rootfs") != std::string::npos);
  auto no_exec = repin(R"({"id": "t", "version": 1})", "t.json", from({}));
  BOOST_REQUIRE(!no_exec);
  BOOST_TEST(no_exec.error().what().find("t.json: exec: absent") != std::string::npos);
  auto bad = repin(R"({"id": "t", "version": 1, "exec": [{"path": "/bin/sh"}]})", "t.json", from({}));
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what().find("t.json: exec[0].sha256") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(symlinked_pin_moves_to_its_canonical_path) {
  auto r = repin(doc(A, B), "t.json",
                 moved({{"/bin/busybox", {"/usr/bin/busybox", A}}, {"/bin/sh", {"/bin/sh", C}}}));
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  auto p = parse_policy(r->text);
  BOOST_REQUIRE(p);
  BOOST_REQUIRE(p->exec->size() == 2u);
  BOOST_TEST((*p->exec)[0].path == "/bin/sh");
  BOOST_TEST((*p->exec)[0].sha256 == C);
  BOOST_TEST((*p->exec)[1].path == "/usr/bin/busybox");
  BOOST_TEST((*p->exec)[1].sha256 == A);
  BOOST_TEST(r->text.find("\"/usr/bin/busybox\"") != std::string::npos);  // edited in place
  BOOST_TEST(r->text.find("128MiB") != std::string::npos);
  auto report = format_changes(*r);
  BOOST_TEST(report.find("/bin/busybox -> /usr/bin/busybox: unchanged " + A + "\n") != std::string::npos);
  BOOST_TEST(report.find("/bin/sh: " + B + " -> " + C + "\n") != std::string::npos);
  BOOST_TEST(r->new_hash == p->hash);
}

BOOST_AUTO_TEST_CASE(two_links_to_one_file_become_one_pin) {
  // /bin/busybox and /bin/sh both lead to /usr/bin/busybox: one pin is left.
  auto r = repin(doc(A, A), "t.json",
                 moved({{"/bin/busybox", {"/usr/bin/busybox", A}}, {"/bin/sh", {"/usr/bin/busybox", A}}}));
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  auto p = parse_policy(r->text);
  BOOST_REQUIRE(p);
  BOOST_REQUIRE(p->exec->size() == 1u);
  BOOST_TEST((*p->exec)[0].path == "/usr/bin/busybox");
  BOOST_TEST(r->changes.size() == 2u);
}
