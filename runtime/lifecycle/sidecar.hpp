// What a policy starts beside a container (the edge proxies, the KMS; next the egress door), as
// create, delete and state see it: a name and four functions, in the shape of crun's custom
// handlers. The lifecycle knows this interface and nothing of what is behind it: each wing
// (edges/, kms/) fills one in, and the front door hands the list to Globals at start.
//
//   create   provisions, in the list's order, the sidecars the policy asks for (`wanted`): each
//            makes its host side and adds to the config what runs and exposes it (hooks, mounts,
//            env, the identity annotations `state` reports), before anything runs;
//   undo     a create that failed and `delete` unprovision the whole list in reverse order,
//            after the poststop hooks stopped what runs (each unprovision is idempotent);
//   state    lets each update what it reports (a renewed certificate's fingerprint);
//   map      `policy map` shows what each adds to the config, with placeholders.
#pragma once
#include <map>
#include <span>
#include <string>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/map.hpp"

namespace sh::lifecycle {

struct RuntimeConfig;

// What a sidecar is given at create.
struct SidecarHost {
  const std::string& state_root;   // --root
  const std::string& id;           // the container id
  const std::string& config_path;  // --config ("" if none)
  const RuntimeConfig& rc;         // the operator's runtime config
};

struct Sidecar {
  const char* name;
  // Does the policy ask for it?
  bool (*wanted)(const policy::Extension& ext);
  // Why an unprivileged runtime cannot provide it (the start of create's refusal).
  const char* needs_root;
  // Make the host side and add to `c` what runs and exposes it.
  Result<void> (*provision)(const SidecarHost& h, const policy::Extension& ext, oci::Config& c);
  // Remove the host side (after poststop). Idempotent: called whether it was provisioned or not.
  Result<void> (*unprovision)(const std::string& state_root, const std::string& id);
  // Update the annotations `state` reports; nullptr: nothing to update.
  void (*annotate_state)(const std::string& state_root, const std::string& id,
                         std::map<std::string, std::string>& annotations);
  // What `policy map` shows of it: what provision adds, for a symbolic container.
  policy::ShowHost show;
};

using Sidecars = std::span<const Sidecar* const>;

// create's step: provision every wanted sidecar of `list`, in order. The first failure stops.
Result<void> provision_sidecars(Sidecars list, const SidecarHost& h, const policy::Extension& ext, oci::Config& c);
// The undo's step: unprovision every sidecar of `list`, last first. `keep_going`: a failure is
// skipped (a failed create's undo); otherwise the first stops (delete: it can be run again).
Result<void> unprovision_sidecars(Sidecars list, const std::string& state_root, const std::string& id,
                                  bool keep_going);

}  // namespace sh::lifecycle
