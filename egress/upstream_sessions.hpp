// TLS sessions the upstreams gave the door, so that the next connection to the same host
// resumes instead of doing the whole handshake again: a resumed TLS 1.3 handshake skips the
// certificate chain (parsing it, verifying it, and the server's signature), most of the door's
// CPU per new connection. Why that weakens no check:
//   - a session exists only after a handshake that verified the chain against the trust and the
//     name (or address) against the certificate (upstream_tls refuses anything less);
//   - it is offered again only to the same host and port it was made for, the key it is kept
//     under, so no other name can ride on it;
//   - only TLS 1.3 sessions are kept: their resumption still makes a fresh (EC)DHE key (OpenSSL
//     offers psk_dhe_ke only), so forward secrecy stays. The newest is used until a newer comes
//     (servers often send none on a resumed connection), as OpenSSL's own client cache does:
//     the door never sends early data, so a replayed ticket has nothing to replay;
//   - a session lives at most kSessionSeconds and no longer than the server's ticket lifetime.
// Bounded: kSessionHosts keys of kSessionsPerHost each, a few KiB per session.
#pragma once
#include <openssl/ssl.h>

#include <string>

namespace sh::egress {

inline constexpr long kSessionSeconds = 3600;
inline constexpr size_t kSessionHosts = 16, kSessionsPerHost = 2;

// Makes `ctx` keep the sessions its connections receive (a client cache of the door's own, one
// per context, freed with it).
bool keep_upstream_sessions(SSL_CTX* ctx);
// Before the handshake: the connection is to `key` (host:port); a kept session for it, if any,
// is taken and set on `ssl`, and the sessions `ssl` receives are kept under `key`.
bool resume_upstream_session(SSL* ssl, const std::string& key);

}  // namespace sh::egress
