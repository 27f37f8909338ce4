// The door's side toward the outside: a TCP connection to the one address it checked, and for
// HTTPS a new TLS connection verified by OpenSSL (the chain against the operator's trust, the
// host name or address against the certificate, TLS 1.2 or later, ALPN http/1.1).
#pragma once
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "egress/address.hpp"
#include "tls/tls.hpp"

namespace sh::egress {

inline constexpr int kConnectTimeoutMs = 10000;
inline constexpr int kIdleSeconds = 60;  // a silent peer on either side is dropped after this

// The client context, its trust read now (the door reads no file once confined).
Result<tls::Ctx> upstream_ctx(const std::string& trust_pem);
Result<Fd> connect_to(const Ip& ip, uint16_t port);
// The TLS handshake toward `host`:`port` on the connected `fd`: SNI for a name, and the name (or
// the address) checked in the certificate; resumed when an earlier connection to the same host
// and port left a session (egress/upstream_sessions.hpp).
Result<tls::Ssl> upstream_tls(SSL_CTX* ctx, int fd, const std::string& host, uint16_t port);

// SO_RCVTIMEO and SO_SNDTIMEO.
void set_idle_timeout(int fd, int seconds);
// TCP_NODELAY: a head and its body are written apart, and Nagle's wait for the peer's delayed
// ACK would add 40 ms to each answer.
void set_no_delay(int fd);

}  // namespace sh::egress
