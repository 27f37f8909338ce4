// Workload identity for per-edge mutual TLS: the runtime's certificate authority and
// the short-lived leaf certificates it issues, one per container with a `role`.
//
// A reusable library on purpose: the runtime (ca command, create), the edge proxies
// (sharness-edge) and the KMS sidecar all use it, and they must agree on one trust domain.
//
//   CA directory (root-only, 0700): ca.key (PKCS#8 PEM, 0600), ca.pem (0644 inside the 0700 dir).
//   Keys are Ed25519 (OpenSSL 3 EVP); certificates X.509 v3.
//   CA:   CN "sharness CA <fingerprint prefix>", basicConstraints critical CA:TRUE pathlen 0,
//         keyUsage critical keyCertSign|cRLSign, 10 years.
//   Leaf: CN = the container id, URI SAN spiffe://sharness.local/role/<role>/<name>,
//         basicConstraints critical CA:FALSE, keyUsage critical digitalSignature,
//         extendedKeyUsage serverAuth+clientAuth (one leaf is both ends of its edges),
//         a fresh key every time (never stored by the runtime), 128-bit random serial.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "base/error.hpp"
#include "base/openssl_ptr.hpp"
#include "spec-mapping/names.hpp"
#include "tls/tls.hpp"

namespace sh::identity {

// The naming rules (trust domain, roles, SPIFFE URIs, the container's file names) are the policy
// layer's (spec-mapping/names.hpp), shared with the mesh and the KMS plan.
using naming::kCaFile;
using naming::kCertFile;
using naming::kContainerDir;
using naming::kKeyFile;
using naming::kTrustDomain;
inline constexpr int64_t kDefaultLeafSeconds = 24 * 3600;  // short-lived: one day

using Pkey = ossl::Ptr<EVP_PKEY, EVP_PKEY_free>;
using Cert = ossl::Ptr<X509, X509_free>;

using naming::parse_spiffe_uri;
using naming::spiffe_uri;
using naming::SpiffeId;
using naming::validate_role;

using tls::uri_san;  // the one URI SAN of a certificate
// The role named by a certificate's SPIFFE URI SAN.
Result<std::string> role_of(X509* cert);
// Lowercase hex SHA-256 of the DER encoding ("openssl x509 -fingerprint -sha256", without colons).
std::string fingerprint(X509* cert);
// The same for the first certificate in a PEM text, without parsing it as X.509.
Result<std::string> pem_fingerprint(std::string_view pem, const std::string& what);

std::string cert_pem(X509* cert);
std::string key_pem(EVP_PKEY* key);  // PKCS#8, unencrypted
Result<Cert> cert_from_pem(std::string_view pem, const std::string& what);
Result<Pkey> key_from_pem(std::string_view pem, const std::string& what);

struct LeafRequest {
  std::string role;
  std::string name;                    // the container id
  int64_t seconds = kDefaultLeafSeconds;  // validity from not_before
  int64_t backdate = 60;               // not_before = now - backdate (clock skew between processes)
};

struct Leaf {
  std::string cert_pem, key_pem, ca_pem;
  std::string uri, fingerprint;
  int64_t not_after = 0;  // seconds since the epoch
};

class Ca;
Result<Leaf> issue_leaf(const Ca& ca, const LeafRequest& req);

class Ca {
 public:
  // The CA in `dir`, created (key, self-signed certificate, 0700 dir, 0600 key) when absent.
  // `created` tells the caller which happened.
  static Result<Ca> ensure(const std::string& dir, bool* created = nullptr);
  // The CA in `dir`; an error if there is none.
  static Result<Ca> load(const std::string& dir);
  // A new key and certificate replace the old ones (kept as ca.pem.prev / ca.key.prev, 0600):
  // leaves issued before no longer verify, containers must be recreated.
  static Result<Ca> rotate(const std::string& dir);

  X509* cert() const { return cert_.get(); }
  const std::string& dir() const { return dir_; }
  std::string pem() const { return cert_pem(cert_.get()); }

 private:
  std::string dir_;
  Pkey key_;
  Cert cert_;
  friend Result<Leaf> issue_leaf(const Ca&, const LeafRequest&);
};

// A self-signed CA certificate for `key` (any type OpenSSL signs with): subject CN `cn`,
// basicConstraints critical CA:TRUE pathlen 0, keyUsage critical keyCertSign|cRLSign, valid
// from a minute ago for `seconds`. The edges' CA, and the egress door's per-container CA.
Result<Cert> self_signed_ca(EVP_PKEY* key, const std::string& cn, int64_t seconds);

// A fresh Ed25519 key and a certificate for it signed by `ca`.
Result<Leaf> issue_leaf(const Ca& ca, const LeafRequest& req);

// Write cert.pem, key.pem and ca.pem into an existing directory fd (each 0400),
// owned by uid:gid. Used for the container's identity tmpfs.
Result<void> write_leaf(int dirfd, const Leaf& leaf, uint32_t uid, uint32_t gid);

// Replace them (renewal): each file written beside its name and renamed over it, so a reader
// sees a whole old file or a whole new one.
Result<void> replace_leaf(int dirfd, const Leaf& leaf, uint32_t uid, uint32_t gid);

// Seconds from now until `cert` expires (negative once it has).
int64_t seconds_left(X509* cert);

}  // namespace sh::identity
