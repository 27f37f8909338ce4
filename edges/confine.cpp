// What binds the proxy (everything but its sockets) and its supervisor (root, with three
// capabilities), each before it starts its work.
#include <sys/prctl.h>
#include <sys/resource.h>

#include "edges/proxy.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/self_sandbox.hpp"

namespace sh::edges {
namespace {

// Per connection at most three fds (its two sockets, an O_PATH while connecting), plus the
// listeners, the log, the pidfd: RLIMIT_NOFILE, checked before the drop.
constexpr unsigned kNoFile = 3 * kMaxConnections + 32;

// The proxy's whole syscall surface once serving (the edges suite run under SCMP_ACT_LOG: accept, TLS
// relay, listing a role's registry, connecting to a peer proxy or the service, the log), plus
// what malloc, threads and OpenSSL's DRBG may need. openat only for the O_PATH of a socket or
// of a holder's directory in the live registry, which it then stats (edges/live.hpp: the
// revocation check needs nothing more; Landlock refuses reading or writing any file). Nothing
// that execs, forks (clone is allowed only with CLONE_THREAD), changes ids, binds or listens.
std::vector<std::string> proxy_syscalls() {
  std::vector<std::string> s = sandbox::base_syscalls();
  for (const char* n : {"accept4", "socket", "connect", "openat", "fstat", "newfstatat", "poll", "ppoll",
                        "fcntl", "setsockopt", "getsockopt", "shutdown", "sendto", "recvfrom", "sendmsg", "recvmsg",
                        "mprotect", "set_robust_list", "rseq", "rt_sigprocmask", "rt_sigaction", "sched_yield", "gettid",
                        "getsockname", "getpeername", "nanosleep", "clock_nanosleep", "getdents64", "lseek"})
    s.emplace_back(n);
  return s;
}

}  // namespace

// One uid and gid nobody else has, no groups, every capability set empty (bounding and ambient
// too), not dumpable (the key is in this process's memory), no core, few files and threads,
// no_new_privs, Landlock (no file at all, TCP connect only to the service's port), a seccomp
// allowlist.
Result<std::string> confine_proxy(uint32_t uid, const Proxy& px) {
  TRYV(sandbox::harden(kNoFile, kMaxConnections + 8));
  TRYV(sandbox::drop_to(uid, uid));
  sandbox::Bounds b{proxy_syscalls(), true, {}};
  if (px.mesh.accepts && px.mesh.accepts->tcp) b.connect_ports.push_back(px.mesh.accepts->port);
  if (px.networked && px.mesh.edges)  // peers' proxies on the network, at the edges' ports
    for (const auto& e : *px.mesh.edges)
      if (e.tcp) b.connect_ports.push_back(e.port);
  return sandbox::confine(b);
}

// Root only for what renewal and stopping the proxy need: writing into the container's tmpfs
// (owned by its user, 0500), giving the new files to that user, signalling the proxy (another
// uid). Not dumpable: a key passes through its memory at each renewal.
Result<void> bound_supervisor() {
  oci::Capabilities keep;
  keep.bounding = keep.effective = keep.permitted =
      std::vector<std::string>{"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_KILL"};
  keep.inheritable = keep.ambient = std::vector<std::string>{};
  TRYVC("supervisor", caps::apply_bounding(keep));
  TRYVC("supervisor", caps::apply_sets(keep));
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return sys_error("supervisor: no_new_privs");
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) return sys_error("supervisor: dumpable");
  struct rlimit core {0, 0};
  if (::setrlimit(RLIMIT_CORE, &core) < 0) return sys_error("supervisor: RLIMIT_CORE");
  return {};
}

}  // namespace sh::edges
