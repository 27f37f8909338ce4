#include "edges/tls.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include <algorithm>

#include "edges/identity.hpp"
#include "edges/live.hpp"

namespace sh::edges {
namespace {

// Who the peer may be, riding on the SSL object (app data) for the duration of the handshake.
struct PeerRule {
  const std::vector<std::string>& roles;
  const Liveness& live;
  std::string why;  // set when the liveness check refused
};

// The peer's leaf is live: its SPIFFE name and fingerprint are registered (edges/live.hpp).
Result<void> check_live(X509* cert, const Liveness& live, bool* revoked) {
  *revoked = false;
  if (!live.checked()) return {};
  auto id = TRY(identity::parse_spiffe_uri(TRY(identity::uri_san(cert))));
  return live::check(live.registry(), id.name, identity::fingerprint(cert), revoked);
}

// Depth 0 is the peer's own certificate: its role must be one the caller accepts, and it must
// be live; a revoked one fails with X509_V_ERR_CERT_REVOKED (the peer gets that alert).
int verify_peer(int ok, X509_STORE_CTX* store) {
  if (!ok) return 0;
  if (X509_STORE_CTX_get_error_depth(store) != 0) return ok;
  auto* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* rule = ssl ? static_cast<PeerRule*>(SSL_get_app_data(ssl)) : nullptr;
  X509* cert = X509_STORE_CTX_get_current_cert(store);
  auto role = identity::role_of(cert);
  if (!rule || !role || std::ranges::find(rule->roles, *role) == rule->roles.end()) {
    X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
  }
  bool revoked = false;
  if (auto l = check_live(cert, rule->live, &revoked); !l) {
    rule->why = l.error().what();
    X509_STORE_CTX_set_error(store, revoked ? X509_V_ERR_CERT_REVOKED : X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
  }
  return 1;
}

Result<void> load_ca(SSL_CTX* ctx, const std::string& ca_pem) {
  auto ca = TRY(identity::cert_from_pem(ca_pem, "CA certificate"));
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  if (!X509_STORE_add_cert(store, ca.get())) return fail("trust CA: " + identity::ssl_errors());
  return {};
}

void set_timeout(int fd, int seconds) {
  struct timeval tv {seconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// Write all of buf to the TLS side (non-blocking fd), waiting for writability as needed.
bool ssl_write_all(SSL* ssl, int fd, const char* buf, size_t n) {
  while (n > 0) {
    size_t done = 0;
    int r = SSL_write_ex(ssl, buf, n, &done);
    if (r == 1) {
      buf += done;
      n -= done;
      continue;
    }
    int e = SSL_get_error(ssl, r);
    short want = e == SSL_ERROR_WANT_WRITE ? POLLOUT : e == SSL_ERROR_WANT_READ ? POLLIN : 0;
    if (!want) return false;
    struct pollfd p {fd, want, 0};
    if (::poll(&p, 1, 30000) <= 0) return false;
  }
  return true;
}

bool write_all_fd(int fd, const char* buf, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, buf, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    buf += w;
    n -= size_t(w);
  }
  return true;
}

}  // namespace

Result<Ctx> make_ctx(bool server, const std::string& cert_pem, const std::string& key_pem, const std::string& ca_pem) {
  Ctx ctx(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()));
  if (!ctx) return fail("SSL_CTX_new: " + identity::ssl_errors());
  if (!SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) ||
      !SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION))
    return fail("TLS 1.3 only: " + identity::ssl_errors());
  auto cert = TRY(identity::cert_from_pem(cert_pem, "certificate"));
  auto key = TRY(identity::key_from_pem(key_pem, "key"));
  if (SSL_CTX_use_certificate(ctx.get(), cert.get()) != 1 || SSL_CTX_use_PrivateKey(ctx.get(), key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1)
    return fail("certificate and key: " + identity::ssl_errors());
  TRYV(load_ca(ctx.get(), ca_pem));
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | (server ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0), verify_peer);
  SSL_CTX_set_verify_depth(ctx.get(), 1);  // leaf + our CA, nothing in between
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  if (server) SSL_CTX_set_num_tickets(ctx.get(), 0);
  return ctx;
}

Result<Ssl> handshake(SSL_CTX* ctx, int fd, bool server, const std::vector<std::string>& roles, const Liveness& live,
                      int timeout_s) {
  Ssl ssl(SSL_new(ctx));
  if (!ssl) return fail("SSL_new: " + identity::ssl_errors());
  PeerRule rule{roles, live, {}};
  SSL_set_app_data(ssl.get(), &rule);
  if (SSL_set_fd(ssl.get(), fd) != 1) return fail("SSL_set_fd: " + identity::ssl_errors());
  set_timeout(fd, timeout_s);
  int r = server ? SSL_accept(ssl.get()) : SSL_connect(ssl.get());
  SSL_set_app_data(ssl.get(), nullptr);
  if (r != 1) {
    long v = SSL_get_verify_result(ssl.get());
    std::string why = v != X509_V_OK ? X509_verify_cert_error_string(v) : identity::ssl_errors();
    if (!rule.why.empty()) why = "peer certificate refused: " + rule.why;
    else if (v == X509_V_ERR_APPLICATION_VERIFICATION) why = "peer certificate names a role that is not allowed here";
    return fail(std::string("TLS handshake ") + (server ? "with client" : "with server") + " failed: " + why);
  }
  // Belt and braces: the callback ran, but check the outcome once more.
  X509* peer = SSL_get0_peer_certificate(ssl.get());
  auto role = peer ? identity::role_of(peer) : fail("no peer certificate");
  bool revoked = false;
  if (!peer || SSL_get_verify_result(ssl.get()) != X509_V_OK || !role ||
      std::ranges::find(roles, *role) == roles.end() || !check_live(peer, live, &revoked))
    return fail("TLS peer not verified");
  set_timeout(fd, 0);
  return ssl;
}

std::string peer_uri(SSL* ssl) {
  X509* peer = SSL_get0_peer_certificate(ssl);
  if (!peer) return "";
  return identity::uri_san(peer).value_or("");
}

Result<void> relay(int in_fd, int out_fd, SSL* ssl, int tls_fd) {
  int fl = ::fcntl(tls_fd, F_GETFL);
  if (fl < 0 || ::fcntl(tls_fd, F_SETFL, fl | O_NONBLOCK) < 0) return sys_error("fcntl O_NONBLOCK");
  bool in_open = true, tls_open = true;
  char buf[16384];
  while (in_open || tls_open) {
    struct pollfd p[2] = {{in_open ? in_fd : -1, POLLIN, 0}, {tls_open ? tls_fd : -1, POLLIN, 0}};
    bool pending = tls_open && SSL_pending(ssl) > 0;
    if (!pending && ::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return sys_error("poll");
    }
    if (in_open && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = ::read(in_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        in_open = false;
        (void)SSL_shutdown(ssl);  // close_notify: our side is done sending
      } else if (!ssl_write_all(ssl, tls_fd, buf, size_t(n))) {
        return fail("TLS write failed: " + identity::ssl_errors());
      }
    }
    if (tls_open && (pending || (p[1].revents & (POLLIN | POLLHUP | POLLERR)))) {
      for (;;) {
        size_t got = 0;
        int r = SSL_read_ex(ssl, buf, sizeof buf, &got);
        if (r == 1) {
          if (!write_all_fd(out_fd, buf, got)) return sys_error("write plaintext");
          continue;
        }
        int e = SSL_get_error(ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) break;
        if (e == SSL_ERROR_ZERO_RETURN) {
          tls_open = false;
          ::shutdown(out_fd, SHUT_WR);
          break;
        }
        return fail("TLS read failed: " + identity::ssl_errors());
      }
    }
  }
  return {};
}

}  // namespace sh::edges
