// The caller's side of the KMS protocol (docs/kms.md), for callers other than the static
// sharness-kms-client: the egress door asks for its rules' credentials with it. One connection
// per request: connect, mutual TLS (the server must have role "kms"), one request, one answer.
// Only crypto, protocol and tls beneath. (sharness-kms-client keeps its own loop: its exit
// codes tell a TLS refusal from an I/O error, which the conformance suites check.)
#pragma once
#include <string>

#include "base/error.hpp"
#include "kms/protocol.hpp"
#include "tls/tls.hpp"

namespace sh::kms {

// The response text to `request` from a KMS whose leaf is `server` (role "kms", named for the
// caller's container); an error names the socket and what failed (connect, the handshake: a
// certificate the KMS refused shows here as an alert, I/O).
Result<std::string> exchange(const std::string& socket, const tls::Files& tls, const std::string& request,
                             const tls::Peer& server);

// A credential the vault holds for (vault, host), from the KMS of container `container` only,
// opened with a one-time key made for this one request; an error says why (the KMS's refusal
// reason included).
Result<std::string> fetch_credential(const std::string& socket, const tls::Files& tls, const std::string& container,
                                     const std::string& vault, const std::string& host);

}  // namespace sh::kms
