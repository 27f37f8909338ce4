// The shipped profiles: policies/harsh.json and policies/baseline.json parse and map, and
// harsh's seccomp filter, loaded for real in a child, runs busybox while unshare, mount,
// ptrace and namespace-creating clone fail.
#define BOOST_TEST_MODULE policy_shipped
#include <boost/test/unit_test.hpp>

#include "sidecar_shows.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <linux/sched.h>
#include <string>

#include "runtime/linux/seccomp.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/map.hpp"
#include "spec-mapping/seccomp_map.hpp"
#include "spec-mapping/syscall_groups.hpp"
#include "base/file.hpp"
#include "tests/unit/fork_child.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

// tests/unit/<this file> -> the repository root.
std::string repo() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/unit/"));
}

Policy shipped(const std::string& name) {
  auto p = load_policy(repo() + "/policies/" + name + ".json");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

seccomp::Filter compiled_filter(const Policy& p) {
  auto f = seccomp_filter(p);
  BOOST_REQUIRE_MESSAGE(f, (f ? "" : f.error().what()));
  BOOST_REQUIRE(f->has_value());
  auto c = seccomp::Filter::compile(**f);
  BOOST_REQUIRE_MESSAGE(c, (c ? "" : c.error().what()));
  return *c;
}

// Fork; in the child set no_new_privs, load the filter and run fn (which execs or _exits).
// A loaded filter cannot be removed: never let the child return into Boost.
sh::test::ChildResult under_filter(const seccomp::Filter& f, const std::function<void()>& fn) {
  int p[2];
  BOOST_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(p[1], 1);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) _exit(90);
    if (!f.load()) _exit(91);
    fn();
    _exit(92);
  }
  close(p[1]);
  return sh::test::collect(pid, p[0]);  // report: what the child wrote to its stdout
}

// In the child: 0 if `ret` failed with errno `want`, else an exit code naming the check.
void expect_fail(int check, long ret, int want) {
  if (!(ret < 0 && errno == want)) _exit(check);
}

}  // namespace

BOOST_AUTO_TEST_CASE(harsh_is_what_the_issue_asks) {
  Policy p = shipped("harsh");
  BOOST_TEST(p.id == "harsh");
  BOOST_TEST(!p.best_effort);
  BOOST_TEST(p.identity.uid->ephemeral);
  BOOST_TEST(p.identity.capabilities->empty());
  BOOST_TEST(p.identity.no_new_privileges);
  BOOST_TEST((p.namespaces == std::vector<std::string>{"cgroup", "ipc", "mount", "pid", "uts"}));
  BOOST_TEST((*p.network == Network::none));
  BOOST_TEST(*p.memory->limit == 128ull << 20);
  BOOST_TEST(*p.memory->address_space == 128ull << 20);
  BOOST_TEST(p.cpu.has_value());
  BOOST_TEST(*p.pids->limit == 4);
  BOOST_TEST(*p.wall_clock_seconds == 60u);
  BOOST_TEST((*p.devices == std::vector<std::string>{"null", "zero", "urandom"}));
  BOOST_TEST(p.mounts.readonly_root);
  BOOST_TEST((p.syscalls->default_action == DefaultAction::errno_eperm));
  auto allowed = allowed_syscalls(*p.syscalls);
  BOOST_REQUIRE(allowed);
  for (auto n : {"ptrace", "mount", "umount2", "unshare", "setns", "bpf", "keyctl", "add_key", "request_key",
                 "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "perf_event_open",
                 "kexec_load", "kexec_file_load", "init_module", "finit_module", "pivot_root", "chroot", "swapon",
                 "reboot", "clone3", "socket", "process_vm_readv"})
    BOOST_TEST(!allowed->contains(n), n);
  BOOST_TEST(allowed->contains("clone"));  // but only without CLONE_NEW* flags
}

BOOST_AUTO_TEST_CASE(harsh_maps_onto_a_config) {
  Policy p = shipped("harsh");
  oci::Config c;
  c.process.emplace();
  c.linux.namespaces = {{"network", "/proc/1/ns/net"}};
  Extension ext;
  BOOST_REQUIRE(apply_to_config(p, c, ext, host::probe()));
  BOOST_TEST(c.find_namespace("network")->path == "");
  BOOST_TEST(c.process->capabilities.bounding->empty());
  BOOST_TEST(c.process->no_new_privileges);
  BOOST_TEST(*c.linux.resources->memory->limit == 128ll << 20);
  BOOST_TEST(c.linux.resources->pids->limit == 4);
  BOOST_TEST(c.root.readonly);
  BOOST_TEST(ext.ephemeral_uid);
  BOOST_TEST(*ext.wall_clock_seconds == 60u);
  BOOST_TEST(*ext.network == "none");
  auto json = map_policy_json(p, true, host::probe(), kSidecarShows);
  BOOST_REQUIRE(json);
  BOOST_TEST(json->find("\"RLIMIT_AS\"") != std::string::npos);
  BOOST_TEST(json->find("\"RLIMIT_NPROC\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(baseline_parses_and_maps) {
  Policy p = shipped("baseline");
  BOOST_TEST(p.best_effort);
  BOOST_TEST(p.identity.capabilities->size() == 14u);  // Docker's default set
  BOOST_TEST(!p.identity.uid);
  auto json = map_policy_json(p, false, host::probe(), kSidecarShows);
  BOOST_REQUIRE_MESSAGE(json, (json ? "" : json.error().what()));
  BOOST_TEST(json->find("CAP_NET_BIND_SERVICE") != std::string::npos);
  compiled_filter(p);
  // baseline is looser than harsh in every dimension: their intersection is harsh's rules.
  Policy h = shipped("harsh");
  Policy both = intersect(p, h);
  BOOST_TEST(*both.memory->limit == *h.memory->limit);
  BOOST_TEST((*both.network == Network::none));
  BOOST_TEST(both.identity.capabilities->empty());
  auto ha = allowed_syscalls(*h.syscalls), ba = allowed_syscalls(*both.syscalls);
  BOOST_TEST(*ha == *ba);  // everything harsh allows, baseline allows too
}

// The workload profiles (docs/learn.md): learned from a run under harsh, so harsh's other
// sections, each pinning its interpreter and the dynamic loader at canonical paths, and no
// socket or ptrace in their syscalls.
BOOST_AUTO_TEST_CASE(workload_profiles_are_harsh_derivatives) {
  Policy h = shipped("harsh");
  for (const char* name : {"python3", "node", "sh"}) {
    BOOST_TEST_CONTEXT(name) {
      Policy p = shipped(name);
      BOOST_TEST(p.id == name);
      BOOST_TEST((p.network == h.network && p.namespaces == h.namespaces && p.identity == h.identity));
      BOOST_TEST((p.scope == h.scope && p.devices == h.devices && p.wall_clock_seconds == h.wall_clock_seconds));
      BOOST_TEST((p.priority == h.priority));
      BOOST_TEST(*p.memory->limit == *h.memory->limit);
      BOOST_REQUIRE(p.exec);
      bool loader = false;
      for (const auto& pin : *p.exec) {
        BOOST_TEST(!pin.path.starts_with("/bin/"));  // /bin is a link to usr/bin on Debian 12
        loader = loader || pin.path == "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";
      }
      BOOST_TEST(loader);
      for (const char* never : {"socket", "ptrace", "bpf", "keyctl", "io_uring_setup", "userfaultfd", "mount"})
        BOOST_TEST((std::ranges::find(p.syscalls->allow, never) == p.syscalls->allow.end()), never);
      auto json = map_policy_json(p, false, host::probe(), kSidecarShows);
      BOOST_REQUIRE_MESSAGE(json, (json ? "" : json.error().what()));
      compiled_filter(p);
    }
  }
}

BOOST_AUTO_TEST_CASE(explain_names_every_bound) {
  Policy p = shipped("harsh");
  HostProbe all;
  all.memory_cgroup = all.cpu_cgroup = all.pids_cgroup = all.devices_cgroup = true;
  all.seccomp = all.no_new_privs = all.pidfd = true;
  all.namespaces = {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"};
  all.landlock_abi = 7;
  all.memfd_noexec = true;
  auto bounds = explain(p, all);
  std::string text;
  for (const auto& b : bounds) text += format_bound(b) + "\n";
  for (auto want : {"memory cgroup limit 128 MiB", "RLIMIT_AS 128 MiB", "pids cgroup limit 4", "RLIMIT_NPROC 4",
                    "network namespace (empty", "no_new_privs", "capability sets empty",
                    "wall-clock limit 60 s (runtime watchdog", "seccomp allowlist (", "default EPERM",
                    "devices cgroup: only null, zero, urandom", "read-only root filesystem", "pid namespace (new)",
                    "Boundary (applied by the runtime before execve)", "Boundary (enforced from outside",
                    "Landlock ABI 7: file rules for 8 paths", "Landlock ABI 7: TCP bind only to [], connect only to []",
                    "Landlock ABI 7: scoped to the container's domain: abstract_unix_socket, signal",
                    "exec allowlist: 1 binaries pinned by SHA-256 (/bin/busybox)",
                    "no memfd execution: vm.memfd_noexec=2 in the container's pid namespace; seccomp denies memfd_create() too"})
    BOOST_TEST(text.find(want) != std::string::npos, want);
  BOOST_TEST(text.find("[MISSING]") == std::string::npos);
  // An older Landlock (Ubuntu 24.04's ABI 4, Debian 12's ABI 2): every right harsh asks for
  // that the kernel lacks has a stand-in, so harsh runs and says by what each is held.
  for (int abi : {2, 3, 4, 5}) {
    HostProbe old = all;
    old.landlock_abi = abi;
    auto lines = explain(p, old);
    auto r = require_available(lines, false);
    BOOST_TEST(r.has_value(), "ABI " << abi << ": " << (r ? "" : r.error().what()));
    std::string t;
    for (const auto& b : lines) t += format_bound(b) + "\n";
    BOOST_TEST(t.find("landlock scope signal (ABI 6): stood in for by the pid namespace") != std::string::npos, t);
    BOOST_TEST(t.find("landlock scope abstract_unix_socket (ABI 6): stood in for by the network namespace") !=
               std::string::npos);
    BOOST_TEST((t.find("landlock fs right ioctl_dev (ABI 5): stood in for by the devices cgroup") != std::string::npos) ==
               (abi < 5));
    BOOST_TEST((t.find("landlock net right connect_tcp (ABI 4): stood in for by the empty network namespace") !=
                std::string::npos) == (abi < 4));
    BOOST_TEST((t.find("landlock fs right truncate (ABI 3): stood in for by the read-only root and binds") !=
                std::string::npos) == (abi < 3));
    BOOST_TEST(t.find("[MISSING]") == std::string::npos, t);
  }
  // ABI 1 lacks refer, which nothing stands in for: refused, naming the right and the kernel.
  HostProbe old = all;
  old.landlock_abi = 1;
  auto r1 = require_available(explain(p, old), false);
  BOOST_REQUIRE(!r1);
  BOOST_TEST(r1.error().what().find("landlock fs right refer needs Landlock ABI 2 (Linux 5.19); this kernel has ABI 1") !=
             std::string::npos, r1.error().what());
  BOOST_TEST(require_available(bounds, false).has_value());
  // Without a pids controller: reported, and refused unless best effort.
  HostProbe lacking = all;
  lacking.pids_cgroup = false;
  auto missing = explain(p, lacking);
  auto r = require_available(missing, false);
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("pids cgroup limit 4: no pids cgroup controller") != std::string::npos);
  BOOST_TEST(require_available(missing, true).has_value());
  // This host (DESIGN.md §7) has all of harsh's mechanisms.
  auto here = explain(p, host::probe());
  auto ok = require_available(here, false);
  BOOST_TEST(ok.has_value(), (ok ? "" : ok.error().what()));
}

BOOST_AUTO_TEST_CASE(harsh_filter_runs_busybox) {
  auto f = compiled_filter(shipped("harsh"));
  auto r = under_filter(f, [] {
    const char* argv[] = {"/bin/busybox", "sh", "-c", "echo hi; ls /; cat /etc/hostname", nullptr};
    execv(argv[0], const_cast<char* const*>(argv));
    _exit(93);
  });
  BOOST_TEST(WIFEXITED(r.status));
  BOOST_TEST(WEXITSTATUS(r.status) == 0, "exit " << WEXITSTATUS(r.status) << ", output: " << r.report);
  BOOST_TEST(r.report.starts_with("hi\n"));
  BOOST_TEST(r.report.find("proc") != std::string::npos);  // ls / listed the root
}

BOOST_AUTO_TEST_CASE(harsh_filter_runs_more_applets) {
  auto f = compiled_filter(shipped("harsh"));
  auto r = under_filter(f, [] {
    const char* script =
        "id >/dev/null && sleep 0.01 && head -n1 /etc/passwd >/dev/null && "
        "dd if=/dev/zero of=/dev/null bs=1k count=4 2>/dev/null && x=$(echo sub) && test \"$x\" = sub && "
        "echo a | cat >/dev/null && wc -l /etc/passwd >/dev/null && grep -q root /etc/passwd && echo done";
    const char* argv[] = {"/bin/busybox", "sh", "-c", script, nullptr};
    execv(argv[0], const_cast<char* const*>(argv));
    _exit(93);
  });
  BOOST_TEST(WIFEXITED(r.status));
  BOOST_TEST(WEXITSTATUS(r.status) == 0, "exit " << WEXITSTATUS(r.status) << ", output: " << r.report);
  BOOST_TEST(r.report == "done\n");
}

BOOST_AUTO_TEST_CASE(harsh_filter_denies_the_kernels_long_tail) {
  auto f = compiled_filter(shipped("harsh"));
  auto r = under_filter(f, [] {
    // The test runs as root: without the filter every one of these would succeed.
    expect_fail(10, syscall(SYS_unshare, CLONE_NEWNS), EPERM);
    expect_fail(11, syscall(SYS_unshare, CLONE_NEWUSER), EPERM);
    expect_fail(12, mount("none", "/mnt", "tmpfs", 0, nullptr), EPERM);
    expect_fail(13, ptrace(PTRACE_TRACEME, 0, nullptr, nullptr), EPERM);
    expect_fail(14, syscall(SYS_setns, 0, 0), EPERM);
    expect_fail(15, syscall(SYS_umount2, "/proc", 0), EPERM);
    expect_fail(16, syscall(SYS_io_uring_setup, 1, nullptr), EPERM);
    expect_fail(17, syscall(SYS_bpf, 0, nullptr, 0), EPERM);
    expect_fail(18, syscall(SYS_keyctl, 0, 0, 0, 0, 0), EPERM);
    expect_fail(19, syscall(SYS_chroot, "/"), EPERM);
    expect_fail(20, syscall(SYS_socket, AF_INET, SOCK_STREAM, 0), EPERM);
    // clone with a namespace flag is refused; clone3 says ENOSYS so libc falls back.
    expect_fail(21, syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0), EPERM);
    expect_fail(22, syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0), EPERM);
    struct clone_args args {};
    args.exit_signal = SIGCHLD;
    expect_fail(23, syscall(SYS_clone3, &args, sizeof args), ENOSYS);
    // A plain fork (clone without CLONE_NEW*) still works.
    pid_t child = fork();
    if (child == 0) _exit(0);
    if (child < 0) _exit(24);
    int st = 0;
    if (waitpid(child, &st, 0) != child || !WIFEXITED(st)) _exit(25);
    _exit(0);
  });
  BOOST_TEST(WIFEXITED(r.status));
  BOOST_TEST(WEXITSTATUS(r.status) == 0, "failed check " << WEXITSTATUS(r.status));
}

BOOST_AUTO_TEST_CASE(busybox_unshare_applet_is_refused) {
  auto f = compiled_filter(shipped("harsh"));
  auto r = under_filter(f, [] {
    const char* argv[] = {"/bin/busybox", "unshare", "-n", "true", nullptr};
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    execv(argv[0], const_cast<char* const*>(argv));
    _exit(93);
  });
  BOOST_TEST(WIFEXITED(r.status));
  BOOST_TEST(WEXITSTATUS(r.status) != 0);
  BOOST_TEST(WEXITSTATUS(r.status) != 93);  // busybox ran, and failed
}

// policies/schema.json describes the same format the parser reads: the same keys, groups and devices.
BOOST_AUTO_TEST_CASE(schema_matches_the_parser) {
  auto text = read_file(repo() + "/policies/schema.json");
  BOOST_REQUIRE(text);
  auto doc = json::Document::parse(*text, "schema.json");
  BOOST_REQUIRE_MESSAGE(doc, (doc ? "" : doc.error().what()));
  auto props = doc->root().get("properties");
  BOOST_REQUIRE(props);
  std::vector<std::string> keys;
  BOOST_REQUIRE(props->each_member([&](std::string_view k, const json::Value&) -> Result<void> {
    keys.emplace_back(k);
    return {};
  }));
  // Every schema key is accepted by the parser or reserved ("not supported yet"), and vice versa.
  for (const auto& k : keys) {
    std::string body = "{\"id\": \"x\", \"version\": 1, \"" + k + "\": {}}";
    if (k == "id" || k == "version") continue;
    auto r = parse_policy(body);
    std::string err = r ? "" : r.error().what();
    BOOST_TEST(err.find("unknown key") == std::string::npos, k << ": " << err);
  }
  for (auto k : {"$schema", "id", "version", "description", "bestEffort", "identity", "namespaces", "network", "memory",
                 "cpu", "pids", "wallClock", "syscalls", "devices", "mounts", "role", "edges", "accepts", "files",
                 "ports", "scope", "exec", "secrets", "egress", "hooks"})
    BOOST_TEST(std::ranges::count(keys, k) == 1, k);
  for (auto r : reserved_sections()) BOOST_TEST(std::ranges::count(keys, std::string(r)) == 1, r);
  // Groups and devices enumerated in the schema are the parser's.
  auto groups = props->get("syscalls")->get("properties")->get("allow")->get("items")->get("oneOf");
  std::vector<std::string> schema_groups;
  BOOST_REQUIRE(groups->each_item([&](size_t i, const json::Value& alt) -> Result<void> {
    if (i == 1) TRYV(alt.opt("enum", schema_groups));
    return {};
  }));
  BOOST_TEST(schema_groups == group_names());
  std::vector<std::string> schema_devices, devices;
  BOOST_REQUIRE(props->get("devices")->get("items")->opt("enum", schema_devices));
  for (const auto& d : device_table()) devices.emplace_back(d.name);
  BOOST_TEST(schema_devices == devices);
}
