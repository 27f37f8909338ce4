// What a policy's egress section becomes in config.json (docs/egress.md "What it maps to"),
// and the refusal that stands until the door exists.
//
// The container gets a network namespace of its own with only lo, up (the policy parser makes
// "network" "loopback" for a policy with egress): the door will listen on that lo, at a fixed
// port, and be the only way out. The environment gets what is the same in every container: the
// proxy variables pointing at that port and each credential's placeholder. What is per
// container (the door's CA in the trust store and its variables, the listener's fd, the
// sidecar itself) is the door's to add when it is built.
#pragma once
#include <optional>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/egress.hpp"

namespace sh::policy {

// The door's listener on the container's lo (its own namespace: the port collides with nothing).
inline constexpr uint16_t kEgressProxyPort = 3128;

// The proxy variables (upper and lower case, curl and Python read both) and each credential's
// placeholder, replacing any the config had; the config's other proxy variables (ALL_PROXY,
// NO_PROXY) are removed, so that no client tries to go around the door.
void apply_egress_env(const EgressPolicy& e, oci::Process& proc);

// Why create refuses a policy with an egress section: nothing would enforce it yet.
inline constexpr const char* kEgressDoorMissing =
    "egress rules need the egress door (sharness-egress), not built yet: create refuses rather than run the "
    "container without the rules it was given (docs/egress.md)";
// Fails with kEgressDoorMissing when there is an egress section, whatever bestEffort says.
Result<void> require_door(const std::optional<EgressPolicy>& e);

}  // namespace sh::policy
