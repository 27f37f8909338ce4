// The one host probe (host_facts.hpp).
#include "runtime/linux/host_facts.hpp"
#include "runtime/linux/process_attrs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <set>
#include <string_view>

#include "base/file.hpp"
#include "base/text.hpp"
#include "runtime/linux/apparmor.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/landlock.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/seccomp.hpp"

namespace sh::host {
namespace {

// The entries of /proc/self/ns, read as one directory: a lookup of each name instead makes
// procfs build a dentry and an inode per name, ~7 us each in a process this young.
std::set<std::string, std::less<>> proc_ns_entries() {
  std::set<std::string, std::less<>> out;
  DIR* d = ::opendir("/proc/self/ns");
  if (!d) return out;
  while (const struct dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') out.emplace(e->d_name);
  ::closedir(d);
  return out;
}

// The cgroup controllers this host offers: /proc/cgroups (name, hierarchy id, cgroup count,
// enabled; id 0 means "not on a v1 hierarchy") and the cgroup.controllers of a cgroup2
// hierarchy (at /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host).
void controllers(Facts& h) {
  std::set<std::string, std::less<>> v1, v2;
  bool v2_mounted = false;  // at /sys/fs/cgroup: device rules are eBPF programs on any v2 cgroup
  if (auto text = read_file("/proc/cgroups", 1 << 16))
    for (std::string_view rest = *text; !rest.empty();) {
      size_t nl = rest.find('\n');
      std::string line(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      char n[64];
      long hierarchy = 0, count = 0, enabled = 0;
      if (!line.starts_with('#') && std::sscanf(line.c_str(), "%63s %ld %ld %ld", n, &hierarchy, &count, &enabled) == 4 &&
          enabled == 1 && hierarchy > 0)
        v1.insert(n);
    }
  for (const char* root : {"/sys/fs/cgroup/cgroup.controllers", "/sys/fs/cgroup/unified/cgroup.controllers"}) {
    auto text = read_file(root, 4096);
    if (!text) continue;
    if (root[15] == 'c') v2_mounted = true;  // "/sys/fs/cgroup/c..."
    for (auto& w : words(*text)) v2.insert(std::move(w));
  }
  auto has = [&](std::string_view name) { return v1.contains(name) || v2.contains(name); };
  h.memory_cgroup = has("memory");
  h.cpu_cgroup = has("cpu");
  h.pids_cgroup = has("pids");
  h.devices_cgroup = v1.contains("devices") || v2_mounted;
}

// Every capability of this kernel that a config can name (libcap may not know the newest).
std::vector<std::string> capability_names() {
  std::vector<std::string> out;
  for (int c = 0; c <= caps::last_cap(); ++c) {
    std::string n = caps::name(c);
    auto back = caps::parse(n);
    if (n.starts_with("CAP_") && back && *back == c) out.push_back(std::move(n));
  }
  return out;
}

Facts::Seccomp seccomp_detail() {
  Facts::Seccomp s;
  // libseccomp's API level says what the kernel takes: 3 adds LOG and KILL_PROCESS, 5 NOTIFY.
  s.api = ::seccomp_api_get();
  const std::pair<const char*, unsigned> actions[] = {
      {"SCMP_ACT_ALLOW", 1}, {"SCMP_ACT_ERRNO", 1}, {"SCMP_ACT_KILL", 1}, {"SCMP_ACT_KILL_PROCESS", 3},
      {"SCMP_ACT_KILL_THREAD", 1}, {"SCMP_ACT_LOG", 3}, {"SCMP_ACT_NOTIFY", 5}, {"SCMP_ACT_TRACE", 1},
      {"SCMP_ACT_TRAP", 1},
  };
  for (const auto& [name, level] : actions)
    if (s.api >= level && seccomp::parse_action(name, std::nullopt)) s.actions.emplace_back(name);
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

Facts probe(Depth depth) {
  Facts h;
  struct utsname u {};
  if (::uname(&u) == 0) h.kernel = u.release;
  h.landlock_abi = landlock::abi_version();
  const auto entries = proc_ns_entries();
  for (std::string ns : {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"})
    if (ns::clone_flag(ns) != 0 && entries.contains(std::string_view(ns::proc_name(ns)))) h.namespaces.insert(ns);
  controllers(h);
  // EINVAL when the kernel has no CONFIG_SECCOMP; else our own mode (0: none yet).
  h.seccomp = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  h.no_new_privs = ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0;
  long fd = ::syscall(SYS_pidfd_open, ::getpid(), 0);
  if (fd >= 0) {
    h.pidfd = true;
    ::close(int(fd));
  }
  // Writable, not only present: /proc/sys answers only the host's root (a rootless caller, or
  // root of a user namespace, gets EACCES when create sets it), so there seccomp stands in.
  h.memfd_noexec = ::access("/proc/sys/vm/memfd_noexec", W_OK) == 0;
  h.mdwe = ::prctl(procattr::kGetMdwe, 0, 0, 0, 0) >= 0;
#ifdef SYS_memfd_secret
  long sfd = ::syscall(SYS_memfd_secret, O_CLOEXEC);
  if (sfd >= 0) ::close(int(sfd));
  h.memfd_secret = sfd >= 0;
#endif
  if (depth == Depth::features) {
    h.apparmor = apparmor::kernel_answers();
    if (h.seccomp) h.seccomp_detail = seccomp_detail();
    h.capabilities = capability_names();
    h.idmap_mounts = idmap_supported();
  }
  return h;
}

}  // namespace sh::host
