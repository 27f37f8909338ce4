// The one TLS stack of the edges and the KMS: TLS 1.3 only, mutual, chains to one CA (the
// runtime's: leaf + CA, nothing in between), no session tickets or resumption (every connection
// shows its certificate). Who the peer must be (its SPIFFE role and name, spec-mapping/names.hpp,
// and an optional extra check such as the edges' liveness) is checked inside certificate
// verification, so a wrong peer fails the handshake with an alert before any payload is read.
// Only libc and OpenSSL beneath (sharness-kms-client links this file statically).
#pragma once
#include <openssl/ssl.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/openssl_ptr.hpp"

namespace sh::tls {

using Ctx = ossl::Ptr<SSL_CTX, SSL_CTX_free>;
using Ssl = ossl::Ptr<SSL, SSL_free>;

struct Pem {
  std::string cert, key, ca;  // our certificate (a chain may follow it), its key, the CA(s) we trust
};
struct Files {
  std::string ca, cert, key;  // PEM paths
};

// A context presenting `pem.cert` that trusts only `pem.ca` and demands a peer certificate.
Result<Ctx> make_ctx(bool server, const Pem& pem);
// The same from files (each at most 64 KiB; the key's copy is wiped once loaded).
Result<Ctx> make_ctx(bool server, const Files& files);

// Who a peer must be.
struct Peer {
  std::vector<std::string> roles;  // its leaf's SPIFFE role is one of these
  std::string name;                // and, when not empty, its name is this one
  // Run on the leaf after the rest passed (the edges' liveness): an error refuses the peer, with
  // the certificate_revoked alert when it sets `revoked`.
  std::function<Result<void>(X509* leaf, bool* revoked)> check;
};

// The handshake on a connected socket (the fd stays the caller's). `timeout_s` > 0 bounds a
// silent peer for the handshake only; 0 leaves the socket's timeouts as they are. The error
// says why the peer was refused ("peer role \"db\", expected \"app\"", "certificate verify
// failed: certificate has expired", the extra check's reason).
Result<Ssl> handshake(SSL_CTX* ctx, int fd, bool server, const Peer& peer, int timeout_s);

// The one URI SAN of a certificate; an error if it has none or more than one.
Result<std::string> uri_san(X509* cert);
// The peer's URI (after a successful handshake), or "".
std::string peer_uri(SSL* ssl);

// The OpenSSL error queue as text (and clears it).
std::string errors();
// `what` after a failed SSL_read/SSL_write returning `ret`: a closed connection, errno, an alert.
std::string io_error(const SSL* ssl, int ret, std::string_view what);

}  // namespace sh::tls
