// runtime-spec 1.3 fields: linux.netDevices, linux.memoryPolicy, linux.intelRdt (1.3 shape),
// process.execCPUAffinity. Each parsed, written back, and validated, errors naming the path.
#define BOOST_TEST_MODULE oci_spec13
#include <boost/test/unit_test.hpp>

#include "oci/config.hpp"
#include "oci/config_write.hpp"
#include "oci/default_spec.hpp"
#include "oci/id_list.hpp"
#include "oci/spec13.hpp"

using namespace sh;
using namespace sh::oci;

namespace {

// The default spec (it has a new network namespace) with `linux_extra` members added to linux
// and `process_extra` to process.
std::string config_text(const std::string& linux_extra, const std::string& process_extra = "") {
  std::string t = default_spec_json(false);
  if (!linux_extra.empty()) t.replace(t.find("\"linux\": {") + 10, 0, linux_extra + ",");
  if (!process_extra.empty()) t.replace(t.find("\"process\": {") + 12, 0, process_extra + ",");
  return t;
}

std::string parse_error(const std::string& text) {
  auto c = parse_config(text);
  return c ? "" : c.error().what();
}

std::string check(const std::string& text) {
  auto c = parse_config(text);
  if (!c) return "parse: " + c.error().what();
  auto r = validate_config(*c);
  return r ? "" : r.error().what();
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

BOOST_AUTO_TEST_CASE(id_lists) {
  BOOST_TEST((parse_id_list("0", "p").value() == std::vector<unsigned>{0}));
  BOOST_TEST((parse_id_list("0-2,7,1", "p").value() == std::vector<unsigned>{0, 1, 2, 7}));
  for (auto bad : {"", ",", "0,", "a", "1-", "-1", "3-1", "0 1", "1--2", "4096"})
    BOOST_TEST(!parse_id_list(bad, "p").has_value(), bad);
  BOOST_TEST(starts(parse_id_list("3-1", "x.y").error().what(), "x.y: \"3-1\""));
}

BOOST_AUTO_TEST_CASE(net_devices_parse_and_round_trip) {
  auto c = parse_config(config_text(R"("netDevices": {"eth0": {"name": "ctr0"}, "dummy1": {}})")).value();
  BOOST_TEST(c.linux.net_devices.size() == 2u);
  BOOST_TEST(c.linux.net_devices.at("eth0").name == "ctr0");
  BOOST_TEST(c.linux.net_devices.at("dummy1").name == "");
  BOOST_TEST(validate_config(c).has_value());
  auto again = parse_config(config_to_json(c, false).value()).value();
  BOOST_TEST(again.linux.net_devices.at("eth0").name == "ctr0");
  BOOST_TEST(again.linux.net_devices.count("dummy1") == 1u);
  BOOST_TEST(parse_error(config_text(R"("netDevices": {"eth0": {"name": 3}})")).find("linux.netDevices.eth0.name") !=
             std::string::npos);
  BOOST_TEST(parse_error(config_text(R"("netDevices": ["eth0"])")).find("linux.netDevices") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(net_devices_validate) {
  BOOST_TEST(check(config_text(R"("netDevices": {"eth0": {"name": "c%d"}})")) == "");
  BOOST_TEST(check(config_text(R"("netDevices": {"eth0": {"name": "a/b"}})")) ==
             "config.json: linux.netDevices.eth0.name: \"a/b\" contains '/', ':' or white space");
  BOOST_TEST(check(config_text(R"("netDevices": {"eth0": {"name": "0123456789abcdef"}})")) ==
             "config.json: linux.netDevices.eth0.name: \"0123456789abcdef\" is longer than 15 bytes (IFNAMSIZ)");
  BOOST_TEST(check(config_text(R"("netDevices": {"a": {"name": "b"}, "b": {}})")) ==
             "config.json: linux.netDevices.b: two devices would both be \"b\" in the container");
  BOOST_TEST(check(config_text(R"("netDevices": {"a": {"name": "e%d"}, "b": {"name": "e%d"}})")) == "");
  BOOST_TEST(check(config_text(R"("netDevices": {"e%d": {}})")) ==
             "config.json: linux.netDevices.e%d: host interface name \"e%d\" contains '%'");
  // Without a network namespace of its own the device would only move into the host's.
  auto c = parse_config(config_text(R"("netDevices": {"eth0": {}})")).value();
  std::erase_if(c.linux.namespaces, [](const Namespace& n) { return n.type == "network"; });
  BOOST_TEST(validate_config(c).error().what() ==
             "config.json: linux.netDevices: requires a network namespace other than the host's in linux.namespaces");
  for (auto& n : c.linux.namespaces) (void)n;
  c.linux.namespaces.push_back({"network", "/proc/self/ns/net"});
  BOOST_TEST(!validate_config(c).has_value());
}

BOOST_AUTO_TEST_CASE(memory_policy_parse_and_round_trip) {
  auto c = parse_config(config_text(
                            R"("memoryPolicy": {"mode": "MPOL_INTERLEAVE", "nodes": "0-1", "flags": ["MPOL_F_STATIC_NODES"]})"))
               .value();
  BOOST_REQUIRE(c.linux.memory_policy.has_value());
  BOOST_TEST(c.linux.memory_policy->mode == "MPOL_INTERLEAVE");
  BOOST_TEST(c.linux.memory_policy->nodes == "0-1");
  BOOST_TEST((c.linux.memory_policy->flags == std::vector<std::string>{"MPOL_F_STATIC_NODES"}));
  BOOST_TEST(validate_config(c).has_value());
  auto again = parse_config(config_to_json(c, false).value()).value();
  BOOST_TEST(again.linux.memory_policy->nodes == "0-1");
  BOOST_TEST(again.linux.memory_policy->flags.size() == 1u);
  BOOST_TEST(parse_error(config_text(R"("memoryPolicy": {"nodes": "0"})")).find("linux.memoryPolicy") != std::string::npos);
  BOOST_TEST(parse_error(config_text(R"("memoryPolicy": {"mode": "MPOL_BIND", "flags": "x"})"))
                 .find("linux.memoryPolicy.flags") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(memory_policy_validate) {
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_BIND", "nodes": "0"})")) == "");
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_PREFERRED"})")) == "");
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_LOCAL"})")) == "");
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_WEIGHTED_INTERLEAVE", "nodes": "0"})")) == "");
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_FOO", "nodes": "0"})")) ==
             "config.json: linux.memoryPolicy.mode: unknown memory policy mode \"MPOL_FOO\"");
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_X"]})")) ==
             "config.json: linux.memoryPolicy.flags[0]: unknown memory policy flag \"MPOL_F_X\"");
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_BIND"})")) ==
             "config.json: linux.memoryPolicy.nodes: required for MPOL_BIND");
  BOOST_TEST(check(config_text(R"("memoryPolicy": {"mode": "MPOL_DEFAULT", "nodes": "0"})")) ==
             "config.json: linux.memoryPolicy.nodes: must be empty for MPOL_DEFAULT");
  BOOST_TEST(starts(check(config_text(R"("memoryPolicy": {"mode": "MPOL_BIND", "nodes": "0-"})")),
                    "config.json: linux.memoryPolicy.nodes: \"0-\" is not a list"));
}

BOOST_AUTO_TEST_CASE(exec_cpu_affinity) {
  auto c = parse_config(config_text("", R"("execCPUAffinity": {"initial": "0", "final": "0-1"})")).value();
  BOOST_TEST(c.process->exec_cpu_affinity->initial.value() == "0");
  BOOST_TEST(c.process->exec_cpu_affinity->final_cpus.value() == "0-1");
  BOOST_TEST(validate_config(c).has_value());
  BOOST_TEST(starts(check(config_text("", R"("execCPUAffinity": {"final": "x"})")),
                    "config.json: process.execCPUAffinity.final: \"x\" is not a list"));
  BOOST_TEST(starts(check(config_text("", R"("execCPUAffinity": {"initial": "2-1"})")),
                    "config.json: process.execCPUAffinity.initial: \"2-1\""));
  BOOST_TEST(parse_error(config_text("", R"("execCPUAffinity": {"initial": 0})"))
                 .find("process.execCPUAffinity.initial") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(intel_rdt_1_3_fields) {
  auto c = parse_config(config_text(
                            R"("intelRdt": {"closID": "g", "schemata": ["L3:0=7f0", "MB:0=20"], "enableMonitoring": true})"))
               .value();
  BOOST_REQUIRE(c.linux.intel_rdt.has_value());
  BOOST_TEST(c.linux.intel_rdt->clos_id.value() == "g");
  BOOST_TEST((c.linux.intel_rdt->schemata.value() == std::vector<std::string>{"L3:0=7f0", "MB:0=20"}));
  BOOST_TEST(c.linux.intel_rdt->enable_monitoring.value());
  auto again = parse_config(config_to_json(c, false).value()).value();
  BOOST_TEST(again.linux.intel_rdt->schemata->size() == 2u);
  BOOST_TEST(again.linux.intel_rdt->enable_monitoring.value());
  BOOST_TEST(parse_error(config_text(R"("intelRdt": {"schemata": "L3:0=1"})")).find("linux.intelRdt.schemata") !=
             std::string::npos);
  // Never accepted: on a host without resctrl the error says so, naming the field.
  auto e = check(config_text(R"("intelRdt": {"schemata": ["L3:0=1"]})"));
  BOOST_TEST(starts(e, "config.json: linux.intelRdt.schemata: "));
  if (!host_has_resctrl()) BOOST_TEST(e.find("this host has none") != std::string::npos);
  BOOST_TEST(starts(check(config_text(R"("intelRdt": {"enableMonitoring": true})")),
                    "config.json: linux.intelRdt.enableMonitoring: "));
}

BOOST_AUTO_TEST_CASE(memory_policy_names) {
  BOOST_TEST(memory_policy_mode("MPOL_BIND").value() == 2);
  BOOST_TEST(memory_policy_mode("MPOL_PREFERRED_MANY").value() == 5);
  BOOST_TEST(memory_policy_flag("MPOL_F_STATIC_NODES").value() == (1 << 15));
  BOOST_TEST(memory_policy_mode_names().size() == 7u);
  BOOST_TEST(memory_policy_flag_names().size() == 3u);
}

// runtime-spec 1.3 makes a failing poststart hook an error; 1.0.2 to 1.2 said a warning.
BOOST_AUTO_TEST_CASE(poststart_failure_rule_by_version) {
  for (const char* v : {"1.0.0", "1.0.2", "1.1.0", "1.2.0", "1.2.1", "1.2.9-dev", "1.2.0+build.3"})
    BOOST_TEST(!poststart_failure_is_error(v), v);
  for (const char* v : {"1.3.0", "1.3.1", "1.3.0-rc.1", "1.3.2+dev", "1.4.0", "1.10.0"})
    BOOST_TEST(poststart_failure_is_error(v), v);
  for (const char* v : {"", "1.", "1.x", "0.3.0", "2.0.0", "13.0.0"}) BOOST_TEST(!poststart_failure_is_error(v), v);
}
