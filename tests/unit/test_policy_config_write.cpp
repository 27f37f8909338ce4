// oci::config_to_json: every field of oci::Config written back, so that parse(write(c)) == c.
#define BOOST_TEST_MODULE policy_config_write
#include <boost/test/unit_test.hpp>

#include "base/json.hpp"
#include "oci/config_write.hpp"

using namespace sh;
using namespace sh::oci;

namespace {

// Every field the model has, with values that differ from the defaults.
const char* kEverything = R"({
  "ociVersion": "1.2.0",
  "process": {
    "terminal": true, "consoleSize": {"height": 24, "width": 80},
    "user": {"uid": 1000, "gid": 1001, "umask": 18, "additionalGids": [5, 6]},
    "args": ["/bin/sh", "-c", "true"], "commandLine": "cmd /c", "env": ["PATH=/bin", "A=b"], "cwd": "/work",
    "capabilities": {"bounding": ["CAP_KILL", "CAP_CHOWN"], "effective": ["CAP_KILL"], "inheritable": [],
                     "permitted": ["CAP_KILL"], "ambient": []},
    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 4096, "soft": 1024},
                {"type": "RLIMIT_RTTIME", "hard": 18446744073709551615, "soft": 0}],
    "noNewPrivileges": true, "apparmorProfile": "prof", "oomScoreAdj": -500, "selinuxLabel": "system_u:x",
    "scheduler": {"policy": "SCHED_DEADLINE", "nice": -5, "priority": 0, "flags": ["SCHED_FLAG_RECLAIM"],
                  "runtime": 1000, "deadline": 2000, "period": 3000},
    "ioPriority": {"class": "IOPRIO_CLASS_BE", "priority": 4},
    "execCPUAffinity": {"initial": "0-1", "final": "2"},
    "landlock": {"ruleset": {"handledAccessFS": ["read_file"]}, "rules": [{"allowed": ["read_file"]}]}
  },
  "root": {"path": "rootfs", "readonly": true},
  "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
             {"destination": "/data", "type": "bind", "source": "/srv", "options": ["rbind", "ro"],
              "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}],
              "gidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}]}],
  "hostname": "box", "domainname": "example.org",
  "hooks": {"prestart": [{"path": "/bin/a", "args": ["a", "1"], "env": ["X=1"], "timeout": 5}],
            "createRuntime": [{"path": "/bin/b"}], "createContainer": [{"path": "/bin/c"}],
            "startContainer": [{"path": "/bin/d"}], "poststart": [{"path": "/bin/e"}], "poststop": [{"path": "/bin/f"}]},
  "annotations": {"a": "1", "b": "two"},
  "linux": {
    "namespaces": [{"type": "pid"}, {"type": "network", "path": "/proc/1/ns/net"}],
    "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
    "gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
    "devices": [{"type": "c", "path": "/dev/fuse", "major": 10, "minor": 229, "fileMode": 438, "uid": 0, "gid": 0}],
    "cgroupsPath": "/sharness/x",
    "resources": {
      "devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rw"}],
      "memory": {"limit": 536870912, "reservation": 1, "swap": 1073741824, "kernel": 2, "kernelTCP": 3,
                 "swappiness": 10, "disableOOMKiller": true, "useHierarchy": false, "checkBeforeUpdate": true},
      "cpu": {"shares": 1024, "quota": 50000, "burst": 1000, "period": 100000, "realtimeRuntime": 5,
              "realtimePeriod": 6, "cpus": "0-1", "mems": "0", "idle": 1},
      "pids": {"limit": 32},
      "blockIO": {"weight": 500, "leafWeight": 300,
                  "weightDevice": [{"major": 8, "minor": 0, "weight": 10, "leafWeight": 20}],
                  "throttleReadBpsDevice": [{"major": 8, "minor": 0, "rate": 1000}],
                  "throttleWriteBpsDevice": [{"major": 8, "minor": 1, "rate": 2000}],
                  "throttleReadIOPSDevice": [{"major": 8, "minor": 2, "rate": 3000}],
                  "throttleWriteIOPSDevice": [{"major": 8, "minor": 3, "rate": 4000}]},
      "hugepageLimits": [{"pageSize": "2MB", "limit": 209715200}],
      "network": {"classID": 1048577, "priorities": [{"name": "eth0", "priority": 500}]},
      "unified": {"memory.high": "1000000"},
      "rdma": {"mlx5_1": {"hcaHandles": 3}}
    },
    "rootfsPropagation": "rslave",
    "seccomp": {"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38, "architectures": ["SCMP_ARCH_X86_64"],
                "flags": ["SECCOMP_FILTER_FLAG_LOG"], "listenerPath": "/run/l.sock", "listenerMetadata": "m",
                "syscalls": [{"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
                             {"names": ["clone"], "action": "SCMP_ACT_ALLOW", "errnoRet": 1,
                              "args": [{"index": 0, "value": 2114060288, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]}]},
    "sysctl": {"net.ipv4.ip_forward": "1"},
    "maskedPaths": ["/proc/kcore"], "readonlyPaths": ["/proc/sys"],
    "mountLabel": "system_u:object_r:x",
    "personality": {"domain": "LINUX32", "flags": []},
    "timeOffsets": {"monotonic": {"secs": 10, "nanosecs": 5}, "boottime": {"secs": -3, "nanosecs": 0}},
    "intelRdt": {"closID": "x"},
    "memoryPolicy": {"mode": "MPOL_BIND"}
  }
})";

Config parse(const std::string& text) {
  auto c = parse_config(text);
  BOOST_REQUIRE_MESSAGE(c, (c ? "" : c.error().what()));
  return *c;
}

}  // namespace

BOOST_AUTO_TEST_CASE(round_trip_is_a_fixed_point) {
  Config c = parse(kEverything);
  std::string once = config_to_json(c, false).value();
  Config again = parse(once);
  BOOST_TEST(config_to_json(again, false).value() == once);
  BOOST_TEST(config_to_json(again, true).value() == config_to_json(c, true).value());
}

BOOST_AUTO_TEST_CASE(round_trip_keeps_every_field) {
  Config c = parse(config_to_json(parse(kEverything), true).value());
  const Process& p = *c.process;
  BOOST_TEST(c.oci_version == "1.2.0");
  BOOST_TEST(p.terminal);
  BOOST_TEST(p.console_size->width == 80u);
  BOOST_TEST(*p.user.umask == 18u);
  BOOST_TEST((p.user.additional_gids == std::vector<uint32_t>{5, 6}));
  BOOST_TEST(*p.command_line == "cmd /c");
  BOOST_TEST(p.cwd == "/work");
  BOOST_TEST(p.capabilities.inheritable->empty());  // present-and-empty survives
  BOOST_TEST(p.capabilities.ambient->empty());
  BOOST_TEST(p.rlimits[1].hard == 18446744073709551615ull);
  BOOST_TEST(p.no_new_privileges);
  BOOST_TEST(*p.oom_score_adj == -500);
  BOOST_TEST(*p.scheduler->nice == -5);
  BOOST_TEST(*p.scheduler->period == 3000u);
  BOOST_TEST(p.io_priority->io_class == "IOPRIO_CLASS_BE");
  BOOST_TEST(*p.exec_cpu_affinity->final_cpus == "2");
  BOOST_TEST(p.landlock_json->find("handledAccessFS") != std::string::npos);
  BOOST_TEST(c.root.readonly);
  BOOST_TEST(c.mounts[1].uid_mappings[0].host_id == 1000u);
  BOOST_TEST(*c.hooks.prestart[0].timeout == 5);
  BOOST_TEST(c.hooks.poststop[0].path == "/bin/f");
  BOOST_TEST(c.annotations.at("b") == "two");
  const Linux& l = c.linux;
  BOOST_TEST(l.namespaces[1].path == "/proc/1/ns/net");
  BOOST_TEST(*l.devices[0].file_mode == 438u);
  BOOST_TEST(*l.cgroups_path == "/sharness/x");
  const Resources& r = *l.resources;
  BOOST_TEST(!r.devices[0].major);  // absent stays absent (wildcard)
  BOOST_TEST(*r.devices[1].minor == 3);
  BOOST_TEST(*r.memory->disable_oom_killer);
  BOOST_TEST(!*r.memory->use_hierarchy);
  BOOST_TEST(*r.cpu->idle == 1);
  BOOST_TEST(r.pids->limit == 32);
  BOOST_TEST(*r.block_io->weight_device[0].leaf_weight == 20);
  BOOST_TEST(r.block_io->throttle_write_iops[0].rate == 4000u);
  BOOST_TEST(r.hugepage_limits[0].page_size == "2MB");
  BOOST_TEST(r.network->priorities[0].second == 500u);
  BOOST_TEST(r.unified.at("memory.high") == "1000000");
  BOOST_TEST((r.rdma_keys == std::vector<std::string>{"mlx5_1"}));
  BOOST_TEST(*l.seccomp->default_errno_ret == 38u);
  BOOST_TEST(*l.seccomp->listener_metadata == "m");
  BOOST_TEST(l.seccomp->syscalls[1].args[0].value == 2114060288u);
  BOOST_TEST(*l.seccomp->syscalls[1].errno_ret == 1u);
  BOOST_TEST(l.sysctl.at("net.ipv4.ip_forward") == "1");
  BOOST_TEST(*l.mount_label == "system_u:object_r:x");
  BOOST_TEST(l.personality->domain == "LINUX32");
  BOOST_TEST(l.time_offsets.at("boottime").secs == -3);
  BOOST_TEST(l.intel_rdt->clos_id.value() == "x");
  BOOST_TEST(l.memory_policy->mode == "MPOL_BIND");
}

BOOST_AUTO_TEST_CASE(absent_optionals_are_omitted) {
  Config c = parse(R"({"ociVersion": "1.0.0", "process": {"args": ["sh"]}, "root": {"path": "r"}})");
  std::string out = config_to_json(c, false).value();
  for (auto absent : {"consoleSize", "umask", "capabilities", "rlimits", "noNewPrivileges", "apparmorProfile",
                      "oomScoreAdj", "scheduler", "mounts", "hooks", "annotations", "resources", "seccomp",
                      "hostname", "readonly", "personality"})
    BOOST_TEST(out.find(std::string("\"") + absent + "\"") == std::string::npos, absent);
  BOOST_TEST(out.find(R"("args":["sh"])") != std::string::npos);
  BOOST_TEST(out.find(R"("root":{"path":"r"})") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pretty_output_parses) {
  std::string pretty = config_to_json(parse(kEverything), true).value();
  BOOST_TEST(pretty.find('\n') != std::string::npos);
  BOOST_TEST(parse_config(pretty).has_value());
}

// The extension block is spliced as text when it is one object, and the result is what parsing
// and re-encoding it gave; anything else cannot add keys to the config around it.
BOOST_AUTO_TEST_CASE(sharness_block_is_spliced_only_when_it_is_one_object) {
  Config c = parse(R"({"ociVersion": "1.2.0", "process": {"args": ["sh"]}, "root": {"path": "r"},
                       "sharness": {"policy": {"id": "x", "note": "a } and a { and a \\\" in a string"},
                                    "list": [1, {"k": []}]}})");
  BOOST_REQUIRE(c.sharness_json);
  std::string out = config_to_json(c, false).value();
  BOOST_TEST(out.ends_with(",\"sharness\":" + *c.sharness_json + "}"));
  Config again = parse(out);
  BOOST_TEST(*again.sharness_json == *c.sharness_json);
  BOOST_TEST(config_to_json(again, false).value() == out);
  for (const char* hostile : {R"({"a":1},"process":{"args":["evil"]})", R"({"a":1}})", R"({"a":"}"},"root":{"path":"x"})",
                              R"({"a":1)", "[1]", R"({"a":1} )"}) {
    Config h = c;
    h.sharness_json = hostile;
    // A block that is not JSON is an error (it used to be dropped from the written config,
    // which exec reads back); one that is JSON is re-encoded, never spliced with what follows.
    auto written = config_to_json(h, false);
    if (!written) {
      BOOST_TEST(written.error().what().find("config.json: sharness: invalid JSON") == 0u, written.error().what());
      continue;
    }
    std::string text = *written;
    BOOST_TEST(text.find("evil") == std::string::npos, hostile);
    BOOST_TEST(text.find(R"("path":"x")") == std::string::npos, hostile);
    BOOST_TEST(json::Document::parse(text, "out").has_value(), hostile);
  }
}
