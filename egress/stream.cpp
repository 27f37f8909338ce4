#include "egress/stream.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include "egress/http.hpp"
#include "tls/tls.hpp"

namespace sh::egress {
namespace {
constexpr size_t kRead = 16 * 1024;
}

Result<size_t> Stream::head() {
  for (;;) {
    size_t n = TRY(head_length(buf));
    if (n) return n;
    if (!TRY(fill())) {
      if (buf.empty()) return 0;
      return fail("the peer closed in the middle of a head");
    }
  }
}

Result<bool> FdStream::fill() {
  size_t at = buf.size();
  buf.resize(at + kRead);
  for (;;) {
    ssize_t n = ::recv(fd_, buf.data() + at, kRead, 0);
    if (n < 0 && errno == EINTR) continue;
    buf.resize(at + size_t(n > 0 ? n : 0));
    if (n < 0) return sys_error("read");
    return n > 0;
  }
}

Result<void> FdStream::write(std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("write");
    data.remove_prefix(size_t(n));
  }
  return {};
}

Result<bool> TlsStream::fill() {
  size_t at = buf.size();
  buf.resize(at + kRead);
  size_t got = 0;
  int r = SSL_read_ex(ssl_, buf.data() + at, kRead, &got);
  buf.resize(at + got);
  if (r == 1) return true;
  int e = SSL_get_error(ssl_, r);
  if (e == SSL_ERROR_ZERO_RETURN) return false;
  return fail(tls::io_error(ssl_, r, "TLS read"));
}

Result<void> TlsStream::write(std::string_view data) {
  while (!data.empty()) {
    size_t done = 0;
    int r = SSL_write_ex(ssl_, data.data(), data.size(), &done);
    if (r != 1) return fail(tls::io_error(ssl_, r, "TLS write"));
    data.remove_prefix(done);
  }
  return {};
}

}  // namespace sh::egress
