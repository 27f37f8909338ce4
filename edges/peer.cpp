#include "edges/peer.hpp"

#include "edges/identity.hpp"
#include "edges/live.hpp"

namespace sh::edges {

tls::Peer peer(std::vector<std::string> roles, Liveness live) {
  return {std::move(roles), {}, [live](X509* leaf, bool* revoked) -> Result<void> {
            *revoked = false;
            if (!live.checked()) return {};
            auto id = TRY(identity::parse_spiffe_uri(TRY(tls::uri_san(leaf))));
            TRYVC("peer certificate refused", live::check(live.registry(), id.name, identity::fingerprint(leaf), revoked));
            return {};
          }};
}

}  // namespace sh::edges
