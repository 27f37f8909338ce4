// The egress door's per-container CA (docs/egress.md "The sidecar"): made at create by
// `sharness-egress ca init` (the runtime binary carries no X.509 code), one per container, gone
// with it. The door mints from it a leaf for each name it terminates; the container trusts it
// and nothing else, through a read-only bind of the trust directory over /etc/ssl/certs.
//
//   <ca dir>/cert.pem, key.pem  ECDSA P-256 (every TLS client takes it), 0400; up gives the
//                               directory and the key to the door's throwaway uid
//   <trust dir>/ca-certificates.crt  the CA certificate alone (0444), the file Debian's OpenSSL,
//                               curl, Python and Node's NODE_EXTRA_CA_CERTS read
//   <trust dir>/<subject hash>.0     a link to it: OpenSSL's CApath lookup (SSL_CERT_DIR)
#pragma once
#include <string>

#include "base/error.hpp"

namespace sh::egress {

inline constexpr const char* kCaCertFile = "cert.pem";
inline constexpr const char* kCaKeyFile = "key.pem";
inline constexpr const char* kTrustBundle = "ca-certificates.crt";

// A fresh CA named for container `id` into ca_dir (made 0700) and its certificate into
// trust_dir (made 0755). Refuses to replace an existing CA.
Result<void> make_door_ca(const std::string& ca_dir, const std::string& trust_dir, const std::string& id);

}  // namespace sh::egress
