// What binds the door once everything is open: no file (Landlock handles every file right and
// grants none), TCP connect only to the rules' ports, a seccomp allowlist (anything else kills
// it: a door that strays is compromised, and a dead door fails closed), few files and threads,
// no core, not dumpable (credentials live in its memory).
#include <malloc.h>

#include <algorithm>

#include "egress/door.hpp"
#include "runtime/linux/self_sandbox.hpp"

namespace sh::egress {
namespace {

// Per connection at most four fds (client, upstream, and a DNS socket while resolving), plus
// the listener and the log.
constexpr unsigned kNoFile = 4 * kMaxConnections + 16;

// The door's whole syscall surface once serving: accept, read and write sockets, connect out
// (TCP, and UDP to the resolver), poll, threads; and what malloc, pthreads and OpenSSL need.
std::vector<std::string> door_syscalls() {
  std::vector<std::string> s = sandbox::base_syscalls();
  for (const char* n : {"accept4", "socket", "connect", "poll", "ppoll", "fcntl", "setsockopt", "getsockopt", "shutdown",
                        "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "mprotect", "set_robust_list", "rseq",
                        "rt_sigprocmask", "rt_sigaction", "sched_yield", "gettid", "getsockname", "getpeername",
                        "nanosleep", "clock_nanosleep", "ioctl", "fstat", "newfstatat", "lseek"})
    s.emplace_back(n);
  return s;
}

}  // namespace

Result<std::string> confine_door(const Door& d) {
  // One malloc arena: glibc sizes its arena list from /sys/devices/system/cpu/online the first
  // time a second thread allocates, an open the sandbox would kill the door for; one arena is
  // also the smaller RSS.
  if (::mallopt(M_ARENA_MAX, 1) != 1) return fail("mallopt M_ARENA_MAX 1");
  TRYV(sandbox::harden(kNoFile, kMaxConnections + 8));
  sandbox::Bounds b{door_syscalls(), true, {}};
  for (const auto& r : d.policy.rules)
    if (std::ranges::find(b.connect_ports, r.port) == b.connect_ports.end()) b.connect_ports.push_back(r.port);
  return sandbox::confine(b);
}

}  // namespace sh::egress
