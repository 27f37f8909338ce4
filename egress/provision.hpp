// The egress door's host side (the egress sidecar of runtime/lifecycle/sidecar.hpp): at create,
// the door's directory, its per-container CA (made by `sharness-egress ca init`) and its config;
// the container's trust, variables and hooks (egress/plan.hpp). The door itself is started by the
// createRuntime hook (egress/up.cpp) and stopped by the poststop hook (egress/down.cpp).
#pragma once
#include "runtime/lifecycle/sidecar.hpp"

namespace sh::egress {

// The door beside every container whose policy has `egress`.
extern const lifecycle::Sidecar sidecar;

}  // namespace sh::egress
