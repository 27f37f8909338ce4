// Private pieces of the cgroup implementation, shared by cgroups*.cpp and the unit test.
// Nothing outside runtime/linux/cgroups*.cpp and tests/unit/test_cgroups.cpp includes this.
#pragma once
#include <linux/bpf.h>

#include <map>
#include <optional>
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"
#include "runtime/linux/cgroups.hpp"

namespace sh::cgroups::detail {

// Production refuses to touch anything that is not a cgroup filesystem; unit tests build
// fake hierarchies on tmpfs to check the v1/v2 translation without root.
void allow_any_fs_for_tests(bool allow);

// A directory in one hierarchy, opened O_PATH without following any symlink on the way.
// Every file operation goes through openat(fd, name, O_NOFOLLOW) and names the full path.
struct Dir {
  std::string path;  // host path, for messages
  Fd fd;
  bool v2 = false;

  Result<void> write(std::string_view file, std::string_view value) const;
  Result<std::string> read(std::string_view file) const;
  Result<std::string> read_trimmed(std::string_view file) const;
  bool has(std::string_view file) const;
  std::string file_path(std::string_view file) const { return path + "/" + std::string(file); }
};

// One mounted hierarchy the container gets a directory in.
struct Hierarchy {
  std::string mount;
  bool v2 = false;
  bool cpuset_v1 = false;  // v1 cpuset: every level needs cpuset.cpus/mems populated
};
// Every hierarchy the container lives in: unique v1 mounts (plus the unified one in
// hybrid mode), or the unified one alone on v2.
std::vector<Hierarchy> hierarchies(const Layout& l);
// The hierarchy that carries a controller (v1 and v2 names differ only for blkio/io).
std::optional<Hierarchy> hierarchy_for(const Layout& l, std::string_view v1_name, std::string_view v2_name);

// The verified root of a hierarchy: opened O_PATH|O_NOFOLLOW|O_CLOEXEC and checked to be
// cgroupfs (statfs magic) once per process, then kept for every later walk.
Result<const Dir*> root_of(const std::string& mount, bool v2);

// A container's directories, opened once per hierarchy and kept by its Cgroup object for
// cgroup.procs, limits and removal (and the leaf's parent, for the rmdir), by mount point.
struct Kept {
  std::map<std::string, Dir> leaves, parents;
};

// Split "/a/b" into {"a","b"}; refuses "..". join(c, n) gives "/c0/../c(n-1)".
Result<std::vector<std::string>> components(std::string_view rel);
std::string join(const std::vector<std::string>& comps, size_t n);
// Open mount/rel walking one component at a time with O_NOFOLLOW.
Result<Dir> open_dir(const std::string& mount, std::string_view rel, bool v2);
// Same, creating missing levels (0755). Appends each level it created (as a rel path) to
// `created`, in creation order. With `parent`, also hands back the leaf's parent directory.
Result<Dir> make_dir(const Hierarchy& h, std::string_view rel, std::vector<std::string>& created,
                     Dir* parent = nullptr);
// rmdir mount/rel through its parent's fd. A missing directory is success.
Result<void> remove_dir(const std::string& mount, std::string_view rel, bool v2);
// rmdir parent/name. A missing directory is success.
Result<void> remove_child(const Dir& parent, const std::string& name);

// Write two files whose order matters (memory/memsw, cfs period/quota): a then b, and on
// EINVAL b then a.
Result<void> write_pair(const Dir& d, std::string_view fa, const std::string& va, std::string_view fb,
                        const std::string& vb);

// Parse a decimal; "max" gives `max_value`.
std::optional<uint64_t> parse_u64(std::string_view s, uint64_t max_value = UINT64_MAX);
// Value of `key` in a "key value" per line file (memory.events, cpu.stat, oom_control).
std::optional<uint64_t> keyed_value(std::string_view text, std::string_view key);

// The container's directories, opened on first use, for one operation.
class Dirs {
 public:
  // With `kept`, directories are looked up in and added to it (a Cgroup's kept leaves).
  Dirs(const Layout& l, std::string rel, std::map<std::string, Dir>* kept = nullptr)
      : layout_(l), rel_(std::move(rel)), open_(kept ? *kept : own_) {}
  // The directory holding a controller's files, nullptr when the host lacks the controller.
  // With `enable`, a v2 controller is first enabled in every ancestor's subtree_control.
  Result<const Dir*> find(std::string_view v1_name, std::string_view v2_name, bool enable = false);
  // Same for a resource the config asks for: a missing controller is an error naming `what`.
  Result<const Dir*> need(std::string_view v1_name, std::string_view v2_name, std::string_view what);
  // The unified hierarchy's directory (v2 or hybrid), nullptr on pure v1.
  Result<const Dir*> unified();
  // Enable a v2 controller in the subtree_control of every ancestor of the container.
  Result<void> enable_v2(std::string_view controller);

 private:
  Result<const Dir*> open(const Hierarchy& h);

  const Layout& layout_;
  std::string rel_;
  std::map<std::string, Dir> own_;
  std::map<std::string, Dir>& open_;
  std::set<std::string, std::less<>> enabled_;
};

namespace v1 {
Result<void> memory(const Dir& d, const oci::MemoryResources& m, bool updating);
Result<void> cpu(const Dir& d, const oci::CpuResources& c);
Result<void> blkio(const Dir& d, const oci::BlockIoResources& b);
Result<void> devices(const Dir& d, const std::vector<oci::DeviceRule>& rules);
Result<void> freeze(const Dir& d, bool frozen);
Result<bool> is_frozen(const Dir& d);
}  // namespace v1

namespace v2 {
Result<void> memory(const Dir& d, const oci::MemoryResources& m, bool updating);
Result<void> cpu(const Dir& d, const oci::CpuResources& c);
Result<void> io(const Dir& d, const oci::BlockIoResources& b);
// Device rules as the v1 list means them (cgroups_v2_devices.cpp): the wildcard "a *:* rwm"
// rule last in the list sets the default and drops what came before it; the rest, later
// ones winning, decide each access bit (m, r, w) on its own.
struct DeviceFilter {
  bool default_allow = false;
  std::vector<oci::DeviceRule> rules;  // after the last reset, in order
};
// Refuses a rule whose type, access or numbers the kernel could not mean (naming its path).
Result<DeviceFilter> device_filter(const std::vector<oci::DeviceRule>& rules);
// The decision for one request (type 'b' or 'c'; access a combination of "rwm").
bool allows(const DeviceFilter& f, char type, int64_t major, int64_t minor, const std::string& access);
// The BPF_PROG_TYPE_CGROUP_DEVICE program deciding as `allows` does.
std::vector<struct bpf_insn> device_program(const DeviceFilter& f);
// Load that program and attach it to `d` (BPF_F_ALLOW_MULTI: a parent's program still runs).
// Nothing is attached when the rules allow everything.
Result<void> devices(const Dir& d, const std::vector<oci::DeviceRule>& rules);
// Refuses keys that could escape the directory or move/kill processes.
Result<void> check_unified_key(const std::string& key);
Result<void> unified(Dirs& dirs, const std::map<std::string, std::string>& kv);
Result<void> freeze(const Dir& d, bool frozen);
Result<bool> is_frozen(const Dir& d);
// OCI blkio weight (10..1000) to io.weight (1..10000).
uint64_t blkio_to_io_weight(uint64_t w);
}  // namespace v2

// Same file names on v1 and v2.
Result<void> cpuset(const Dir& d, const oci::CpuResources& c);
Result<void> pids(const Dir& d, const oci::PidsResources& p);
Result<void> hugetlb(const Dir& d, const std::vector<oci::HugepageLimit>& limits);

// Poll `done` with a growing sleep until it holds or `timeout_ms` passes.
template <class F>
Result<bool> wait_until(F&& done, int timeout_ms);

}  // namespace sh::cgroups::detail

// ---- template definition -------------------------------------------------------------
#include <time.h>

namespace sh::cgroups::detail {
template <class F>
Result<bool> wait_until(F&& done, int timeout_ms) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  long sleep_ns = 20'000;  // the usual freeze takes well under a millisecond
  for (;;) {
    bool ok = TRY(done());
    if (ok) return true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1'000'000;
    if (elapsed_ms >= timeout_ms) return false;
    struct timespec ts{0, sleep_ns};
    nanosleep(&ts, nullptr);
    sleep_ns = std::min(sleep_ns * 2, 10'000'000L);
  }
}
}  // namespace sh::cgroups::detail
