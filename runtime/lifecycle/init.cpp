// The container side of create and start. Order matters and follows the spec:
//   wait for the runtime (maps, cgroup) -> join/create namespaces -> hostname ->
//   rootfs (prepare) -> prestart/createRuntime hooks (by the runtime) -> createContainer
//   hooks -> pivot_root -> sysctl -> masked/readonly paths -> console -> rlimits etc. ->
//   resolve the executable, chdir -> compile seccomp -> ready -> [start barrier] ->
//   startContainer hooks -> user, capabilities, no_new_privs, seccomp -> execve.
#include "runtime/lifecycle/init.hpp"

#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/openat2.h>
#include <linux/magic.h>
#include <sched.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstring>

#include "base/file.hpp"
#include "base/log.hpp"
#include "hooks/hooks.hpp"
#include "runtime/lifecycle/process_launch.hpp"
#include "runtime/lifecycle/sync.hpp"
#include "runtime/linux/exec_allowlist.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/process_attrs.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/seccomp.hpp"
#include "runtime/linux/terminal.hpp"

namespace sh::lifecycle {

namespace {

// Write a sysctl through the container's own procfs: the file must be on procfs and the
// walk must not follow symlinks (CVE-2025-52881 redirected such writes).
Result<void> write_sysctl(const std::string& key, const std::string& value) {
  std::string rel = "sys/" + key;
  for (auto& c : rel)
    if (c == '.') c = '/';
  if (rel.find("..") != std::string::npos) return fail("sysctl " + key + ": invalid name");
  Fd proc(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (!proc) return sys_error("open /proc for sysctl " + key);
  struct open_how how{};
  how.flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH;
  Fd f(int(::syscall(SYS_openat2, proc.get(), rel.c_str(), &how, sizeof how)));
  if (!f) return sys_error("sysctl " + key + ": open /proc/" + rel);
  struct statfs sfs;
  if (::fstatfs(f.get(), &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) return fail("sysctl " + key + ": not on procfs");
  return write_all(f.get(), value, "/proc/" + rel);
}

struct Prepared {
  LaunchPlan plan;
};

Result<void> join_namespaces(const InitContext& ctx) {
  for (auto& j : ctx.plan->joins) {
    if (j.flag == CLONE_NEWPID || j.flag == CLONE_NEWTIME) continue;  // joined by the runtime before clone
    if (::setns(j.fd.get(), j.flag) < 0) return sys_error("join namespace " + j.path);
  }
  unsigned long later = 0;
  if (ctx.plan->joins_user()) later = ctx.plan->new_flags & ~(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWTIME);
  if (ctx.cgroupns_after_join) later |= CLONE_NEWCGROUP;
  if (later && ::unshare(int(later)) < 0) return sys_error("unshare namespaces");
  return {};
}

// lo up in a network namespace we created (as runc and crun do); a policy's "none" keeps it down.
Result<void> loopback_up() {
  Fd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket for lo");
  struct ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(s.get(), SIOCGIFFLAGS, &ifr) < 0) return sys_error("get flags of lo");
  ifr.ifr_flags |= IFF_UP;
  if (::ioctl(s.get(), SIOCSIFFLAGS, &ifr) < 0) return sys_error("bring lo up");
  return {};
}

Result<void> become_root_in_userns(const InitContext& ctx) {
  if (!ctx.plan->new_user() && !ctx.plan->joins_user()) return {};
  if (::setresgid(0, 0, 0) < 0) return sys_error("setresgid 0 in user namespace");
  if (::setresuid(0, 0, 0) < 0) return sys_error("setresuid 0 in user namespace");
  return {};
}

Result<void> setup_uts(const oci::Config& c) {
  if (!c.hostname.empty() && ::sethostname(c.hostname.data(), c.hostname.size()) < 0)
    return sys_error("sethostname " + c.hostname);
  if (!c.domainname.empty() && ::setdomainname(c.domainname.data(), c.domainname.size()) < 0)
    return sys_error("setdomainname " + c.domainname);
  return {};
}

// A new anonymous session keyring, not the caller's. runc and crun name theirs "_ses.<id>", but
// joining by name first searches every named keyring of the user namespace (one per running
// container: O(containers) per create) and joins an existing one of that name if the caller may
// search it, which a keyring made in advance under a container's name could exploit. Anonymous
// is always new. docs/intended-differences.md lists it.
Result<void> join_session_keyring(const InitContext& ctx) {
  if (ctx.no_new_keyring) return {};
  if (::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr) < 0 && errno != ENOSYS && errno != EPERM &&
      errno != EACCES)
    return sys_error("join session keyring");
  return {};
}

// A new audit session for the container (writing loginuid gives a new sessionid, inherited by
// every process and kept across execve): the denials reader tells the container's audit records
// apart by it, also of a process already gone. Before any namespace is joined (CAP_AUDIT_CONTROL
// in the host's user namespace); where it is refused the reader says what it cannot attribute.
void start_audit_session(uid_t uid) {
  Fd f(::open("/proc/self/loginuid", O_WRONLY | O_CLOEXEC));
  if (f) (void)write_all(f.get(), std::to_string(uid), "/proc/self/loginuid");
}

// stdio that is the null device (char 1:3: a client's /dev/null, as conmon gives stdin) is
// reopened from the container's own /dev/null, as runc's init does: no handle on a host mount
// stays in the container, and CRIU can dump it (a file on a mount outside the container is an
// external file it refuses). The container's node is checked to be the null device too.
Result<void> reopen_dev_null() {
  Fd null;
  struct stat ns{};
  for (int fd = 0; fd < 3; ++fd) {
    struct stat st;
    if (::fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3)) continue;
    if (!null) {
      null = Fd(::open("/dev/null", O_RDWR | O_CLOEXEC | O_NOFOLLOW));
      if (!null) return sys_error("open the container's /dev/null");
      if (::fstat(null.get(), &ns) < 0 || !S_ISCHR(ns.st_mode) || ns.st_rdev != makedev(1, 3))
        return fail("the container's /dev/null is not the null device (char 1:3)");
    }
    if (st.st_dev == ns.st_dev && st.st_ino == ns.st_ino) continue;  // already the container's
    if (::dup3(null.get(), fd, 0) < 0) return sys_error("reopen /dev/null on fd " + std::to_string(fd));
  }
  return {};
}

// Everything up to `ready`. Errors go to the runtime over the sync socket.
Result<Prepared> setup(const InitContext& ctx) {
  const oci::Config& c = *ctx.config;
  const oci::Process& p = *c.process;
  std::string state_json = TRY(sync::expect(ctx.sync_fd, sync::Msg::go, "runtime")).payload;
  // Into the container's v1 cgroups before anything else (a process, a namespace, a hook);
  // after `go`, so that the runtime is there to read an error.
  if (ctx.cgroup_tasks) {
    auto joined = cgroups::join_self(*ctx.cgroup_tasks);
    for (const auto& t : *ctx.cgroup_tasks) ::close(t.fd.get());
    if (!joined) return std::unexpected(std::move(joined.error()));
  }
  // Never dumpable from here (no /proc/<pid>/exe or memory access from the container to a process
  // that still holds runtime state), but only now: until `go` the runtime writes our uid_map and
  // gid_map, and for an unprivileged runtime (and newuidmap, which checks the owner of
  // /proc/<pid>) those files must still belong to the caller, which they stop doing once we are
  // not dumpable. No container code has run yet.
  ::prctl(PR_SET_DUMPABLE, 0);
  if (ctx.audit_session) start_audit_session(p.user.uid);
  TRYV(join_namespaces(ctx));
  TRYV(become_root_in_userns(ctx));
  if (ctx.plan->has(CLONE_NEWUTS)) TRYV(setup_uts(c));
  if (ctx.loopback_up) TRYV(loopback_up());
  if (ctx.net_devices) TRYV(netdev::configure_inside(*ctx.net_devices));
  TRYV(join_session_keyring(ctx));

  rootfs::Options ro;
  ro.rootfs = ctx.rootfs;
  ro.no_pivot = ctx.no_pivot;
  ro.in_user_namespace = ctx.plan->new_user() || ctx.plan->joins_user();
  ro.new_mount_ns = (ctx.plan->new_flags & CLONE_NEWNS) != 0;
  ro.joined_mount_ns = !ro.new_mount_ns && ctx.plan->has(CLONE_NEWNS);
  ro.premade = ctx.premade_mounts;
  ro.only_devices = ctx.only_devices;
  // Our mount namespace is a new copy of the runtime's (not a joined one): its mountinfo holds.
  if (ro.new_mount_ns && ctx.host_mountinfo && !ctx.host_mountinfo->empty()) ro.host_mountinfo = ctx.host_mountinfo;
  Fd rootfd = TRY(rootfs::prepare(c, ro));

  if (!c.hooks.prestart.empty() || !c.hooks.create_runtime.empty()) {
    TRYV(sync::send(ctx.sync_fd, sync::Msg::hooks_request));
    state_json = TRY(sync::expect(ctx.sync_fd, sync::Msg::hooks_done, "runtime")).payload;
  }
  TRYV(hooks::run(c.hooks.create_container, "createContainer", state_json));
  TRYV(rootfs::pivot(c, ro, rootfd.get()));
  rootfd.reset();
  TRYV(reopen_dev_null());
  // The console before finalize: /dev/console is bound while / may still be writable.
  if (p.terminal) {
    if (ctx.console_fd < 0) return fail("process.terminal is true but there is no console socket");
    TRYV(terminal::setup_console(ctx.console_fd, p.console_size, ro.own_mount_ns()));
    ::close(ctx.console_fd);
  } else if (::setsid() < 0) {
    // A session of its own, as runc's init makes (setup_console makes one with the terminal): no
    // signal of the caller's terminal reaches it, and CRIU can dump it (it refuses a tree whose
    // session leader is outside its pid namespace).
    return sys_error("setsid");
  }
  for (auto& [k, v] : c.linux.sysctl) TRYV(write_sysctl(k, v));
  TRYV(rootfs::finalize(c, ro));

  if (c.linux.personality) TRYV(procattr::apply_personality(*c.linux.personality));
  TRYV(procattr::apply_process(p));

  Prepared out;
  // The pins are verified and bound before any Landlock rule is opened on them.
  if (ctx.exec_pins) {
    std::span<const exec_allowlist::Hashed> known;
    if (ctx.pin_hashes) known = *ctx.pin_hashes;
    TRYV(exec_allowlist::pin_all(*ctx.exec_pins, known));
  }
  std::vector<oci::LandlockConfig> landlock;
  if (p.landlock_json) landlock.push_back(TRY(oci::parse_landlock(*p.landlock_json, "config.json: process.landlock")));
  if (ctx.policy_landlock) landlock.push_back(*ctx.policy_landlock);
  out.plan = TRY(plan_launch(p, ctx.filters ? *ctx.filters : std::vector<seccomp::Filter>{}, landlock, ctx.preserve_fds));
  if (ctx.recording) out.plan.recording = *ctx.recording;
  out.plan.deny_write_execute = ctx.deny_write_execute;
  if (c.linux.memory_policy) out.plan.memory_policy = &*c.linux.memory_policy;
  return out;
}

// After the start barrier: the last bounds, applied from above, then execve.
Result<void> finish(const InitContext& ctx, Prepared& prep, int conn) {
  auto msg = TRY(sync::expect(conn, sync::Msg::start, "start command"));
  TRYV(hooks::run(ctx.config->hooks.start_container, "startContainer", msg.payload));
  prep.plan.notify_sink = conn;  // `start` hands a seccomp notify fd to listenerPath
  return launch(prep.plan);
}

[[noreturn]] void die(int fd, const Error& e) {
  (void)sync::send(fd, sync::Msg::error, e.what());
  _exit(1);
}

}  // namespace

void init_main(const InitContext& ctx) {
  // A flock belongs to the open file description we share with the runtime: drop our copy
  // or the lock outlives the runtime's command.
  if (ctx.state_dir_fd >= 0) ::close(ctx.state_dir_fd);
  for (int fd : ctx.host_fds) ::close(fd);
  // Die with the runtime while it still sets us up. Not dumpable from `go` on (setup()).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::prctl(PR_SET_NAME, "sharness:[init]");
  auto prep = setup(ctx);
  if (!prep) die(ctx.sync_fd, prep.error());
  ::prctl(PR_SET_PDEATHSIG, 0);
  if (auto r = sync::send(ctx.sync_fd, sync::Msg::ready); !r) _exit(1);
  if (ctx.listen_fd < 0) {
    // run: the runtime sends `start` on the socket it set us up over (EOF if it died first).
    auto r = finish(ctx, *prep, ctx.sync_fd);
    die(ctx.sync_fd, r.error());
  }
  ::close(ctx.sync_fd);

  // The start barrier: `start` connects here. A failed peer (closed before sending) is ignored.
  for (;;) {
    int conn = ::accept4(ctx.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      _exit(1);
    }
    ::close(ctx.listen_fd);
    auto r = finish(ctx, *prep, conn);
    die(conn, r.error());
  }
}

}  // namespace sh::lifecycle
