// oci::State documents: the compact hook state and runc's pretty `state` output, parsed
// back with json::Document.
#define BOOST_TEST_MODULE oci_state
#include <boost/test/unit_test.hpp>

#include "base/json.hpp"
#include "oci/state.hpp"

using namespace sh;
using namespace sh::oci;

namespace {

State sample() {
  State s;
  s.id = "box-1";
  s.status = "running";
  s.pid = 4242;
  s.bundle = "/run/bundles/box \"1\"";
  s.annotations = {{"org.example/key", "value\nwith newline"}, {"b", ""}};
  s.rootfs = "/run/bundles/box/rootfs";
  s.created = "2024-05-01T10:20:30.123456789Z";
  s.owner = "";
  return s;
}

json::Document parse(const std::string& text) {
  auto d = json::Document::parse(text, "state");
  BOOST_REQUIRE_MESSAGE(d.has_value(), (d ? "" : d.error().what()) + " in: " + text);
  return std::move(*d);
}

std::string str(const json::Value& root, std::string_view key) {
  auto v = root.get(key);
  BOOST_REQUIRE_MESSAGE(v.has_value(), "missing " + std::string(key));
  return v->as_string().value();
}

// Top-level keys in document order.
std::vector<std::string> keys(const json::Value& root) {
  std::vector<std::string> out;
  (void)root.each_member([&](std::string_view k, const json::Value&) -> Result<void> {
    out.emplace_back(k);
    return {};
  });
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hook_state_round_trip) {
  auto s = sample();
  auto text = hook_state_json(s);
  BOOST_TEST(text.find('\n') == std::string::npos);  // compact
  auto d = parse(text);
  auto root = d.root();
  BOOST_TEST((keys(root) == std::vector<std::string>{"ociVersion", "id", "status", "pid", "bundle", "annotations"}));
  BOOST_TEST(str(root, "ociVersion") == "1.3.0");
  BOOST_TEST(str(root, "id") == "box-1");
  BOOST_TEST(str(root, "status") == "running");
  BOOST_TEST(root.get("pid")->as_int().value() == 4242);
  BOOST_TEST(str(root, "bundle") == "/run/bundles/box \"1\"");
  auto ann = *root.get("annotations");
  BOOST_TEST(ann.size() == 2u);
  BOOST_TEST(str(ann, "org.example/key") == "value\nwith newline");
  BOOST_TEST(str(ann, "b") == "");
  BOOST_TEST(!root.get("rootfs").has_value());  // runc extras are not in the spec state
  BOOST_TEST(!root.get("owner").has_value());
}

BOOST_AUTO_TEST_CASE(hook_state_omits_pid_and_empty_annotations) {
  State s;
  s.id = "x";
  s.status = "creating";
  s.bundle = "/b";
  auto d = parse(hook_state_json(s));
  BOOST_TEST((keys(d.root()) == std::vector<std::string>{"ociVersion", "id", "status", "bundle"}));
}

BOOST_AUTO_TEST_CASE(state_command_round_trip) {
  auto s = sample();
  auto text = state_command_json(s);
  BOOST_TEST(text.find("\n\t\"id\": \"box-1\"") != std::string::npos);  // pretty, tab indented
  auto d = parse(text);
  auto root = d.root();
  BOOST_TEST((keys(root) == std::vector<std::string>{"ociVersion", "id", "pid", "status", "bundle", "rootfs", "created",
                                                     "annotations", "owner"}));
  BOOST_TEST(root.get("pid")->as_int().value() == 4242);
  BOOST_TEST(str(root, "status") == "running");
  BOOST_TEST(str(root, "rootfs") == "/run/bundles/box/rootfs");
  BOOST_TEST(str(root, "created") == "2024-05-01T10:20:30.123456789Z");
  BOOST_TEST(str(root, "owner") == "");
  BOOST_TEST(str(*root.get("annotations"), "org.example/key") == "value\nwith newline");
}

BOOST_AUTO_TEST_CASE(state_command_pid_zero_when_stopped) {
  auto s = sample();
  s.status = "stopped";  // a stale pid must not leak out: it may belong to someone else now
  s.annotations.clear();
  auto d = parse(state_command_json(s));
  auto root = d.root();
  BOOST_TEST(root.get("pid")->as_int().value() == 0);
  BOOST_TEST(!root.get("annotations").has_value());
  BOOST_TEST(root.get("owner").has_value());
  s.status = "created";
  s.pid = 0;
  auto d2 = parse(state_command_json(s));
  BOOST_TEST(d2.root().get("pid")->as_int().value() == 0);  // always present
}
