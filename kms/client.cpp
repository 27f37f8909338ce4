#include "kms/client.hpp"

#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

#include "base/fd.hpp"
#include "kms/crypto.hpp"

namespace sh::kms {

Result<std::string> exchange(const std::string& socket, const tls::Files& files, const std::string& request,
                             const tls::Peer& server) {
  auto ctx = TRYC("KMS " + socket, tls::make_ctx(false, files));
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (socket.size() >= sizeof sa.sun_path) return fail("KMS socket path too long: " + socket);
  std::memcpy(sa.sun_path, socket.c_str(), socket.size() + 1);
  Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return sys_error("socket for the KMS");
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) return sys_error("connect " + socket);
  auto ssl = TRYC("KMS " + socket, tls::handshake(ctx.get(), s.get(), false, server, 10));
  struct timeval tv{10, 0};  // a KMS that never answers cannot hold the caller
  ::setsockopt(s.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int r = SSL_write(ssl.get(), request.data(), static_cast<int>(request.size()));
  if (r <= 0) return fail("KMS " + socket + ": " + tls::io_error(ssl.get(), r, "send request"));
  std::string resp;
  char buf[4096];
  while (resp.size() <= kMaxResponse && !resp.ends_with("\n\n")) {
    // TLS 1.3: a server that refuses our certificate says so with an alert here.
    r = SSL_read(ssl.get(), buf, sizeof buf);
    if (r <= 0) return fail("KMS " + socket + ": " + tls::io_error(ssl.get(), r, "read response"));
    resp.append(buf, static_cast<size_t>(r));
  }
  SSL_shutdown(ssl.get());
  return resp;
}

Result<std::string> fetch_credential(const std::string& socket, const tls::Files& files, const std::string& container,
                                     const std::string& vault, const std::string& host) {
  X25519Pair pair = TRY(x25519_generate());  // one-time: for this request only
  Request req;
  req.kind = Kind::credential;
  req.vault = vault;
  req.host = host;
  req.pub = pair.pub;
  const tls::Peer kms{{"kms"}, container, {}};  // the KMS of the door's own container only
  Response resp = TRYC("KMS " + socket, parse_response(TRY(exchange(socket, files, format_request(req), kms))));
  if (!resp.ok) return fail("the KMS refused credential \"" + vault + "\" for " + host + ": " + resp.reason);
  std::string out(resp.sealed.ct.size(), '\0');
  auto opened = open(resp.sealed, pair.priv.k, response_aad(req, resp.expires),
                     {reinterpret_cast<uint8_t*>(out.data()), out.size()});
  if (!opened) {
    scrub(out.data(), out.size());
    return fail("credential \"" + vault + "\" from the KMS does not open with the one-time key: " + opened.error().what());
  }
  return out;
}

}  // namespace sh::kms
