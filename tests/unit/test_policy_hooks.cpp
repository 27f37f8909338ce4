// The policy's "hooks": {"fromConfig": false}: parsed strictly, written back, composed
// (false wins), mapped to the block's "hooksFromConfig", and a config with any hook refused,
// naming the hook's JSON path. A config's hooks run on the host, as root.
#define BOOST_TEST_MODULE policy_hooks
#include <boost/test/unit_test.hpp>

#include "oci/config.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/extension.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::policy;

namespace {
Result<Policy> parse(const std::string& body) { return parse_policy(R"({"version": 1, "id": "p")" + body + "}"); }

Policy must(const std::string& body) {
  auto p = parse(body);
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

oci::Config config_with(const std::string& hooks) {
  auto c = oci::parse_config(R"({"ociVersion": "1.0.2", "process": {"args": ["true"], "cwd": "/"},
                                 "root": {"path": "rootfs"}, "hooks": )" + hooks + "}",
                             "config.json");
  BOOST_REQUIRE_MESSAGE(c, (c ? "" : c.error().what()));
  return *c;
}
}  // namespace

BOOST_AUTO_TEST_CASE(parsed_strictly_and_written_back) {
  BOOST_TEST(!must("").hooks_from_config.has_value());
  Policy p = must(R"(, "hooks": {"fromConfig": false})");
  BOOST_TEST((p.hooks_from_config == std::optional<bool>(false)));
  auto again = parse_policy(policy_to_json(p));
  BOOST_REQUIRE(again);
  BOOST_TEST(again->same_rules(p));
  BOOST_TEST((must(R"(, "hooks": {"fromConfig": true})").hooks_from_config == std::optional<bool>(true)));
  auto bad = parse(R"(, "hooks": {"fromconfig": false})");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what().find("hooks.fromconfig") != std::string::npos, bad.error().what());
  BOOST_TEST(!parse(R"(, "hooks": {"fromConfig": 0})"));
}

BOOST_AUTO_TEST_CASE(composition_only_tightens) {
  Policy none = must(""), off = must(R"(, "hooks": {"fromConfig": false})"), on = must(R"(, "hooks": {"fromConfig": true})");
  BOOST_TEST((intersect(off, none).hooks_from_config == std::optional<bool>(false)));
  BOOST_TEST((intersect(none, off).hooks_from_config == std::optional<bool>(false)));
  BOOST_TEST((intersect(on, off).hooks_from_config == std::optional<bool>(false)));
  BOOST_TEST((intersect(off, on).hooks_from_config == std::optional<bool>(false)));
  BOOST_TEST((intersect(on, none).hooks_from_config == std::optional<bool>(true)));
  BOOST_TEST(!intersect(none, none).hooks_from_config.has_value());
}

BOOST_AUTO_TEST_CASE(a_config_with_hooks_is_refused_naming_the_hook) {
  Policy off = must(R"(, "hooks": {"fromConfig": false})");
  for (auto [kind, json] : {std::pair{"prestart", R"({"prestart": [{"path": "/bin/sh"}]})"},
                            {"createRuntime", R"({"createRuntime": [{"path": "/bin/sh"}]})"},
                            {"poststop", R"({"poststop": [{"path": "/bin/sh"}]})"}}) {
    oci::Config c = config_with(json);
    Extension ext;
    auto r = apply_to_config(off, c, ext, host::probe());
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().what() == "config.json: hooks." + std::string(kind) +
                                       "[0]: refused: policy p has hooks.fromConfig false (a config's hooks run on the "
                                       "host, as root)");
  }
  // control: without the field, the same config applies, and its hooks stay
  oci::Config c = config_with(R"({"prestart": [{"path": "/bin/sh"}]})");
  Extension ext;
  BOOST_REQUIRE(apply_to_config(must(""), c, ext, host::probe()));
  BOOST_TEST(c.hooks.prestart.size() == 1u);
  BOOST_TEST(ext.hooks_from_config);
  // no hooks: applies, and the block says so
  oci::Config bare = config_with("{}");
  BOOST_REQUIRE(apply_to_config(off, bare, ext, host::probe()));
  BOOST_TEST(!ext.hooks_from_config);
  BOOST_TEST(extension_to_json(ext).find(R"("hooksFromConfig":false)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_block_carries_it_and_refuses_too) {
  auto doc = json::Document::parse(R"({"policy": {"id": "p", "hash": "h"}, "hooksFromConfig": false})", "sharness");
  BOOST_REQUIRE(doc);
  auto ext = parse_extension(doc->root());
  BOOST_REQUIRE_MESSAGE(ext, (ext ? "" : ext.error().what()));
  BOOST_TEST(!ext->hooks_from_config);
  BOOST_TEST(!refuse_config_hooks(*ext, config_with(R"({"startContainer": [{"path": "/x"}]})").hooks));
  BOOST_TEST(refuse_config_hooks(*ext, config_with("{}").hooks).has_value());
}

BOOST_AUTO_TEST_CASE(explain_names_it) {
  bool found = false;
  for (const auto& b : explain(must(R"(, "hooks": {"fromConfig": false})"), host::probe()))
    found = found || b.mechanism.find("no hooks from config.json") != std::string::npos;
  BOOST_TEST(found);
}
