// The proxy's serving loop: one thread per connection, a TLS client toward a peer's proxy for
// the workload's plaintext, or a TLS server in front of the service; renewals swap the contexts.
#include "edges/proxy.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "edges/identity.hpp"
#include "edges/peer.hpp"
#include "edges/proxy_log.hpp"
#include "edges/relay.hpp"
#include "edges/renewal.hpp"
#include "edges/sockets.hpp"

namespace sh::edges {
namespace {

// A reference to the current context: a renewal may replace it while the handshake runs.
tls::Ctx current_ctx(Proxy& px, bool server) {
  std::lock_guard lock(px.ctx_mu);
  SSL_CTX* c = server ? px.server_ctx.get() : px.client_ctx.get();
  if (c) SSL_CTX_up_ref(c);
  return tls::Ctx(c);
}

// A TCP registration's name: <container id>@<IPv4>:<port>.tcp (the name is the record: the
// proxy can list the registry but may open no file in it).
Result<Fd> connect_tcp_registration(const std::string& n) {
  size_t at = n.rfind('@'), colon = n.rfind(':');
  if (at == std::string::npos || colon == std::string::npos || colon < at) return fail(n + ": not a TCP registration");
  in_addr addr{};
  if (::inet_pton(AF_INET, n.substr(at + 1, colon - at - 1).c_str(), &addr) != 1) return fail(n + ": bad address");
  int port = std::atoi(n.substr(colon + 1, n.size() - 4 - colon - 1).c_str());
  if (port <= 0 || port > 65535) return fail(n + ": bad port");
  return tcp_connect(addr, uint16_t(port));
}

// A live instance of the role: the registered sockets in turn, starting one further than the
// last connection did; a socket whose proxy is gone refuses the connection and is skipped.
Result<Fd> connect_role(RoleDir& rd, const std::string& role, bool tcp, std::string* instance) {
  std::vector<std::string> names;
  unsigned start = 0;
  {
    std::lock_guard lock(rd.mu);
    ::rewinddir(rd.dir);
    while (struct dirent* e = ::readdir(rd.dir)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.ends_with(tcp ? ".tcp" : ".sock")) names.push_back(n);
    }
    start = rd.next++;
  }
  if (names.empty()) return fail("no instance of role " + role + " is registered");
  std::sort(names.begin(), names.end());
  std::string errors;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[(start + i) % names.size()];
    auto fd = tcp ? connect_tcp_registration(n) : connect_unix_in(::dirfd(rd.dir), n, "the " + role + " proxy " + n);
    if (fd) {
      *instance = n.substr(0, n.rfind('.'));
      return fd;
    }
    errors += (errors.empty() ? "" : "; ") + fd.error().what();
  }
  return fail("no live instance of role " + role + ": " + errors);
}

void serve_client(Proxy& px, Fd plain, policy::Edge edge, RoleDir& peers) {
  std::string what = "edge to " + edge.to;
  std::string instance;
  // Over the network when both ends have one (the edge's TCP port is the server's), else on the
  // host's UNIX sockets.
  bool over_net = px.networked && edge.tcp;
  auto peer = connect_role(peers, edge.to, over_net, &instance);
  if (!peer && over_net) peer = connect_role(peers, edge.to, false, &instance);
  if (!peer) {
    logf(what + ": " + peer.error().what());
    return;
  }
  tls::Ctx ctx = current_ctx(px, false);
  auto ssl = tls::handshake(ctx.get(), peer->get(), false, edges::peer({edge.to}, Liveness(px.live.get())), 10);
  if (!ssl) {
    logf(what + ": refused: " + ssl.error().what());
    return;
  }
  logf(what + ": connected to " + tls::peer_uri(ssl->get()) + " (instance " + instance + ")");
  auto r = relay(plain.get(), plain.get(), ssl->get(), peer->get());
  if (!r) logf(what + ": " + r.error().what());
}

void serve_server(Proxy& px, Fd conn) {
  tls::Ctx ctx = current_ctx(px, true);
  auto ssl = tls::handshake(ctx.get(), conn.get(), true, edges::peer(px.mesh.accepts->roles, Liveness(px.live.get())), 10);
  if (!ssl) {
    // Nothing was read past the handshake and the service was never contacted.
    logf("service: refused: " + ssl.error().what());
    return;
  }
  std::string who = tls::peer_uri(ssl->get());
  auto svc = px.mesh.accepts->tcp ? tcp_connect_local(px.mesh.accepts->port)
                                  : connect_unix_in(px.service_dir.get(), policy::kServiceSocket, "the service socket");
  if (!svc) {
    logf("service: accepted " + who + " but " + svc.error().what());
    return;
  }
  logf("service: accepted " + who);
  auto r = relay(svc->get(), svc->get(), ssl->get(), conn.get());
  if (!r) logf("service: " + who + ": " + r.error().what());
}

Result<void> take_renewal(Proxy& px, std::string& msg) {
  auto [cert, key, ca] = TRY(parse_renewal(msg));
  tls::Ctx client, server;
  if (px.mesh.edges && !px.mesh.edges->empty()) client = TRY(tls::make_ctx(false, tls::Pem{cert, key, ca}));
  if (px.mesh.accepts) server = TRY(tls::make_ctx(true, tls::Pem{cert, key, ca}));
  OPENSSL_cleanse(key.data(), key.size());
  OPENSSL_cleanse(msg.data(), msg.size());
  auto x = TRY(identity::cert_from_pem(cert, "renewed certificate"));
  {
    std::lock_guard lock(px.ctx_mu);
    px.client_ctx = std::move(client);
    px.server_ctx = std::move(server);
  }
  logf("renewed: certificate " + identity::fingerprint(x.get()) + ", " + std::to_string(identity::seconds_left(x.get())) +
       " s left");
  return {};
}

}  // namespace

[[noreturn]] void serve(Proxy& px) {
  std::vector<pollfd> fds;
  fds.push_back({px.init_pidfd.get(), POLLIN, 0});
  fds.push_back({px.control.get(), POLLIN, 0});
  constexpr size_t kFirstListener = 2;
  for (auto& l : px.listeners) fds.push_back({l.fd.get(), POLLIN, 0});
  for (;;) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      _exit(2);
    }
    if (fds[0].revents) {
      logf("container init exited: proxy ends");
      _exit(0);
    }
    if (fds[1].revents) {
      std::string msg(kMaxRenewal, '\0');
      ssize_t n = ::recv(fds[1].fd, msg.data(), msg.size(), 0);
      if (n <= 0) {
        logf("the supervisor is gone: no more renewals");
        fds[1].fd = -1;
      } else {
        msg.resize(size_t(n));
        // The answer tells the supervisor when it may revoke the leaf this proxy held.
        auto r = take_renewal(px, msg);
        if (!r) logf(r.error().what());
        std::string ack = r ? "ok" : "failed";
        (void)::send(fds[1].fd, ack.data(), ack.size(), MSG_NOSIGNAL);
      }
    }
    for (size_t i = kFirstListener; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      Fd conn(::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC));
      if (!conn) continue;
      if (px.active.load() >= kMaxConnections) continue;  // dropped: closed by Fd
      Listener& l = px.listeners[i - kFirstListener];
      ++px.active;
      std::thread([&px, c = std::move(conn), server = l.server, edge = l.edge, peers = l.peers]() mutable {
        if (server) serve_server(px, std::move(c));
        else serve_client(px, std::move(c), edge, *peers);
        --px.active;
      }).detach();
    }
  }
}

}  // namespace sh::edges
