// A cache of prepared policies (as runtime/linux/seccomp_cache keeps compiled filters): what
// create derives from the policy files alone (parse, canonical hash, composition of floor and
// client, the syscall groups' expansion, the explanation's lines) kept under
// <state root>/.cache/policy/<key>.pol, so that the next create with the same files reads it
// back instead of doing it again (~1.5 M instructions for policies/harsh.json).
//
// The key is the SHA-256 of every input: the exact bytes and paths of the floor and client
// policy files, the client's name and grants, the runtime config's text, the host probe, and the
// runtime's version and build id. An entry is used only if its directories and file pass
// base/private_cache's checks (ours, not a symlink, no group or other permission bits), its
// digest matches, and it decodes whole; anything else is ignored (logged at debug) and the policy
// prepared afresh, so a cache problem never fails or loosens a container. A policy whose files
// fail to parse or compose is never stored: its error is reported at every create.
#pragma once
#include <optional>
#include <string>

#include "base/error.hpp"
#include "base/host_facts.hpp"
#include "base/private_cache.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "spec-mapping/compose.hpp"

namespace sh::lifecycle {

// At most 64 prepared policies (harsh's is ~9 KiB) and 4 MiB in all.
inline constexpr CacheBounds kPolicyCacheBounds{64, 4u << 20};

// The entry's name (lowercase hex) for these inputs.
std::string policy_cache_key(const RuntimeConfig& rc, const PolicyChoice& choice, const host::Facts& host);

// The container's policy, prepared for `host`: through the cache under `state_root` ("" = no
// cache), else select_policy and policy::prepare. nullopt when no policy is chosen.
Result<std::optional<policy::Prepared>> prepared_policy(const RuntimeConfig& rc, const PolicyChoice& choice,
                                                        const host::Facts& host, const std::string& state_root);

}  // namespace sh::lifecycle
