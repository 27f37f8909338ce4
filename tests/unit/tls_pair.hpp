// One TLS handshake between two edge ends over a socketpair (tls/tls.hpp with edges/peer.hpp), for the unit tests
// of the proxies' checks: roles, CA, validity (test_edges_identity) and liveness (test_edges_live).
#pragma once
#include <signal.h>
#include <sys/socket.h>

#include <boost/test/unit_test.hpp>

#include <string>
#include <thread>
#include <vector>

#include "base/fd.hpp"
#include "edges/identity.hpp"
#include "edges/peer.hpp"
#include "tls/tls.hpp"

namespace sh::test {

// A TLS peer that refuses may close before the other side's last write, as in the proxies
// (which ignore SIGPIPE too): the write must fail with EPIPE, not kill the test.
struct IgnoreSigpipe {
  IgnoreSigpipe() { ::signal(SIGPIPE, SIG_IGN); }
};

struct Handshake {
  bool client_ok = false, server_ok = false;
  std::string client_err, server_err;
};

struct Ends {
  std::vector<std::string> accepted, want;  // the server accepts these roles; the client wants this one
  edges::Liveness server_live = edges::Liveness::unchecked(), client_live = edges::Liveness::unchecked();
};

// One handshake between a client holding `client` and a server holding `server`, each
// trusting its CA; after it, the client sends "ping" and `server_got` (if given) says what the
// server read.
inline Handshake handshake_pair(const identity::Leaf& client, const identity::Leaf& server, const std::string& client_ca,
                                const std::string& server_ca, const Ends& e, std::string* server_got = nullptr) {
  int sp[2];
  BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
  Fd c(sp[0]), s(sp[1]);
  Handshake h;
  auto sctx = tls::make_ctx(true, tls::Pem{server.cert_pem, server.key_pem, server_ca});
  auto cctx = tls::make_ctx(false, tls::Pem{client.cert_pem, client.key_pem, client_ca});
  BOOST_REQUIRE_MESSAGE(sctx && cctx, "contexts");
  std::thread srv([&] {
    auto ssl = tls::handshake(sctx->get(), s.get(), true, edges::peer(e.accepted, e.server_live), 5);
    h.server_ok = bool(ssl);
    if (!ssl) {
      h.server_err = ssl.error().what();
      s.reset();  // close: the client sees the alert, then EOF
      return;
    }
    char buf[16];
    size_t n = 0;
    if (SSL_read_ex(ssl->get(), buf, sizeof buf, &n) == 1 && server_got) *server_got = std::string(buf, n);
  });
  auto ssl = tls::handshake(cctx->get(), c.get(), false, edges::peer(e.want, e.client_live), 5);
  h.client_ok = bool(ssl);
  if (!ssl) h.client_err = ssl.error().what();
  else {
    size_t n = 0;
    SSL_write_ex(ssl->get(), "ping", 4, &n);
  }
  srv.join();
  return h;
}

}  // namespace sh::test
