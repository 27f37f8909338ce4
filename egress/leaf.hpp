// The door's side of the TLS it terminates: a leaf for exactly the name the workload asked for
// (CONNECT host), minted from the per-container CA and cached per name, and the check that the
// ClientHello's SNI names that host too (a fronting attempt is refused with an alert before any
// request is read).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/error.hpp"
#include "edges/identity.hpp"
#include "tls/tls.hpp"

namespace sh::egress {

inline constexpr int64_t kLeafSeconds = 24 * 3600;

class LeafMint {
 public:
  // The CA from its PEM files, a P-256 key for every leaf, and the server context (TLS 1.2 or
  // later, ALPN http/1.1 only).
  static Result<std::unique_ptr<LeafMint>> load(const std::string& ca_cert, const std::string& ca_key);
  // A server TLS session on the connected `fd` for `host`: the leaf for it, and the SNI check.
  // The handshake itself is accept()'s.
  Result<tls::Ssl> session(const std::string& host, int fd);
  // The handshake; the error says why (an SNI that is not `host`, a client that is not TLS).
  static Result<void> accept(SSL* ssl, const std::string& host);
  // Mint (or take from the cache) the leaf for `host`: a reference of the caller's own, as
  // another connection may renew or evict the cache's.
  Result<identity::Cert> leaf(const std::string& host);

 private:
  LeafMint() = default;
  identity::Cert ca_;
  identity::Pkey ca_key_, leaf_key_;
  tls::Ctx ctx_;
  std::mutex mu_;
  struct Entry {
    identity::Cert cert;
    time_t not_after = 0;
  };
  std::map<std::string, Entry> cache_;
};

}  // namespace sh::egress
