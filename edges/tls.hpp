// The TLS half of the edge proxies (issue 9): TLS 1.3 only, mutual, chains to the runtime's CA,
// and the peer's role (from its SPIFFE URI SAN) and liveness (edges/live.hpp, issue 15) checked
// inside certificate verification, so a wrong or revoked certificate fails the handshake before
// any payload is read or forwarded.
#pragma once
#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/openssl_ptr.hpp"

namespace sh::edges {

using Ctx = ossl::Ptr<SSL_CTX, SSL_CTX_free>;
using Ssl = ossl::Ptr<SSL, SSL_free>;

// A context with our certificate and key that trusts only `ca_pem` and demands a peer
// certificate (servers too: mutual). No session tickets or resumption: every connection is a
// full handshake with a verified chain.
Result<Ctx> make_ctx(bool server, const std::string& cert_pem, const std::string& key_pem, const std::string& ca_pem);

// Where a handshake checks that the peer's leaf is live: the live registry's directory fd
// (live::open_registry, opened by a proxy before its sandbox). A bad fd refuses every peer.
// `unchecked()` is for tools and tests that talk to a proxy, never for a proxy itself.
class Liveness {
 public:
  explicit Liveness(int registry) : fd_(registry) {}
  static Liveness unchecked() {
    Liveness l(-1);
    l.checked_ = false;
    return l;
  }
  int registry() const { return fd_; }
  bool checked() const { return checked_; }

 private:
  int fd_;
  bool checked_ = true;
};

// The handshake on a connected socket; the peer's certificate must chain to the CA, name one
// of `roles` and be live (its SPIFFE name and fingerprint registered in `live`). The fd stays
// owned by the caller. `timeout_s` bounds a silent peer.
Result<Ssl> handshake(SSL_CTX* ctx, int fd, bool server, const std::vector<std::string>& roles, const Liveness& live,
                      int timeout_s = 10);

// The peer's SPIFFE URI (after a successful handshake).
std::string peer_uri(SSL* ssl);

// Copy plaintext in_fd -> TLS and TLS -> out_fd until both directions are closed (EOF on one side
// becomes close_notify / shutdown(SHUT_WR) on the other). Returns an error if TLS failed (for
// example the peer refused our certificate with an alert).
Result<void> relay(int in_fd, int out_fd, SSL* ssl, int tls_fd);

}  // namespace sh::edges
