#include "edges/relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tls/tls.hpp"

namespace sh::edges {
namespace {

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
        return fail("TLS write failed: " + tls::errors());
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
        return fail("TLS read failed: " + tls::errors());
      }
    }
  }
  return {};
}

}  // namespace sh::edges
