// oci::parse_config: every section of config.json, absent vs zero, and errors that name
// the exact JSON path.
#define BOOST_TEST_MODULE oci_parse
#include <sys/resource.h>

#include <boost/test/unit_test.hpp>

#include "base/json.hpp"
#include "oci/config.hpp"

using namespace sh;
using namespace sh::oci;

namespace {

// Every section runc honours, with values that differ from the defaults.
const char* kFull = R"({
  "ociVersion": "1.2.0",
  "process": {
    "terminal": true,
    "consoleSize": {"height": 24, "width": 80},
    "user": {"uid": 1000, "gid": 1001, "umask": 18, "additionalGids": [5, 6]},
    "args": ["/bin/sh", "-c", "true"],
    "env": ["PATH=/bin", "A=b"],
    "cwd": "/work",
    "capabilities": {"bounding": ["CAP_KILL", "CAP_CHOWN"], "effective": ["CAP_KILL"], "inheritable": [],
                     "permitted": ["CAP_KILL"]},
    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 4096, "soft": 1024},
                {"type": "RLIMIT_RTTIME", "hard": 18446744073709551615, "soft": 0}],
    "noNewPrivileges": true,
    "apparmorProfile": "my-profile",
    "oomScoreAdj": -500,
    "selinuxLabel": "system_u:system_r:container_t:s0",
    "scheduler": {"policy": "SCHED_DEADLINE", "nice": -5, "priority": 0, "flags": ["SCHED_FLAG_RECLAIM"],
                  "runtime": 1000, "deadline": 2000, "period": 3000},
    "ioPriority": {"class": "IOPRIO_CLASS_BE", "priority": 4},
    "execCPUAffinity": {"initial": "0-1", "final": "2"},
    "landlock": {"ruleset": {"handledAccessFS": ["read_file"]}, "rules": [{"allowed": ["read_file"]}],
                 "disableBestEffort": false}
  },
  "root": {"path": "rootfs", "readonly": true},
  "hostname": "box",
  "domainname": "example.org",
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/data", "type": "bind", "source": "/srv/data", "options": ["rbind", "ro"],
     "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
     "gidMappings": [{"containerID": 0, "hostID": 200000, "size": 1000}]}
  ],
  "hooks": {
    "prestart": [{"path": "/bin/pre", "args": ["pre", "x"], "env": ["K=V"], "timeout": 5}],
    "createRuntime": [{"path": "/bin/cr"}],
    "createContainer": [{"path": "/bin/cc"}],
    "startContainer": [{"path": "/bin/sc"}],
    "poststart": [{"path": "/bin/ps1"}, {"path": "/bin/ps2"}],
    "poststop": [{"path": "/bin/stop", "timeout": 30}]
  },
  "annotations": {"org.example.key": "value", "empty": ""},
  "linux": {
    "namespaces": [{"type": "pid"}, {"type": "network", "path": "/var/run/netns/x"}, {"type": "user"}],
    "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}],
    "gidMappings": [{"containerID": 0, "hostID": 1001, "size": 1}],
    "devices": [{"type": "c", "path": "/dev/fuse", "major": 10, "minor": 229, "fileMode": 438, "uid": 0, "gid": 0},
                {"type": "p", "path": "/dev/fifo"}],
    "cgroupsPath": "/sharness/box",
    "resources": {
      "devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rw"}],
      "memory": {"limit": 536870912, "reservation": 0, "swap": -1, "kernel": 1, "kernelTCP": 2, "swappiness": 60,
                 "disableOOMKiller": true, "useHierarchy": false, "checkBeforeUpdate": true},
      "cpu": {"shares": 1024, "quota": 50000, "burst": 1000, "period": 100000, "realtimeRuntime": 950000,
              "realtimePeriod": 1000000, "cpus": "0-3", "mems": "0", "idle": 1},
      "pids": {"limit": 100},
      "blockIO": {"weight": 500, "leafWeight": 300,
                  "weightDevice": [{"major": 8, "minor": 0, "weight": 600, "leafWeight": 200}],
                  "throttleReadBpsDevice": [{"major": 8, "minor": 0, "rate": 1048576}],
                  "throttleWriteBpsDevice": [{"major": 8, "minor": 1, "rate": 2}],
                  "throttleReadIOPSDevice": [{"major": 8, "minor": 2, "rate": 3}],
                  "throttleWriteIOPSDevice": [{"major": 8, "minor": 3, "rate": 4}]},
      "hugepageLimits": [{"pageSize": "2MB", "limit": 209715200}],
      "network": {"classID": 1048577, "priorities": [{"name": "eth0", "priority": 500}]},
      "unified": {"memory.high": "1G", "io.weight": "default 100"},
      "rdma": {"mlx5_1": {"hcaHandles": 3, "hcaObjects": 10000}}
    },
    "rootfsPropagation": "rslave",
    "seccomp": {
      "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
      "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
      "flags": ["SECCOMP_FILTER_FLAG_LOG"],
      "listenerPath": "/run/seccomp.sock", "listenerMetadata": "meta",
      "syscalls": [
        {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
        {"names": ["personality"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
         "args": [{"index": 0, "value": 4294967295, "valueTwo": 7, "op": "SCMP_CMP_MASKED_EQ"}]}
      ]
    },
    "sysctl": {"net.ipv4.ip_forward": "1", "kernel.shmmax": "4096"},
    "maskedPaths": ["/proc/kcore"],
    "readonlyPaths": ["/proc/sys", "/proc/bus"],
    "mountLabel": "system_u:object_r:container_file_t:s0",
    "personality": {"domain": "LINUX32", "flags": []},
    "timeOffsets": {"monotonic": {"secs": -10, "nanosecs": 500}, "boottime": {"secs": 3600}},
    "intelRdt": {"closID": "x"},
    "memoryPolicy": {"mode": "MPOL_BIND", "nodes": "0"}
  }
})";

Config parse_ok(const std::string& text) {
  auto c = parse_config(text);
  BOOST_REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  return *c;
}

std::string parse_err(const std::string& text) {
  auto c = parse_config(text);
  BOOST_REQUIRE_MESSAGE(!c.has_value(), "expected a parse error for: " + text);
  return c.error().what();
}

// A small config made of `body` (top-level members) after ociVersion.
std::string with(const std::string& body) { return R"({"ociVersion": "1.2.0", )" + body + "}"; }

}  // namespace

BOOST_AUTO_TEST_CASE(full_config_process) {
  auto c = parse_ok(kFull);
  BOOST_TEST(c.oci_version == "1.2.0");
  BOOST_REQUIRE(c.process.has_value());
  auto& p = *c.process;
  BOOST_TEST(p.terminal);
  BOOST_REQUIRE(p.console_size.has_value());
  BOOST_TEST(p.console_size->height == 24u);
  BOOST_TEST(p.console_size->width == 80u);
  BOOST_TEST(p.user.uid == 1000u);
  BOOST_TEST(p.user.gid == 1001u);
  BOOST_TEST(p.user.umask.value() == 18u);
  BOOST_TEST((p.user.additional_gids == std::vector<uint32_t>{5, 6}));
  BOOST_TEST((p.args == std::vector<std::string>{"/bin/sh", "-c", "true"}));
  BOOST_TEST((p.env == std::vector<std::string>{"PATH=/bin", "A=b"}));
  BOOST_TEST(p.cwd == "/work");
  BOOST_TEST((p.capabilities.bounding.value() == std::vector<std::string>{"CAP_KILL", "CAP_CHOWN"}));
  BOOST_TEST((p.capabilities.effective.value() == std::vector<std::string>{"CAP_KILL"}));
  BOOST_TEST(p.capabilities.inheritable.has_value());  // present but empty
  BOOST_TEST(p.capabilities.inheritable->empty());
  // Absent inside a present object: empty, as runc reads it.
  BOOST_TEST(p.capabilities.ambient.has_value());
  BOOST_TEST(p.capabilities.ambient->empty());
  BOOST_REQUIRE(p.rlimits.size() == 2u);
  BOOST_TEST(p.rlimits[0].type == "RLIMIT_NOFILE");
  BOOST_TEST(p.rlimits[0].resource == RLIMIT_NOFILE);
  BOOST_TEST(p.rlimits[0].hard == 4096u);
  BOOST_TEST(p.rlimits[0].soft == 1024u);
  BOOST_TEST(p.rlimits[1].resource == RLIMIT_RTTIME);
  BOOST_TEST(p.rlimits[1].hard == UINT64_MAX);
  BOOST_TEST(p.no_new_privileges);
  BOOST_TEST(p.apparmor_profile.value() == "my-profile");
  BOOST_TEST(p.oom_score_adj.value() == -500);
  BOOST_TEST(p.selinux_label.value() == "system_u:system_r:container_t:s0");
  BOOST_REQUIRE(p.scheduler.has_value());
  BOOST_TEST(p.scheduler->policy == "SCHED_DEADLINE");
  BOOST_TEST(p.scheduler->nice.value() == -5);
  BOOST_TEST(p.scheduler->priority.value() == 0);
  BOOST_TEST((p.scheduler->flags == std::vector<std::string>{"SCHED_FLAG_RECLAIM"}));
  BOOST_TEST(p.scheduler->runtime.value() == 1000u);
  BOOST_TEST(p.scheduler->deadline.value() == 2000u);
  BOOST_TEST(p.scheduler->period.value() == 3000u);
  BOOST_REQUIRE(p.io_priority.has_value());
  BOOST_TEST(p.io_priority->io_class == "IOPRIO_CLASS_BE");
  BOOST_TEST(p.io_priority->priority == 4);
  BOOST_REQUIRE(p.exec_cpu_affinity.has_value());
  BOOST_TEST(p.exec_cpu_affinity->initial.value() == "0-1");
  BOOST_TEST(p.exec_cpu_affinity->final_cpus.value() == "2");
  BOOST_TEST(!p.command_line.has_value());
}

BOOST_AUTO_TEST_CASE(full_config_landlock_is_kept_as_json) {
  auto c = parse_ok(kFull);
  BOOST_REQUIRE(c.process->landlock_json.has_value());
  auto d = json::Document::parse(*c.process->landlock_json, "landlock");
  BOOST_REQUIRE(d.has_value());
  auto root = d->root();
  BOOST_TEST(root.is_object());
  BOOST_TEST(root.get("ruleset")->get("handledAccessFS")->size() == 1u);
  BOOST_TEST(root.get("rules")->size() == 1u);
  BOOST_TEST(root.get("disableBestEffort")->as_bool().value() == false);
}

BOOST_AUTO_TEST_CASE(full_config_root_mounts_hooks_annotations) {
  auto c = parse_ok(kFull);
  BOOST_TEST(c.root.path == "rootfs");
  BOOST_TEST(c.root.readonly);
  BOOST_TEST(c.hostname == "box");
  BOOST_TEST(c.domainname == "example.org");
  BOOST_REQUIRE(c.mounts.size() == 2u);
  BOOST_TEST(c.mounts[0].destination == "/proc");
  BOOST_TEST(c.mounts[0].type == "proc");
  BOOST_TEST(c.mounts[0].options.empty());
  BOOST_TEST(c.mounts[1].source == "/srv/data");
  BOOST_TEST((c.mounts[1].options == std::vector<std::string>{"rbind", "ro"}));
  BOOST_REQUIRE(c.mounts[1].uid_mappings.size() == 1u);
  BOOST_TEST(c.mounts[1].uid_mappings[0].host_id == 100000u);
  BOOST_TEST(c.mounts[1].uid_mappings[0].size == 65536u);
  BOOST_TEST(c.mounts[1].gid_mappings[0].host_id == 200000u);

  BOOST_REQUIRE(c.hooks.prestart.size() == 1u);
  BOOST_TEST(c.hooks.prestart[0].path == "/bin/pre");
  BOOST_TEST((c.hooks.prestart[0].args == std::vector<std::string>{"pre", "x"}));
  BOOST_TEST((c.hooks.prestart[0].env == std::vector<std::string>{"K=V"}));
  BOOST_TEST(c.hooks.prestart[0].timeout.value() == 5);
  BOOST_TEST(c.hooks.create_runtime.at(0).path == "/bin/cr");
  BOOST_TEST(!c.hooks.create_runtime[0].timeout.has_value());
  BOOST_TEST(c.hooks.create_container.at(0).path == "/bin/cc");
  BOOST_TEST(c.hooks.start_container.at(0).path == "/bin/sc");
  BOOST_TEST(c.hooks.poststart.size() == 2u);
  BOOST_TEST(c.hooks.poststop.at(0).timeout.value() == 30);
  BOOST_TEST(!c.hooks.empty());

  BOOST_TEST(c.annotations.size() == 2u);
  BOOST_TEST(c.annotations.at("org.example.key") == "value");
  BOOST_TEST(c.annotations.at("empty") == "");
}

BOOST_AUTO_TEST_CASE(full_config_linux) {
  auto c = parse_ok(kFull);
  auto& l = c.linux;
  BOOST_REQUIRE(l.namespaces.size() == 3u);
  BOOST_TEST(c.has_namespace("pid"));
  BOOST_TEST(!c.has_namespace("ipc"));
  BOOST_REQUIRE(c.find_namespace("network") != nullptr);
  BOOST_TEST(c.find_namespace("network")->path == "/var/run/netns/x");
  BOOST_TEST(c.find_namespace("user")->path == "");
  BOOST_TEST(c.find_namespace("time") == nullptr);
  BOOST_TEST(l.uid_mappings.at(0).host_id == 1000u);
  BOOST_TEST(l.gid_mappings.at(0).host_id == 1001u);
  BOOST_REQUIRE(l.devices.size() == 2u);
  BOOST_TEST(l.devices[0].type == "c");
  BOOST_TEST(l.devices[0].major == 10);
  BOOST_TEST(l.devices[0].minor == 229);
  BOOST_TEST(l.devices[0].file_mode.value() == 0666u);
  BOOST_TEST(l.devices[0].uid.value() == 0u);
  BOOST_TEST(l.devices[1].type == "p");
  BOOST_TEST(!l.devices[1].file_mode.has_value());
  BOOST_TEST(l.cgroups_path.value() == "/sharness/box");
  BOOST_TEST(l.rootfs_propagation == "rslave");
  BOOST_TEST(l.sysctl.at("net.ipv4.ip_forward") == "1");
  BOOST_TEST(l.sysctl.at("kernel.shmmax") == "4096");
  BOOST_TEST((l.masked_paths == std::vector<std::string>{"/proc/kcore"}));
  BOOST_TEST((l.readonly_paths == std::vector<std::string>{"/proc/sys", "/proc/bus"}));
  BOOST_TEST(l.mount_label.value() == "system_u:object_r:container_file_t:s0");
  BOOST_REQUIRE(l.personality.has_value());
  BOOST_TEST(l.personality->domain == "LINUX32");
  BOOST_TEST(l.time_offsets.at("monotonic").secs == -10);
  BOOST_TEST(l.time_offsets.at("monotonic").nanosecs == 500u);
  BOOST_TEST(l.time_offsets.at("boottime").secs == 3600);
  BOOST_TEST(l.time_offsets.at("boottime").nanosecs == 0u);
  BOOST_TEST(l.intel_rdt->clos_id.value() == "x");
  BOOST_TEST(l.memory_policy->mode == "MPOL_BIND");
  BOOST_TEST(l.memory_policy->nodes == "0");
}

BOOST_AUTO_TEST_CASE(full_config_resources) {
  auto c = parse_ok(kFull);
  BOOST_REQUIRE(c.linux.resources.has_value());
  auto& r = *c.linux.resources;
  BOOST_REQUIRE(r.devices.size() == 2u);
  BOOST_TEST(!r.devices[0].allow);
  BOOST_TEST(r.devices[0].type == "a");  // default
  BOOST_TEST(!r.devices[0].major.has_value());
  BOOST_TEST(r.devices[1].allow);
  BOOST_TEST(r.devices[1].major.value() == 10);
  BOOST_TEST(r.devices[1].access == "rw");
  auto& m = r.memory.value();
  BOOST_TEST(m.limit.value() == 536870912);
  BOOST_TEST(m.reservation.value() == 0);
  BOOST_TEST(m.swap.value() == -1);
  BOOST_TEST(m.kernel.value() == 1);
  BOOST_TEST(m.kernel_tcp.value() == 2);
  BOOST_TEST(m.swappiness.value() == 60u);
  BOOST_TEST(m.disable_oom_killer.value() == true);
  BOOST_TEST(m.use_hierarchy.value() == false);
  BOOST_TEST(m.check_before_update.value() == true);
  auto& cpu = r.cpu.value();
  BOOST_TEST(cpu.shares.value() == 1024u);
  BOOST_TEST(cpu.quota.value() == 50000);
  BOOST_TEST(cpu.burst.value() == 1000u);
  BOOST_TEST(cpu.period.value() == 100000u);
  BOOST_TEST(cpu.realtime_runtime.value() == 950000);
  BOOST_TEST(cpu.realtime_period.value() == 1000000u);
  BOOST_TEST(cpu.cpus.value() == "0-3");
  BOOST_TEST(cpu.mems.value() == "0");
  BOOST_TEST(cpu.idle.value() == 1);
  BOOST_TEST(r.pids.value().limit == 100);
  auto& b = r.block_io.value();
  BOOST_TEST(b.weight.value() == 500u);
  BOOST_TEST(b.leaf_weight.value() == 300u);
  BOOST_TEST(b.weight_device.at(0).weight.value() == 600u);
  BOOST_TEST(b.weight_device.at(0).leaf_weight.value() == 200u);
  BOOST_TEST(b.throttle_read_bps.at(0).rate == 1048576u);
  BOOST_TEST(b.throttle_write_bps.at(0).minor == 1);
  BOOST_TEST(b.throttle_read_iops.at(0).rate == 3u);
  BOOST_TEST(b.throttle_write_iops.at(0).rate == 4u);
  BOOST_TEST(r.hugepage_limits.at(0).page_size == "2MB");
  BOOST_TEST(r.hugepage_limits.at(0).limit == 209715200u);
  BOOST_TEST(r.network.value().class_id.value() == 1048577u);
  BOOST_TEST(r.network->priorities.at(0).first == "eth0");
  BOOST_TEST(r.network->priorities.at(0).second == 500u);
  BOOST_TEST(r.unified.at("io.weight") == "default 100");
  BOOST_TEST((r.rdma_keys == std::vector<std::string>{"mlx5_1"}));
}

BOOST_AUTO_TEST_CASE(full_config_seccomp) {
  auto c = parse_ok(kFull);
  auto& s = c.linux.seccomp.value();
  BOOST_TEST(s.default_action == "SCMP_ACT_ERRNO");
  BOOST_TEST(s.default_errno_ret.value() == 38u);
  BOOST_TEST(s.architectures.size() == 2u);
  BOOST_TEST((s.flags == std::vector<std::string>{"SECCOMP_FILTER_FLAG_LOG"}));
  BOOST_TEST(s.listener_path.value() == "/run/seccomp.sock");
  BOOST_TEST(s.listener_metadata.value() == "meta");
  BOOST_REQUIRE(s.syscalls.size() == 2u);
  BOOST_TEST((s.syscalls[0].names == std::vector<std::string>{"read", "write"}));
  BOOST_TEST(!s.syscalls[0].errno_ret.has_value());
  BOOST_TEST(s.syscalls[1].errno_ret.value() == 1u);
  auto& a = s.syscalls[1].args.at(0);
  BOOST_TEST(a.index == 0u);
  BOOST_TEST(a.value == 4294967295u);
  BOOST_TEST(a.value_two == 7u);
  BOOST_TEST(a.op == "SCMP_CMP_MASKED_EQ");
}

BOOST_AUTO_TEST_CASE(absent_versus_zero) {
  auto absent = parse_ok(with(R"("linux": {"resources": {"memory": {}, "cpu": {}}})"));
  BOOST_TEST(!absent.process.has_value());
  auto& m0 = absent.linux.resources->memory.value();
  BOOST_TEST(!m0.limit.has_value());
  BOOST_TEST(!m0.swappiness.has_value());
  BOOST_TEST(!m0.disable_oom_killer.has_value());
  BOOST_TEST(!absent.linux.resources->cpu->shares.has_value());
  BOOST_TEST(!absent.linux.resources->pids.has_value());
  BOOST_TEST(!absent.linux.seccomp.has_value());
  BOOST_TEST(absent.hooks.empty());

  auto zero = parse_ok(with(R"("linux": {"resources": {"memory": {"limit": 0, "swappiness": 0,
      "disableOOMKiller": false}, "cpu": {"shares": 0}}})"));
  auto& m1 = zero.linux.resources->memory.value();
  BOOST_TEST(m1.limit.value() == 0);
  BOOST_TEST(m1.swappiness.value() == 0u);
  BOOST_TEST(m1.disable_oom_killer.value() == false);
  BOOST_TEST(zero.linux.resources->cpu->shares.value() == 0u);

  // null counts as absent
  auto null = parse_ok(with(R"("process": null, "linux": {"resources": {"memory": {"limit": null}}})"));
  BOOST_TEST(!null.process.has_value());
  BOOST_TEST(!null.linux.resources->memory->limit.has_value());

  // umask absent vs 0; no resources at all
  auto p = parse_ok(with(R"("process": {"user": {"uid": 0, "gid": 0, "umask": 0}})"));
  BOOST_TEST(p.process->user.umask.value() == 0u);
  BOOST_TEST(!p.linux.resources.has_value());
  BOOST_TEST(p.process->cwd == "/");  // default
}

// Docker's and Podman's `--cap-drop ALL` write "capabilities": {}: every set empty (runc); no
// object at all leaves every set absent (the runtime keeps its own).
BOOST_AUTO_TEST_CASE(empty_capabilities_object_is_every_set_empty) {
  auto c = parse_ok(with(R"("process": {"cwd": "/", "args": ["sh"], "capabilities": {}})"));
  auto& k = c.process->capabilities;
  for (auto* set : {&k.bounding, &k.effective, &k.inheritable, &k.permitted, &k.ambient}) {
    BOOST_TEST(set->has_value());
    if (*set) BOOST_TEST((*set)->empty());
  }
  auto none = parse_ok(with(R"("process": {"cwd": "/", "args": ["sh"]})"));
  auto& n = none.process->capabilities;
  for (auto* set : {&n.bounding, &n.effective, &n.inheritable, &n.permitted, &n.ambient}) BOOST_TEST(!set->has_value());
}

BOOST_AUTO_TEST_CASE(unknown_keys_are_ignored) {
  auto c = parse_ok(with(R"("vm": {"hypervisor": {}}, "windows": {}, "x-future": [1, 2],
      "process": {"args": ["sh"], "newThing": true, "user": {"uid": 1, "gid": 1, "username": "w"}},
      "linux": {"netDevices": {"eth0": {}}, "resources": {"memory": {"future": "x"}}})"));
  BOOST_TEST(c.process->user.uid == 1u);
  BOOST_TEST(c.linux.resources->memory.has_value());
}

BOOST_AUTO_TEST_CASE(version_1_3_and_large_values) {
  auto c = parse_ok(R"({"ociVersion": "1.3.0", "linux": {"resources": {"memory": {"limit": 9223372036854775807},
      "pids": {}}}})");
  BOOST_TEST(c.oci_version == "1.3.0");
  BOOST_TEST(c.linux.resources->memory->limit.value() == INT64_MAX);
  BOOST_TEST(c.linux.resources->pids->limit == 0);  // limit optional since 1.3
}

BOOST_AUTO_TEST_CASE(error_malformed_json) {
  auto e = parse_err(R"({"ociVersion": "1.2.0",)");
  BOOST_TEST(e.starts_with("config.json: invalid JSON: "));
  BOOST_TEST(parse_err("[1, 2]") == "config.json: expected a JSON object at the top level");
  auto other = parse_config("{", "/bundle/config.json");
  BOOST_REQUIRE(!other);
  BOOST_TEST(other.error().what().starts_with("/bundle/config.json: invalid JSON"));
}

BOOST_AUTO_TEST_CASE(error_wrong_type_at_depth) {
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"memory": {"limit": "1G"}}})")) ==
             "config.json: linux.resources.memory.limit: expected an integer, got a string");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"memory": {"limit": 1.5}}})")) ==
             "config.json: linux.resources.memory.limit: expected an integer, got 1.5");
  BOOST_TEST(parse_err(with(R"("linux": "x")")) == "config.json: linux: expected an object, got a string");
  BOOST_TEST(parse_err(with(R"("process": {"args": "sh"})")) ==
             "config.json: process.args: expected an array, got a string");
  BOOST_TEST(parse_err(with(R"("process": {"args": ["sh", 1]})")) ==
             "config.json: process.args[1]: expected a string, got a number");
  BOOST_TEST(parse_err(with(R"("process": {"terminal": "yes"})")) ==
             "config.json: process.terminal: expected a boolean, got a string");
  BOOST_TEST(parse_err(with(R"("process": {"capabilities": {"bounding": "CAP_KILL"}})")) ==
             "config.json: process.capabilities.bounding: expected an array, got a string");
  BOOST_TEST(parse_err(with(R"("annotations": {"a": 1})")) ==
             "config.json: annotations.a: expected a string, got a number");
  BOOST_TEST(parse_err(with(R"("linux": {"sysctl": {"net.x": true}})")) ==
             "config.json: linux.sysctl.net.x: expected a string, got a boolean");
  BOOST_TEST(parse_err(with(R"("mounts": [{"destination": "/a"}, {"destination": "/b", "options": [null]}])")) ==
             "config.json: mounts[1].options[0]: expected a string, got null");
  BOOST_TEST(parse_err(with(R"("mounts": {})")) == "config.json: mounts: expected an array, got an object");
  BOOST_TEST(parse_err(with(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
      {"names": ["read"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": "1", "op": "SCMP_CMP_EQ"}]}]}})")) ==
             "config.json: linux.seccomp.syscalls[0].args[0].value: expected an integer, got a string");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"rdma": []}})")) ==
             "config.json: linux.resources.rdma: expected an object, got an array");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"network": {"priorities": [{"name": "eth0", "priority": -1}]}}})")) ==
             "config.json: linux.resources.network.priorities[0].priority: expected a non-negative integer, got -1");
}

BOOST_AUTO_TEST_CASE(error_missing_required_field) {
  BOOST_TEST(parse_err(with(R"("mounts": [{"destination": "/a"}, {"type": "tmpfs"}])")) ==
             "config.json: mounts[1].destination: required");
  BOOST_TEST(parse_err(with(R"("linux": {"namespaces": [{"path": "/proc/1/ns/net"}]})")) ==
             "config.json: linux.namespaces[0].type: required");
  BOOST_TEST(parse_err(with(R"("linux": {"uidMappings": [{"containerID": 0, "hostID": 1000}]})")) ==
             "config.json: linux.uidMappings[0].size: required");
  BOOST_TEST(parse_err(with(R"("hooks": {"poststop": [{"args": ["x"]}]})")) ==
             "config.json: hooks.poststop[0].path: required");
  BOOST_TEST(parse_err(with(R"("linux": {"seccomp": {"syscalls": []}})")) ==
             "config.json: linux.seccomp.defaultAction: required");
  BOOST_TEST(parse_err(with(R"("linux": {"devices": [{"type": "c", "path": "/dev/x", "major": 1}]})")) ==
             "config.json: linux.devices[0].minor: required");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"devices": [{"access": "rwm"}]}})")) ==
             "config.json: linux.resources.devices[0].allow: required");
  BOOST_TEST(parse_err(with(R"("process": {"rlimits": [{"type": "RLIMIT_CORE", "hard": 1}]})")) ==
             "config.json: process.rlimits[0].soft: required");
}

BOOST_AUTO_TEST_CASE(error_numbers_out_of_range) {
  BOOST_TEST(parse_err(with(R"("process": {"user": {"uid": 4294967296, "gid": 0}})")) ==
             "config.json: process.user.uid: 4294967296 is out of range [0, 4294967295]");
  BOOST_TEST(parse_err(with(R"("process": {"user": {"uid": -1, "gid": 0}})")) ==
             "config.json: process.user.uid: expected a non-negative integer, got -1");
  BOOST_TEST(parse_err(with(R"("process": {"user": {"uid": 0, "additionalGids": [1, -5]}})")) ==
             "config.json: process.user.additionalGids[1]: expected a non-negative integer, got -5");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"blockIO": {"weight": 65536}}})")) ==
             "config.json: linux.resources.blockIO.weight: 65536 is out of range [0, 65535]");
  BOOST_TEST(parse_err(with(R"("process": {"rlimits": [{"type": "RLIMIT_CORE", "hard": 18446744073709551616, "soft": 0}]})")) ==
             "config.json: process.rlimits[0].hard: 18446744073709551616 is out of range [0, 18446744073709551615]");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"memory": {"limit": 9223372036854775808}}})")) ==
             "config.json: linux.resources.memory.limit: 9223372036854775808 is out of range [-9223372036854775808, "
             "9223372036854775807]");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"memory": {"swap": -9223372036854775809}}})")) ==
             "config.json: linux.resources.memory.swap: -9223372036854775809 is out of range [-9223372036854775808, "
             "9223372036854775807]");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"cpu": {"shares": -18446744073709551617}}})")) ==
             "config.json: linux.resources.cpu.shares: expected a non-negative integer, got -18446744073709551617");
  BOOST_TEST(parse_err(with(R"("linux": {"resources": {"cpu": {"shares": 1e3}}})")) ==
             "config.json: linux.resources.cpu.shares: expected a non-negative integer, got 1e3");
  BOOST_TEST(parse_err(with(R"("process": {"oomScoreAdj": 2147483648})")) ==
             "config.json: process.oomScoreAdj: 2147483648 is out of range [-2147483648, 2147483647]");
  BOOST_TEST(parse_err(with(R"("linux": {"timeOffsets": {"monotonic": {"nanosecs": -1}}})")) ==
             "config.json: linux.timeOffsets.monotonic.nanosecs: expected a non-negative integer, got -1");
}

BOOST_AUTO_TEST_CASE(error_rlimit_type_and_hook_timeout) {
  BOOST_TEST(parse_err(with(R"("process": {"rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1, "soft": 1},
      {"type": "RLIMIT_FOO", "hard": 1, "soft": 1}]})")) ==
             "config.json: process.rlimits[1].type: unknown rlimit type \"RLIMIT_FOO\"");
  BOOST_TEST(parse_err(with(R"("hooks": {"prestart": [{"path": "/bin/true", "timeout": 0}]})")) ==
             "config.json: hooks.prestart[0].timeout: must be greater than zero, got 0");
  BOOST_TEST(parse_err(with(R"("hooks": {"createRuntime": [{"path": "/bin/true", "timeout": -3}]})")) ==
             "config.json: hooks.createRuntime[0].timeout: must be greater than zero, got -3");
}

BOOST_AUTO_TEST_CASE(every_rlimit_type_resolves) {
  const std::pair<const char*, int> table[] = {
      {"RLIMIT_AS", RLIMIT_AS},           {"RLIMIT_CORE", RLIMIT_CORE},       {"RLIMIT_CPU", RLIMIT_CPU},
      {"RLIMIT_DATA", RLIMIT_DATA},       {"RLIMIT_FSIZE", RLIMIT_FSIZE},     {"RLIMIT_LOCKS", RLIMIT_LOCKS},
      {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK}, {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE},
      {"RLIMIT_NOFILE", RLIMIT_NOFILE},   {"RLIMIT_NPROC", RLIMIT_NPROC},     {"RLIMIT_RSS", RLIMIT_RSS},
      {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},   {"RLIMIT_RTTIME", RLIMIT_RTTIME},   {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
      {"RLIMIT_STACK", RLIMIT_STACK}};
  for (auto& [name, number] : table) {
    auto c = parse_ok(with(R"("process": {"rlimits": [{"type": ")" + std::string(name) + R"(", "hard": 2, "soft": 1}]})"));
    BOOST_TEST(c.process->rlimits.at(0).resource == number, name);
  }
}

BOOST_AUTO_TEST_CASE(unknown_namespace_type_names_the_path) {
  // Parsing accepts any type string; validation names the offending entry.
  auto c = parse_ok(R"({"ociVersion": "1.2.0", "root": {"path": "rootfs"}, "process": {"args": ["sh"]},
      "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}, {"type": "ipc"}, {"type": "foo"}]}})");
  auto v = validate_config(c);
  BOOST_REQUIRE(!v);
  BOOST_TEST(v.error().what() == "config.json: linux.namespaces[3].type: unknown namespace type \"foo\"");
}
