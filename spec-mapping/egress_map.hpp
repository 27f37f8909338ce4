// What a policy's egress section becomes in config.json (docs/egress.md "What it maps to").
//
// The container gets a network namespace of its own with only lo, up (the policy parser makes
// "network" "loopback" for a policy with egress): the door will listen on that lo, at a fixed
// port, and be the only way out. The environment gets what is the same in every container: the
// proxy variables pointing at that port and each credential's placeholder. What is per
// container (the door's CA in the trust store and its variables, the listener, the door itself)
// is the egress sidecar's (egress/plan.hpp), which create provisions.
#pragma once
#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/egress.hpp"

namespace sh::policy {

// The door's listener on the container's lo (its own namespace: the port collides with nothing).
inline constexpr uint16_t kEgressProxyPort = 3128;
// Where the door's CA is in the container (the sidecar binds it read-only over the distribution's
// bundle directory): a files section gets a read rule for it.
inline constexpr const char* kEgressTrustDir = "/etc/ssl/certs";

// The proxy variables (upper and lower case, curl and Python read both) and each credential's
// placeholder, replacing any the config had; the config's other proxy variables (ALL_PROXY,
// NO_PROXY) are removed, so that no client tries to go around the door.
void apply_egress_env(const EgressPolicy& e, oci::Process& proc);

}  // namespace sh::policy
