#include "runtime/linux/self_sandbox.hpp"

#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memory>

#include "oci/landlock.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/landlock.hpp"

namespace sh::sandbox {

Result<void> empty_root() {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return sys_error("make / private");
  // The new root: an empty tmpfs on a directory that exists everywhere.
  const char* dir = "/tmp";
  if (::mount("kms-root", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,nr_inodes=4,mode=0555") != 0)
    return sys_error("mount an empty tmpfs on /tmp");
  if (::chdir(dir) != 0) return sys_error("chdir to the empty root");
  // pivot_root(".", "."): the old root ends up on top of the new one, then goes away.
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return sys_error("pivot_root into the empty root");
  if (::umount2(".", MNT_DETACH) != 0) return sys_error("detach the old root");
  if (::chdir("/") != 0) return sys_error("chdir /");
  if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    return sys_error("remount the empty root read-only");
  return {};
}

Result<void> harden(unsigned nofile, unsigned nproc) {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return sys_error("PR_SET_DUMPABLE 0");
  struct Lim {
    int res;
    rlim_t v;
    const char* name;
  };
  for (auto l : {Lim{RLIMIT_CORE, 0, "RLIMIT_CORE"}, Lim{RLIMIT_NOFILE, nofile, "RLIMIT_NOFILE"},
                 Lim{RLIMIT_MEMLOCK, 0, "RLIMIT_MEMLOCK"}}) {
    struct rlimit r{l.v, l.v};
    if (::setrlimit(l.res, &r) != 0) return sys_error(std::string("setrlimit ") + l.name);
  }
  if (nproc) {
    struct rlimit r{nproc, nproc};
    if (::setrlimit(RLIMIT_NPROC, &r) != 0) return sys_error("setrlimit RLIMIT_NPROC");
  }
  return {};
}

Result<void> drop_to(uid_t uid, gid_t gid) {
  if (uid == 0 || gid == 0) return fail("drop privileges: refusing uid/gid 0");
  // Every set named and empty (an absent set means "leave as is" to the OCI helpers).
  oci::Capabilities none;
  none.bounding = none.effective = none.inheritable = none.permitted = none.ambient = std::vector<std::string>{};
  // The bounding set first (needs CAP_SETPCAP), so that nothing can come back on exec.
  TRYVC("drop capabilities", caps::apply_bounding(none));
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return sys_error("clear ambient capabilities");
  if (::setgroups(0, nullptr) != 0) return sys_error("setgroups []");
  if (::setresgid(gid, gid, gid) != 0) return sys_error("setresgid " + std::to_string(gid));
  if (::setresuid(uid, uid, uid) != 0) return sys_error("setresuid " + std::to_string(uid));
  // Changing uid cleared permitted and effective; clear inheritable too and check.
  TRYVC("drop capabilities", caps::apply_sets(none));
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return sys_error("PR_SET_DUMPABLE 0");
  if (::setuid(0) == 0) return fail("drop privileges: setuid(0) still works");
  for (int cap = 0; cap <= caps::last_cap(); ++cap)
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) return fail("drop privileges: " + caps::name(cap) + " still bounding");
  return {};
}

const std::vector<std::string>& base_syscalls() {
  // What strace shows a serving KMS process use, plus what malloc and OpenSSL's DRBG reseed
  // may need (mmap family, getrandom, futex). No mprotect: no page ever turns executable.
  static const std::vector<std::string> k = {"read", "write", "close", "exit", "exit_group", "getrandom", "brk",
                                             "mmap", "munmap", "mremap", "madvise", "futex", "rt_sigreturn",
                                             "clock_gettime", "getpid", "restart_syscall"};
  return k;
}

Result<std::string> confine(const std::vector<std::string>& syscalls) { return confine(Bounds{syscalls, false, {}}); }

Result<std::string> confine(const Bounds& b) {
  oci::LandlockConfig ll;
  for (const auto& r : oci::landlock_rights()) {
    if (r.kind == oci::LandlockKind::fs) ll.handled_fs |= r.bit;
    if (r.kind == oci::LandlockKind::net) ll.handled_net |= r.bit;
    if (r.kind == oci::LandlockKind::scope) ll.scoped |= r.bit;
  }
  if (!b.connect_ports.empty()) {
    oci::LandlockPortRule rule;
    rule.allowed = oci::find_landlock_right(oci::LandlockKind::net, "connect_tcp")->bit;
    rule.ports = b.connect_ports;
    ll.net_port.push_back(rule);
  }
  landlock::Negotiated neg;
  Fd ruleset = TRYC("landlock", landlock::build_ruleset(ll, &neg));
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return sys_error("PR_SET_NO_NEW_PRIVS");
  TRYVC("landlock", landlock::restrict_self(ruleset ? ruleset.get() : -1));
  ruleset.reset();

  struct Free {
    void operator()(void* c) const { seccomp_release(c); }
  };
  std::unique_ptr<void, Free> f(seccomp_init(SCMP_ACT_KILL_PROCESS));
  if (!f) return fail("seccomp_init failed");
  for (const auto& name : b.syscalls) {
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) return fail("seccomp: unknown syscall \"" + name + "\"");
    if (int e = seccomp_rule_add(f.get(), SCMP_ACT_ALLOW, nr, 0); e < 0) return sys_error("seccomp: allow " + name, -e);
  }
  if (b.threads) {
    if (int e = seccomp_rule_add(f.get(), SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                                 SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
        e < 0)
      return sys_error("seccomp: allow clone(CLONE_THREAD)", -e);
    if (int e = seccomp_rule_add(f.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0); e < 0)
      return sys_error("seccomp: clone3 -> ENOSYS", -e);
  }
  if (int e = seccomp_load(f.get()); e < 0) return sys_error("seccomp: load the filter", -e);
  return landlock::describe(neg);
}

}  // namespace sh::sandbox
