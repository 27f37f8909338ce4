// The features document of this build and host: what the kernel and the libraries here take,
// probed. (pause.cpp, update.cpp and cgroup_reads.cpp hold the operations on a living container.)
#include "runtime/lifecycle/ops.hpp"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/json.hpp"
#include "base/log.hpp"
#include "runtime/lifecycle/floor.hpp"
#include "runtime/linux/apparmor.hpp"
#include "oci/spec13.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/landlock.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/proc_info.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/seccomp.hpp"


// ---- features ------------------------------------------------------------------------------
namespace sh::lifecycle {
namespace {

bool exists(const char* path) { return ::access(path, F_OK) == 0; }

// Candidates are the names this runtime's option parser has; keeping only those it really
// takes as options (not as filesystem data) keeps the list honest if the parser changes.
std::vector<std::string> accepted_mount_options() {
  static constexpr const char* kCandidates[] = {
      "async",     "atime",      "bind",        "defaults",     "dev",           "diratime",    "dirsync",
      "exec",      "idmap",      "iversion",    "lazytime",     "loud",          "mand",        "noatime",
      "nodev",     "nodiratime", "noexec",      "noiversion",   "nolazytime",    "nomand",      "norelatime",
      "nostrictatime", "nosuid", "nosymfollow", "private",      "ratime",        "rbind",       "rdev",
      "rdiratime", "relatime",   "remount",     "rexec",        "ridmap",        "rnoatime",    "rnodev",
      "rnodiratime", "rnoexec",  "rnorelatime", "rnostrictatime", "rnosuid",     "rnosymfollow", "ro",
      "rprivate",  "rrelatime",  "rro",         "rrw",          "rshared",       "rslave",      "rstrictatime",
      "rsuid",     "rsymfollow", "runbindable", "rw",           "shared",        "silent",      "slave",
      "strictatime", "suid",     "symfollow",   "sync",         "tmpcopyup",     "unbindable",
  };
  std::vector<std::string> out;
  for (const char* o : kCandidates) {
    auto f = rootfs::parse_mount_options({o});
    if (f.data.empty()) out.emplace_back(o);
  }
  return out;
}

// The namespaces we create or join, those this kernel has (/proc/self/ns/<name>).
std::vector<std::string> host_namespaces() {
  std::vector<std::string> out;
  for (const char* t : {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"}) {
    if (ns::clone_flag(t) == 0) continue;
    if (exists(("/proc/self/ns/" + std::string(ns::proc_name(t))).c_str())) out.emplace_back(t);
  }
  return out;
}

// Every capability of this kernel that a config can name (libcap may not know the newest).
std::vector<std::string> host_capabilities() {
  std::vector<std::string> out;
  for (int c = 0; c <= caps::last_cap(); ++c) {
    std::string n = caps::name(c);
    auto back = caps::parse(n);
    if (n.starts_with("CAP_") && back && *back == c) out.push_back(std::move(n));
  }
  return out;
}

oci::Features::Seccomp seccomp_features() {
  oci::Features::Seccomp s;
  // EINVAL: a kernel without CONFIG_SECCOMP.
  s.enabled = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  if (!s.enabled) return s;
  // libseccomp's API level says what the kernel takes: 3 adds LOG and KILL_PROCESS, 5 NOTIFY.
  const unsigned api = ::seccomp_api_get();
  const std::pair<const char*, unsigned> actions[] = {
      {"SCMP_ACT_ALLOW", 1}, {"SCMP_ACT_ERRNO", 1}, {"SCMP_ACT_KILL", 1}, {"SCMP_ACT_KILL_PROCESS", 3},
      // Not SCMP_ACT_NOTIFY: create refuses it until the listener fd reaches listenerPath.
      {"SCMP_ACT_KILL_THREAD", 1}, {"SCMP_ACT_LOG", 3}, {"SCMP_ACT_TRACE", 1},
      {"SCMP_ACT_TRAP", 1},
  };
  for (const auto& [name, level] : actions)
    if (api >= level && seccomp::parse_action(name, std::nullopt)) s.actions.emplace_back(name);
  for (const char* op : {"SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_LE", "SCMP_CMP_LT",
                         "SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE"})
    if (seccomp::parse_op(op)) s.operators.emplace_back(op);
  for (const char* a : {"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM", "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
                        "SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
                        "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PARISC", "SCMP_ARCH_PARISC64",
                        "SCMP_ARCH_PPC", "SCMP_ARCH_PPC64", "SCMP_ARCH_PPC64LE", "SCMP_ARCH_RISCV64",
                        "SCMP_ARCH_S390", "SCMP_ARCH_S390X", "SCMP_ARCH_SH", "SCMP_ARCH_SHEB", "SCMP_ARCH_X32",
                        "SCMP_ARCH_X86", "SCMP_ARCH_X86_64"})
    if (seccomp::parse_arch(a)) s.archs.emplace_back(a);
  s.known_flags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                   "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"};
  // A flag is supported when a filter asking for it compiles: libseccomp refuses what it
  // or the kernel cannot do when the attribute is set.
  for (const auto& flag : s.known_flags) {
    oci::Seccomp probe;
    probe.default_action = "SCMP_ACT_ALLOW";
    probe.flags = {flag};
    if (seccomp::Filter::compile(probe)) s.supported_flags.push_back(flag);
  }
  return s;
}

// In the probe child: plain syscalls only. Returns the exit code (0: idmap works).
int idmap_probe_child() {
  ::alarm(5);  // a stuck probe must not hang `features`
  if (::unshare(CLONE_NEWNS) < 0) return 1;
  int ready[2], hold[2];
  if (::pipe2(ready, O_CLOEXEC) < 0 || ::pipe2(hold, O_CLOEXEC) < 0) return 1;
  // The mapping's owner: a helper in a new user namespace, alive until we hold an fd of it.
  pid_t helper = ::fork();
  if (helper < 0) return 1;
  if (helper == 0) {
    char c = 0;
    ::close(hold[1]);  // else it would never see EOF on hold
    if (::unshare(CLONE_NEWUSER) < 0) ::_exit(1);
    if (::write(ready[1], &c, 1) != 1) ::_exit(1);
    while (::read(hold[0], &c, 1) < 0 && errno == EINTR) {
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(hold[0]);
  char c;
  if (::read(ready[0], &c, 1) != 1) return 1;
  const char map[] = "0 100000 65536\n";
  char path[64];
  for (const char* file : {"uid_map", "gid_map"}) {
    snprintf(path, sizeof path, "/proc/%d/%s", int(helper), file);
    int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, map, sizeof map - 1) != ssize_t(sizeof map - 1)) return 1;
    ::close(fd);
  }
  snprintf(path, sizeof path, "/proc/%d/ns/user", int(helper));
  int userns = ::open(path, O_RDONLY | O_CLOEXEC);
  ::close(hold[1]);
  ::waitpid(helper, nullptr, 0);
  if (userns < 0) return 1;
  // A detached tmpfs: it is never attached anywhere, and goes with its fd.
  int fs = ::fsopen("tmpfs", FSOPEN_CLOEXEC);
  if (fs < 0 || ::fsconfig(fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) < 0) return 1;
  int mnt = ::fsmount(fs, FSMOUNT_CLOEXEC, 0);
  if (mnt < 0) return 1;
  struct mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_IDMAP;
  attr.userns_fd = uint64_t(userns);
  return ::mount_setattr(mnt, "", AT_EMPTY_PATH, &attr, sizeof attr) == 0 ? 0 : 1;
}

// Can this kernel idmap a mount (tmpfs has allowed it since 6.3)? Asked in a forked child
// with its own mount namespace, so the probe leaves nothing behind.
bool idmap_supported() {
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) ::_exit(idmap_probe_child());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

oci::Features host_features() {
  oci::Features f;
  f.hooks = {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"};
  f.mount_options = accepted_mount_options();
  f.linux.namespaces = host_namespaces();
  f.linux.capabilities = host_capabilities();
  // Both cgroup versions (and hybrid) are implemented; systemd is not asked (no D-Bus), rdma refused.
  f.linux.cgroup = {.v1 = true, .v2 = true, .systemd = false, .systemd_user = false, .rdma = false};
  f.linux.seccomp = seccomp_features();
  // Claimed where the launch plan applies a profile (the kernel answers for AppArmor); SELinux
  // labels are refused (not implemented), so never claimed.
  f.linux.apparmor = apparmor::kernel_answers();
  f.linux.selinux = false;
  // linux.intelRdt is refused (with the field named) whether or not the host has resctrl.
  f.linux.intel_rdt = {.enabled = false, .schemata = false, .monitoring = false};
  f.linux.idmap_mounts = idmap_supported();
  f.linux.net_devices = true;  // moved over rtnetlink (runtime/linux/netdev.cpp)
  f.linux.memory_policy = {.modes = oci::memory_policy_mode_names(), .flags = oci::memory_policy_flag_names()};
  auto ll = landlock::supported();
  f.linux.landlock = {.enabled = ll.abi > 0, .abi = ll.abi, .fs = ll.fs, .net = ll.net, .scoped = ll.scoped,
                      .classes = {{"files", ll.abi >= 1},
                                  {"ports", ll.abi >= 4},
                                  {"scope", ll.abi >= 6},
                                  {"exec", ll.abi >= 1 && exists("/proc/sys/vm/memfd_noexec")}}};
  f.annotations["org.sharness.landlock.abi"] = std::to_string(ll.abi);
  const struct scmp_version* v = ::seccomp_version();
  f.annotations["io.github.seccomp.libseccomp.version"] =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->micro);
  f.annotations["org.opencontainers.runc.checkpoint.enabled"] = "false";
  // The policy annotation changes what the container may do (it can only tighten, but a
  // client that strips unknown annotations should know this one matters).
  f.unsafe_annotations = {"org.sharness.policy"};
  return f;
}

}  // namespace sh::lifecycle
