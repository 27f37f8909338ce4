// `sharness-edge connect`: a tool, not a proxy: it does not check that the server's leaf is live.
#include <signal.h>

#include "base/file.hpp"
#include "edges/commands.hpp"
#include "edges/identity.hpp"
#include "edges/peer.hpp"
#include "edges/relay.hpp"
#include "edges/sockets.hpp"

namespace sh::edges {

Result<int> connect(const std::string& cert_dir, const std::string& socket, const std::string& role) {
  std::string d = cert_dir + "/";
  auto ctx = TRY(tls::make_ctx(false, tls::Pem{TRY(read_file(d + identity::kCertFile)), TRY(read_file(d + identity::kKeyFile)),
                                                TRY(read_file(d + identity::kCaFile))}));
  Fd s = TRY(connect_unix_path(socket, socket));
  auto ssl = TRY(tls::handshake(ctx.get(), s.get(), false, peer({role}, Liveness::unchecked()), 10));
  ::signal(SIGPIPE, SIG_IGN);
  TRYV(relay(0, 1, ssl.get(), s.get()));
  return 0;
}

}  // namespace sh::edges
