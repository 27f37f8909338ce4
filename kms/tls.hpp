// Mutual TLS 1.3 for the KMS edge, with roles in certificates (issue 9's identities):
// a peer is accepted only if its chain verifies against the CA file and its leaf carries
// exactly one URI SAN spiffe://sharness.local/role/<role>/<id> whose role is the expected
// one. The check runs inside the handshake (verify callback), so a wrong peer is refused
// with a TLS alert before either side reads a byte of payload.
#pragma once
#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sh::kms {

inline constexpr std::string_view kSpiffePrefix = "spiffe://sharness.local/role/";

struct TlsFiles {
  std::string ca, cert, key;  // PEM paths
};

struct SslCtxFree {
  void operator()(SSL_CTX* c) const;
};
struct SslFree {
  void operator()(SSL* s) const { SSL_free(s); }
};
using SslCtx = std::unique_ptr<SSL_CTX, SslCtxFree>;
using Ssl = std::unique_ptr<SSL, SslFree>;

// A TLS 1.3-only context that presents `files.cert` and accepts only peers of `peer_role`
// (and, when `peer_id` is not empty, only the one whose URI SAN names that id: a KMS serves
// its own container's certificate, not any certificate of the role).
Result<SslCtx> make_ctx(const TlsFiles& files, std::string_view peer_role, bool server, std::string_view peer_id = {});

// "spiffe://sharness.local/role/kms/c1" -> {"kms", "c1"}; error when the URI is not of that shape.
struct SpiffeId {
  std::string role, id;
};
Result<SpiffeId> parse_spiffe(std::string_view uri);
inline Result<std::string> role_of_uri(std::string_view uri) { return TRY(parse_spiffe(uri)).role; }
// Why the last handshake on `ssl` was refused ("peer role \"app\", expected \"kms\"",
// "certificate verify failed: unable to get local issuer certificate"), or "".
std::string refusal(const SSL* ssl);

// SSL error text for `what` after a failed SSL_* call returning `ret`.
std::string ssl_error(const SSL* ssl, int ret, std::string_view what);

}  // namespace sh::kms
