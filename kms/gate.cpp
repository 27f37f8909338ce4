#include "kms/gate.hpp"

#include <algorithm>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "kms/kms_log.hpp"
#include "kms/protocol.hpp"
#include "spec-mapping/names.hpp"

namespace sh::kms {
namespace {

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

// One connection. The worker is thawed only between a verified handshake plus a complete
// request and the worker's answer.
void handle(Gate& g, int fd, uint64_t n) {
  auto log = [&](const std::string& m) { log_line(g.log_fd, g.cfg.name, "gate", "connection " + std::to_string(n) + ": " + m); };
  struct timeval tv{5, 0};  // a slow or silent peer cannot hold the (single-threaded) gate
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  auto ssl = tls::handshake(g.ctx, fd, true, g.caller, 0);
  if (!ssl) return log("refused before any payload, worker not thawed: " + ssl.error().what());
  int r = 0;
  std::string req;
  char buf[kMaxRequest + 1];
  while (!req.ends_with("\n\n")) {
    r = SSL_read(ssl->get(), buf, sizeof buf);
    if (r <= 0) return log(tls::io_error(ssl->get(), r, "read request"));
    req.append(buf, static_cast<size_t>(r));
    if (req.size() > kMaxRequest) return log("request longer than " + std::to_string(kMaxRequest) + " bytes, dropped");
  }
  // The worker decides what each caller may ask; it learns who asks from the certificate the
  // handshake verified, never from the request.
  auto who = naming::parse_spiffe_uri(tls::peer_uri(ssl->get()));
  if (!who) return log("no role in the verified certificate: " + who.error().what());
  auto fw = forward(g, who->role + "\n" + req);
  if (!fw) return log(fw.error().what());
  if (fw->response.empty()) return log("no answer from the worker");
  log("served; thaw " + ms(fw->thaw_ms) + " ms, freeze " + ms(fw->freeze_ms) + " ms");
  const std::string& resp = fw->response;
  r = SSL_write(ssl->get(), resp.data(), static_cast<int>(resp.size()));
  if (r <= 0) return log(tls::io_error(ssl->get(), r, "send response"));
  SSL_shutdown(ssl->get());
}

}  // namespace

Result<Forwarded> forward(Gate& g, std::string_view req) {
  Forwarded out;
  out.thaw_ms = TRYC("thaw", g.freezer.set(false));
  bool sent = ::send(g.chan, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size());
  if (sent) {
    std::string buf(kMaxResponse + 1, '\0');  // + 1: a longer answer shows as one
    struct pollfd p{g.chan, POLLIN, 0};
    if (::poll(&p, 1, 5000) == 1 && (p.revents & POLLIN)) {
      ssize_t got = ::recv(g.chan, buf.data(), buf.size(), 0);
      if (got > 0 && static_cast<size_t>(got) <= kMaxResponse) out.response.assign(buf.data(), static_cast<size_t>(got));
    }
  }
  auto freeze = g.freezer.set(true);
  if (!freeze) {
    // Never leave it running thawed: a worker we cannot freeze is a worker we stop.
    ::kill(g.worker, SIGKILL);
    g.worker_killed = true;
    return fail(std::move(freeze.error()).context("freeze again failed, worker killed"));
  }
  out.freeze_ms = *freeze;
  return out;
}

int serve(Gate& g) {
  log_line(g.log_fd, g.cfg.name, "gate", "listening on " + g.cfg.socket + " for role(s) " + [&] {
    std::string r;
    for (const auto& x : g.cfg.caller_roles()) r += (r.empty() ? "\"" : ", \"") + x + "\"";
    return r;
  }());
  for (uint64_t n = 1;;) {
    struct pollfd p[3] = {{g.listen_fd, POLLIN, 0}, {g.sig_fd, POLLIN, 0}, {g.chan, POLLIN, 0}};
    if (::poll(p, 3, -1) < 0) {
      if (errno == EINTR) continue;
      log_line(g.log_fd, g.cfg.name, "gate", "poll failed");
      return 1;
    }
    if (p[1].revents & POLLIN) {
      log_line(g.log_fd, g.cfg.name, "gate", "stopping");
      (void)g.freezer.set(false);  // a frozen worker would not see the channel close
      ::shutdown(g.chan, SHUT_RDWR);
      int st = 0;
      ::waitpid(g.worker, &st, 0);
      return 0;
    }
    if (p[2].revents) {  // the worker wrote unasked or went away
      int st = 0;
      ::waitpid(g.worker, &st, WNOHANG);
      log_line(g.log_fd, g.cfg.name, "gate", "worker gone (status " + std::to_string(st) + "), stopping");
      return 1;
    }
    if (p[0].revents & POLLIN) {
      int fd = ::accept4(g.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      handle(g, fd, n++);
      ::close(fd);
      if (g.worker_killed) {
        int st = 0;
        ::waitpid(g.worker, &st, 0);
        log_line(g.log_fd, g.cfg.name, "gate", "worker killed: it could not be frozen again; stopping");
        return 1;
      }
    }
  }
}

}  // namespace sh::kms
