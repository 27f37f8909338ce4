// The egress door's plan for one container (docs/egress.md "The sidecar"): where its files go on
// the host, the door's config, and what the container's config.json gets (the CA in its trust
// store, the variables that point clients at it, the hooks that start and stop the door). One
// path for `policy map` (placeholders) and `create` (real paths), as the KMS's plan.
//
//   <root>/<id>/egress            0711 root: the door's directory, bound at kDoorDirInDoor in the
//                                 door's own mount namespace (the state dir above it is 0700)
//     door.json                   the door's config (0644: no secret in it)
//     ca/                         the per-container CA (egress/ca.hpp), given to the door's uid by up
//     trust/                      its certificate, bound read-only at /etc/ssl/certs in the container
//     door.log, door.err          the door's request log (fd 4) and its stderr, root's (0600)
//     door.state                  what up started, for down (pids, start times, the uid)
//     kms-tls/                    the door's own leaf (role egress, the container's id) for the
//                                 KMS, given to the door's uid by up; only when a rule has a
//                                 credential and the runtime config names no credentialsDir
//     kms.sock/                   empty: the door's namespace binds the KMS's socket dir over it
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/egress.hpp"
#include "spec-mapping/egress_map.hpp"
#include "spec-mapping/extension.hpp"

namespace sh::egress {

// Where the door sees its directory: an empty mount point made once on the host, over which each
// door's own mount namespace binds <root>/<id>/egress.
inline constexpr const char* kDoorDirInDoor = "/run/sharness-egress";
// The trust directory's place in the container, and the bundle every client variable names.
inline constexpr const char* kTrustDirInContainer = policy::kEgressTrustDir;
inline constexpr const char* kTrustFileInContainer = "/etc/ssl/certs/ca-certificates.crt";

inline constexpr const char* kConfigFile = "door.json";
inline constexpr const char* kCaDir = "ca";
inline constexpr const char* kTrustDir = "trust";
inline constexpr const char* kLogFile = "door.log";
inline constexpr const char* kErrFile = "door.err";
inline constexpr const char* kStateFile = "door.state";
inline constexpr const char* kKmsTlsDir = "kms-tls";
inline constexpr const char* kKmsSocketDir = "kms.sock";

// Does the door ask the KMS for its rules' credentials (rather than read a credentialsDir)?
bool credentials_from_kms(const policy::EgressPolicy& e, const std::string& credentials_dir);

std::string door_dir(const std::string& state_root, const std::string& id);  // <root>/<id>/egress

// What the operator's runtime config gives every door ("egress": {...}); "" where unset.
struct DoorSite {
  std::string upstream_trust, hosts, credentials_dir;
  std::vector<std::string> allow_addresses;
};

// The door's config (docs/egress.md "The door's interface"), its own paths as it sees them.
std::string door_config_json(const policy::EgressPolicy& e, const std::string& id, const DoorSite& site);

struct DoorHost {
  std::string state_root;      // --root ("<state root>" in `policy map`)
  std::string id;              // the container id
  std::string binary;          // sharness-egress, next to the runtime
  std::string runtime_config;  // --config ("" if none): up reads the ephemeral uid range from it
};
// The container's side: the trust directory bound read-only over /etc/ssl/certs, the variables
// every client library reads for its CA bundle (replacing the config's own), the createRuntime
// hook `sharness-egress up` and the poststop hook `sharness-egress down`.
void apply_egress_host(const DoorHost& h, oci::Config& c);

// What `policy map` shows of the door.
Result<void> show_egress(const policy::Extension& ext, oci::Config& c);

}  // namespace sh::egress
