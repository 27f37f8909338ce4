#include "edges/renewal.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "base/file.hpp"
#include "edges/identity.hpp"
#include "edges/live.hpp"
#include "edges/provision.hpp"
#include "edges/proxy_log.hpp"

namespace sh::edges {
namespace {

std::string renewal_message(const identity::Leaf& l) {
  return std::to_string(l.cert_pem.size()) + " " + std::to_string(l.key_pem.size()) + " " +
         std::to_string(l.ca_pem.size()) + "\n" + l.cert_pem + l.key_pem + l.ca_pem;
}

// The proxy's answer to a renewal: "ok" once it uses the new leaf for every new connection.
bool renewal_taken(int control) {
  struct pollfd p {control, POLLIN, 0};
  if (::poll(&p, 1, 5000) <= 0) return false;
  char buf[16];
  ssize_t n = ::recv(control, buf, sizeof buf, 0);
  return n == 2 && std::memcmp(buf, "ok", 2) == 0;
}

// A fresh key and leaf from the CA on disk (loaded for this renewal only, then freed: no
// long-lived process keeps the CA key), into the container's tmpfs and to the proxy.
Result<int64_t> renew(Renewal& rn) {
  identity::Leaf leaf;
  {
    auto ca = TRYC("renewal: CA", identity::Ca::load(rn.ca_dir));
    leaf = TRYC("renewal: certificate for " + rn.id, identity::issue_leaf(ca, edges::leaf_request(rn.role, rn.id, rn.lifetime)));
  }
  auto cleanse = [&] { OPENSSL_cleanse(leaf.key_pem.data(), leaf.key_pem.size()); };
  auto r = identity::replace_leaf(rn.identity_dir.get(), leaf, rn.uid, rn.gid);
  if (!r) {
    cleanse();
    return fail(std::move(r.error()));
  }
  // Live before any peer can see it; the old leaf stays live until the proxy has let go of it.
  if (auto a = live::add_at(rn.live.get(), rn.id, leaf.fingerprint); !a) {
    cleanse();
    return fail(std::move(a.error()).context("renewal"));
  }
  std::string msg = renewal_message(leaf);
  cleanse();
  for (char stale[16]; ::recv(rn.control.get(), stale, sizeof stale, MSG_DONTWAIT) > 0;) {
  }  // a late answer to an earlier renewal is not this one's
  ssize_t n = ::send(rn.control.get(), msg.data(), msg.size(), MSG_NOSIGNAL);
  OPENSSL_cleanse(msg.data(), msg.size());
  if (n != ssize_t(msg.size())) return sys_error("renewal: send to the proxy");
  if (!renewal_taken(rn.control.get())) return fail("renewal: the proxy did not take the new leaf");
  // A renewed leaf revokes the ones before it (a copy the workload made of them is refused).
  TRYVC("renewal", live::revoke_others_at(rn.live.get(), rn.id, leaf.fingerprint));
  logf("supervisor: renewed " + leaf.uri + ": " + leaf.fingerprint + "; the previous leaf is revoked");
  return leaf.not_after - int64_t(::time(nullptr));
}

}  // namespace

Result<RenewedLeaf> parse_renewal(const std::string& msg) {
  size_t nl = msg.find('\n');
  size_t a = 0, b = 0, c = 0;
  if (nl == std::string::npos || std::sscanf(msg.substr(0, nl).c_str(), "%zu %zu %zu", &a, &b, &c) != 3 ||
      nl + 1 + a + b + c != msg.size())
    return fail("renewal: malformed message");
  return RenewedLeaf{msg.substr(nl + 1, a), msg.substr(nl + 1 + a, b), msg.substr(nl + 1 + a + b, c)};
}

// Renews when a third of the leaf's life is left; a failed renewal is retried every few seconds
// and logged.
[[noreturn]] void supervise(Renewal rn, Fd init_pidfd, pid_t proxy) {
  Fd proxy_pidfd(int(::syscall(SYS_pidfd_open, proxy, 0)));
  if (!proxy_pidfd) {
    ::kill(proxy, SIGKILL);
    ::waitpid(proxy, nullptr, 0);
    _exit(1);
  }
  int64_t left = 0;  // of the leaf create issued (none readable: renew now)
  if (auto cert = read_file("/proc/self/fd/" + std::to_string(rn.identity_dir.get()) + "/" + identity::kCertFile, 1 << 16))
    if (auto x = identity::cert_from_pem(*cert, "certificate")) left = identity::seconds_left(x->get());
  int64_t due = int64_t(::time(nullptr)) + left - rn.lifetime / 3;  // when to renew
  for (;;) {
    int64_t wait_s = std::clamp<int64_t>(due - int64_t(::time(nullptr)), 0, 3600);
    pollfd fds[2] = {{init_pidfd.get(), POLLIN, 0}, {proxy_pidfd.get(), POLLIN, 0}};
    int n = ::poll(fds, 2, int(wait_s * 1000));
    if (n < 0 && errno == EINTR) continue;
    if (n > 0 && fds[0].revents) {
      // The container is stopped: nothing may use its leaf any more (delete revokes it too).
      if (auto r = live::revoke_at(rn.live.get(), rn.id); !r) logf("supervisor: " + r.error().what());
      else logf("supervisor: the container's init exited: its leaves are revoked");
      ::syscall(SYS_pidfd_send_signal, proxy_pidfd.get(), SIGKILL, nullptr, 0);
      ::waitpid(proxy, nullptr, 0);
      _exit(0);
    }
    if (n > 0 && fds[1].revents) {
      int ws = 0;
      ::waitpid(proxy, &ws, 0);
      logf("supervisor: the proxy ended: " + (WIFSIGNALED(ws) ? "killed by signal " + std::to_string(WTERMSIG(ws))
                                                               : "exit " + std::to_string(WEXITSTATUS(ws))));
      _exit(0);
    }
    if (int64_t(::time(nullptr)) < due) continue;
    auto r = renew(rn);
    if (r) {
      due = int64_t(::time(nullptr)) + *r - rn.lifetime / 3;
    } else {
      logf("supervisor: " + r.error().what());
      due = int64_t(::time(nullptr)) + 5;  // try again in five seconds
    }
  }
}

}  // namespace sh::edges
