// The features document of this build and host (ops.cpp). The operations on a living container
// are in pause.hpp, update.hpp and cgroup_reads.hpp.
#pragma once
#include "oci/features.hpp"

namespace sh::lifecycle {

// The features document, probed from this build and host.
oci::Features host_features();

}  // namespace sh::lifecycle
