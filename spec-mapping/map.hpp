// What `policy map` and `policy apply` print and write, kept out of the CLI so that it is
// unit-tested: the OCI sections a policy becomes, and a bundle's config.json tightened by a
// policy with the "sharness" extension block added.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

// Load policy files and intersect them in order (the first is the floor).
Result<Policy> load_policies(const std::vector<std::string>& paths);


// Without a bundle: the OCI sections the policy maps to (process.user/capabilities/rlimits/
// noNewPrivileges/env, root.readonly, mounts, annotations, linux.namespaces/resources/devices/
// maskedPaths/readonlyPaths/sysctl) and the "sharness" block, as one JSON object.
// `sidecars`: what each sidecar adds for a container (its hooks, mounts, env), in create's order,
// with the state root and the container id as placeholders.
using ShowHost = Result<void> (*)(const Extension& ext, oci::Config& c);
Result<std::string> map_policy_json(const Policy& p, bool pretty, const HostProbe& host,
                                    std::span<const ShowHost> sidecars);

// A whole config.json: `config_text` tightened by the effective policy (floor x annotation),
// plus the "sharness" block. Refuses a config that already carries one (apply to the original).
Result<std::string> merged_config_json(const Policy& floor, std::string_view config_text, const std::string& origin,
                                       bool pretty, const HostProbe& host);

}  // namespace sh::policy
