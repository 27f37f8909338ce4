// Container cgroups, v1 and v2 (and hybrid: v1 controllers for everything v1 has, plus
// the cgroup2 hierarchy at /sys/fs/cgroup/unified for what only it carries, as runc does).
// A Cgroup names the container's directory in every hierarchy it uses.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"

namespace sh::cgroups {
namespace detail {
struct Kept;
}

// hybrid: a controller mounted as v1 is used there; one only on cgroup2 (hugetlb here) is
// used through the unified hierarchy; the container's dir exists in every hierarchy.
enum class Mode { v1, v2, hybrid };

// What this host mounts where. Detected from /proc/self/mountinfo (cached per process).
struct Layout {
  Mode mode = Mode::v2;
  std::string unified_mount;                      // cgroup2 mount point, may be empty on pure v1
  std::map<std::string, std::string> v1_mounts;   // controller ("memory", "name=systemd") -> mount point
  std::vector<std::string> v2_controllers;        // controllers enabled in the unified root
  // The /proc/self/mountinfo text detect_layout read, for a clone of this process in a copy of
  // its mount namespace (init's rootfs::Options::host_mountinfo); empty from parse_layout.
  std::string mountinfo;
};
Result<Layout> detect_layout();
// The parsing half of detect_layout, for tests: mountinfo text, and the unified root's
// cgroup.controllers text (fills v2_controllers). Prefers mounts of a hierarchy's root ("/").
Result<Layout> parse_layout(std::string_view mountinfo, std::string_view v2_controllers = {});

// Turn OCI cgroupsPath into a path relative to each hierarchy root, e.g. "/sharness/<id>".
// Empty -> "/sharness/<id>". With systemd_cgroup and "slice:prefix:name", map to
// "<slice>/<prefix>-<name>.scope": where the system manager puts that scope (create then reads
// the path systemd really used from init's /proc/PID/cgroup, systemd_scope.hpp).
// Refuses paths containing ".." components.
// The slice expands as systemd lays it out ("a-b.slice" -> "/a.slice/a-b.slice", empty ->
// "system.slice"); relative paths are taken from "/"; the root cgroup itself is refused.
Result<std::string> resolve_path(const std::optional<std::string>& cgroups_path, const std::string& id,
                                 bool systemd_cgroup);

// A v1 hierarchy's `tasks` file, open for writing (Cgroup::open_v1_tasks).
struct TasksFile {
  std::string path;  // for messages
  Fd fd;
};
// Move the calling thread into each file's cgroup ("0" to each `tasks`). Only for a
// single-threaded process, which it moves whole.
Result<void> join_self(const std::vector<TasksFile>& files);

// The container's cgroup. Persisted in the state as (mode, relative path).
class Cgroup {
 public:
  Cgroup();
  Cgroup(Layout layout, std::string rel_path);

  const std::string& path() const { return path_; }
  const Layout& layout() const { return layout_; }

  // mkdir -p in every hierarchy; apply resources (memory, cpu, cpuset, pids, blkio,
  // hugetlb, devices allow/deny list, net_cls/net_prio, unified). Errors name the file.
  Result<void> create(const oci::Resources* res);
  // A cgroup another made (systemd's scope for the container, --systemd-cgroup): open and keep
  // its directory, then write `res` to its files as create() does. Nothing is made or removed.
  Result<void> adopt(const oci::Resources* res);
  // Move a process into the cgroup in every hierarchy; with `except_v1`, only the v2 one (a
  // child that joined the v1 hierarchies itself, through open_v1_tasks()).
  Result<void> add_pid(pid_t pid, bool except_v1 = false) const;
  // The `tasks` file of the container's directory in each v1 hierarchy (none on pure v2),
  // opened O_WRONLY|O_CLOEXEC, for a newly cloned child to join itself with join_self().
  // Why: a write of a pid to cgroup.procs takes the write side of the kernel's
  // cgroup_threadgroup_rwsem, which waits for an RCU grace period (7-32 ms on this 2-CPU host
  // under load, measured with strace -T); a thread moving itself ("0" to `tasks`) skips that
  // lock (kernel cgroup_procs_write_start: single thread, pid 0), 0.05 ms. For a
  // single-threaded process (init right after clone3) moving its only thread is moving it.
  Result<std::vector<TasksFile>> open_v1_tasks() const;
  // Apply a resources update (the `update` command) to an existing cgroup.
  Result<void> update(const oci::Resources& res) const;
  // Freeze/thaw (v1 freezer.state, v2 cgroup.freeze), waiting until it took effect.
  Result<void> freeze(bool frozen) const;
  Result<bool> is_frozen() const;
  // Host pids in the cgroup and in the cgroups below it (cgroup.procs of one hierarchy).
  Result<std::vector<pid_t>> pids() const;
  // Send `sig` to every process in the cgroup and below it (kill --all). SIGKILL on cgroup v2
  // goes through cgroup.kill (5.14+): the kernel kills the whole subtree, nothing can fork
  // away and no recycled pid is hit.
  Result<void> signal_all(int sig) const;
  // SIGKILL everything inside, wait for it to go, rmdir in every hierarchy (deepest first).
  // Missing directories are not an error.
  Result<void> destroy() const;
  // Path of the container's dir in the hierarchy holding `controller` ("" for v2 unified).
  std::string dir_for(const std::string& controller) const;
  // Path of the container's dir where its freezer is: the v1 freezer's, else cgroup2's (whose
  // freezer is no controller, so dir_for("freezer") is "" there). "" with neither.
  std::string freezer_path() const;
  // The v2 dir fd for clone3(CLONE_INTO_CGROUP), -1 when not pure v2.
  Result<int> open_v2_dir() const;
  // Every host cgroup directory fd this object (and the process's verified hierarchy roots)
  // keeps open, all O_CLOEXEC. A clone of the runtime (init, exec's child) closes them
  // first: no host directory may be open when it runs container-controlled code.
  std::vector<int> kept_fds() const;

  // Stats for `events --stats`: memory usage/limit, pids current/limit, cpu usage.
  struct Stats {
    uint64_t memory_usage = 0, memory_limit = 0, memory_max_usage = 0;
    uint64_t pids_current = 0, pids_limit = 0;
    std::optional<uint64_t> pids_peak;  // pids.peak, where the kernel has it (policy learn)
    uint64_t cpu_usage_ns = 0;
    uint64_t oom_kills = 0;
  };
  Result<Stats> stats() const;

 private:
  Layout layout_;
  std::string path_;
  // The directories opened so far, kept for this object's later operations (copies share them).
  std::shared_ptr<detail::Kept> kept_;
};

// The verified hierarchy roots this process keeps open (O_PATH|O_CLOEXEC), for a clone of
// the runtime to close (Cgroup::kept_fds includes them).
std::vector<int> kept_root_fds();
// Close the hierarchy roots this process keeps open: for a daemon that is about to sandbox
// itself with few fds (the KMS gate). Later calls open them again.
void close_kept_roots();

// Helpers exposed for unit tests.
std::string mode_name(Mode m);
// Convert cpu.shares (2..262144) to cgroup v2 cpu.weight (1..10000), as runc does.
uint64_t shares_to_weight(uint64_t shares);
// The v1 devices list entry ("c 1:3 rwm", "a *:* rwm").
std::string device_rule_string(const oci::DeviceRule& r);
// The device rules a container gets, as runc builds them: deny-all first whatever the config
// says (a config with no rules gets only the defaults), then `asked` (linux.resources.devices),
// then, unless `exact` (a policy's list), the defaults every container needs (c/b *:* m,
// null, zero, full, random, urandom, tty, ptmx, pts 136:*) and the nodes `created`
// (linux.devices) makes. mknod is allowed because only the runtime can create nodes: the
// container has no CAP_MKNOD unless configured. Unlike runc 1.1, /dev/net/tun (c 10:200) is not
// added (docs/intended-differences.md), nor /dev/console (c 5:1): a terminal's console is a
// bind of its pty (c 136:*).
std::vector<oci::DeviceRule> container_device_rules(const std::vector<oci::DeviceRule>& asked,
                                                    const std::vector<oci::Device>& created, bool exact);

}  // namespace sh::cgroups
