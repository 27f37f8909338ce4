// Who an edge's peer may be (tls/tls.hpp checks it inside the handshake): one of the edge's
// roles, and live (edges/live.hpp), so a wrong or revoked certificate fails the handshake before
// any payload is read or forwarded.
#pragma once
#include <string>
#include <vector>

#include "tls/tls.hpp"

namespace sh::edges {

// Where a handshake checks that the peer's leaf is live: the live registry's directory fd
// (live::open_registry, opened by a proxy before its sandbox). A bad fd refuses every peer.
// `unchecked()` is for tools and tests that talk to a proxy, never for a proxy itself.
class Liveness {
 public:
  explicit Liveness(int registry) : fd_(registry) {}
  static Liveness unchecked() {
    Liveness l(-1);
    l.checked_ = false;
    return l;
  }
  int registry() const { return fd_; }
  bool checked() const { return checked_; }

 private:
  int fd_;
  bool checked_ = true;
};

// The rule for one handshake: a leaf naming one of `roles`, registered live in `live`; a
// revoked one gets the certificate_revoked alert.
tls::Peer peer(std::vector<std::string> roles, Liveness live);

}  // namespace sh::edges
