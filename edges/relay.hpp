// The proxies' byte pump between a plaintext socket and a TLS connection.
#pragma once
#include <openssl/ssl.h>

#include "base/error.hpp"

namespace sh::edges {

// Copy plaintext in_fd -> TLS and TLS -> out_fd until both directions are closed (EOF on one side
// becomes close_notify / shutdown(SHUT_WR) on the other). Returns an error if TLS failed (for
// example the peer refused our certificate with an alert).
Result<void> relay(int in_fd, int out_fd, SSL* ssl, int tls_fd);

}  // namespace sh::edges
