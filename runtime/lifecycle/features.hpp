// The features document of this build and host (features.cpp). The operations on a living container
// are in pause.hpp, update.hpp and cgroup_reads.hpp.
#pragma once
#include "oci/features.hpp"
#include "runtime/linux/host_facts.hpp"

namespace sh::lifecycle {

// The features document of this build on a host (host::probe(host::Depth::features)).
oci::Features host_features(const host::Facts& host);

}  // namespace sh::lifecycle
