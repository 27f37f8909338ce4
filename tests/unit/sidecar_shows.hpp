// What `policy map` shows of each sidecar, in the front door's order (cmd/sharness-runtime/main.cpp).
#pragma once
#include "edges/provision.hpp"
#include "kms/host/plan.hpp"
#include "spec-mapping/map.hpp"

inline constexpr sh::policy::ShowHost kSidecarShows[] = {sh::edges::show_edges, sh::kms::show_kms};
