#include "egress/upstream.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "egress/trust_store.hpp"
#include "egress/upstream_sessions.hpp"
#include "spec-mapping/egress_host.hpp"

namespace sh::egress {

void set_idle_timeout(int fd, int seconds) {
  struct timeval tv {seconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void set_no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Result<tls::Ctx> upstream_ctx(const std::string& trust_pem) {
  tls::Ctx ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx || !SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION)) return fail("upstream TLS context: " + tls::errors());
  TRYV(trust_on_demand(ctx.get(), trust_pem));
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_RELEASE_BUFFERS);  // an idle connection holds no 34 KiB of buffers
  SSL_CTX_set_read_ahead(ctx.get(), 1);  // a record's header and body in one read: half the read syscalls
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  if (SSL_CTX_set_alpn_protos(ctx.get(), kHttp11, sizeof kHttp11) != 0) return fail("upstream ALPN: " + tls::errors());
  if (!keep_upstream_sessions(ctx.get())) return fail("upstream session cache: " + tls::errors());
  return ctx;
}

Result<Fd> connect_to(const Ip& ip, uint16_t port) {
  std::string what = "connect to " + (ip.family == AF_INET6 ? "[" + ip_text(ip) + "]" : ip_text(ip)) + ":" + std::to_string(port);
  Fd fd(::socket(ip.family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return sys_error("socket for " + what);
  socklen_t len = 0;
  sockaddr_storage sa = sockaddr_of(ip, port, &len);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0) {
    if (errno != EINPROGRESS) return sys_error(what);
    pollfd p{fd.get(), POLLOUT, 0};
    int r = ::poll(&p, 1, kConnectTimeoutMs);
    if (r == 0) return sys_error(what, ETIMEDOUT);
    int err = 0;
    socklen_t el = sizeof err;
    if (r < 0 || ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &el) != 0) return sys_error(what);
    if (err) return sys_error(what, err);
  }
  int fl = ::fcntl(fd.get(), F_GETFL);
  if (fl < 0 || ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK) != 0) return sys_error("fcntl for " + what);
  set_idle_timeout(fd.get(), kIdleSeconds);
  set_no_delay(fd.get());
  return fd;
}

Result<tls::Ssl> upstream_tls(SSL_CTX* ctx, int fd, const std::string& host, uint16_t port) {
  tls::Ssl ssl(SSL_new(ctx));
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1 || !resume_upstream_session(ssl.get(), host + ":" + std::to_string(port)))
    return fail("upstream TLS session: " + tls::errors());
  bool addr = policy::is_address(host);
  if (addr ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), host.c_str()) != 1
           : (SSL_set_tlsext_host_name(ssl.get(), host.c_str()) != 1 || SSL_set1_host(ssl.get(), host.c_str()) != 1))
    return fail("upstream TLS name " + host + ": " + tls::errors());
  SSL_set_hostflags(ssl.get(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  int r = SSL_connect(ssl.get());
  if (r != 1) {
    long v = SSL_get_verify_result(ssl.get());
    std::string why = v != X509_V_OK ? std::string("certificate verify failed: ") + X509_verify_cert_error_string(v)
                                     : tls::io_error(ssl.get(), r, "handshake");
    ERR_clear_error();
    return fail("TLS to " + host + ": " + why);
  }
  if (SSL_get_verify_result(ssl.get()) != X509_V_OK || !SSL_get0_peer_certificate(ssl.get()))
    return fail("TLS to " + host + ": the certificate was not verified");
  return ssl;
}

}  // namespace sh::egress
