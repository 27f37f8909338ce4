// The operator's runtime configuration (/etc/sharness/runtime.json, or --config):
//   {"policyDirs": ["/etc/sharness/policies"], "defaultPolicy": "baseline",
//    "ephemeralUids": {"first": 2000000000, "count": 65536}, "caDir": "/etc/sharness/ca",
//    "edges": {"leafSeconds": 86400}, "egress": {"upstreamTrust": "/etc/ssl/certs/ca-certificates.crt"},
//    "clientPolicies": {"db": {"mayAdd": ["role", "accepts", "secrets"]}, "strict": {}}}
// and the choice of a container's policy at create: the operator's floor (--policy, or
// defaultPolicy) intersected with the policy a client names in the annotation
// org.sharness.policy. The annotation names a file in policyDirs, never a path: a client
// picks among what the operator installed (only those clientPolicies lists, when it is
// there), and can only tighten the floor: a policy looser than the floor in any section it
// states is refused, and one that grants identity or reach (role, edges, accepts, secrets, egress)
// the floor does not have is refused unless its mayAdd lists that section.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::lifecycle {

inline constexpr const char* kDefaultRuntimeConfig = "/etc/sharness/runtime.json";

struct RuntimeConfig {
  std::vector<std::string> policy_dirs = {"/etc/sharness/policies"};
  std::string default_policy;  // a name or a path; empty: no floor
  uint32_t ephemeral_first = 2000000000u;
  uint32_t ephemeral_count = 65536u;
  std::string ca_dir;  // the edge CA (docs/edges.md); empty: <state root>/.ca
  // Lifetime of a container's leaf certificate (10 s .. 30 days); its edge proxy's supervisor
  // renews it when a third of it is left (docs/edges.md "Renewal").
  int64_t leaf_seconds = 24 * 3600;
  // "kms": {"vault", "kek", "cgroupParent"}: what a policy's `secrets` runs against (docs/kms.md).
  std::string kms_vault = "/etc/sharness/kms/vault";  // sealed by `sharness-runtime kms seal`
  std::string kms_kek = "/etc/sharness/kms/kek";      // root only
  std::string kms_cgroup_parent = "/sharness-kms";
  // "egress": what every egress door on this host is given (docs/egress.md "The sidecar"):
  // "upstreamTrust" (PEM bundle upstreams must chain to; "": the host's), "hosts" (a static
  // /etc/hosts-syntax file used instead of DNS; "": DNS), "allowAddresses" (special addresses
  // names may resolve into: an internal service), "credentialsDir" (one file per vault entry,
  // for a host without the KMS's credentials; "": none). Files the door's own uid must read.
  std::string egress_upstream_trust, egress_hosts, egress_credentials_dir;
  std::vector<std::string> egress_allow_addresses;
  // "seccompCache": false turns off the compiled-filter cache (runtime/linux/seccomp_cache.hpp).
  bool seccomp_cache = true;
  // "policyCache": false turns off the prepared-policy cache (runtime/lifecycle/policy_cache.hpp).
  bool policy_cache = true;
  // The text this was parsed from ("" for the defaults): the policy cache keys on it.
  std::string source;
  // "clientPolicies": the installed policies a client may name, each with the grant sections it
  // may add where the floor has none. Absent: any installed policy, adding none.
  std::optional<std::map<std::string, policy::Grants>> client_policies;
  // "trustBundleClaims": true says whoever writes bundles on this host is the operator, so a
  // config.json's policy claims (a "sharness" block, org.sharness.* annotations, as `policy
  // apply` writes them) are what create enforces and `state` reports. Off (the default), they
  // are refused at create: only the runtime writes policy claims (docs/policy.md "Claims").
  bool trust_bundle_claims = false;
};

// Where the certificate authority lives: caDir, else <state root>/.ca.
std::string ca_dir(const RuntimeConfig& rc, const std::string& state_root);

// Parse the runtime config (strict: unknown keys are errors).
Result<RuntimeConfig> parse_runtime_config(std::string_view text, const std::string& origin);
// Load `path`; a missing default file gives the defaults, a missing --config file is an error.
Result<RuntimeConfig> load_runtime_config(const std::string& path, bool explicit_path);

// A policy file as read: where it was found and its bytes.
struct PolicySource {
  std::string path;
  std::string text;
};
// A policy by name (looked up as NAME.json in the policy dirs) or, for the operator only,
// by path (anything with a '/'): found and read, or parsed too.
Result<PolicySource> find_named_policy(const RuntimeConfig& rc, const std::string& name_or_path);
Result<policy::Policy> load_named_policy(const RuntimeConfig& rc, const std::string& name_or_path);

// The files a container's policy comes from, read once (the policy cache keys on these bytes
// and a miss parses the same bytes): the operator's floor (--policy, else defaultPolicy) and
// the installed policy the annotation names, with what clientPolicies lets it add.
struct PolicyChoice {
  std::optional<PolicySource> floor, client;
  std::string client_name;  // the annotation's value without ".json"
  policy::Grants grants;
  bool empty() const { return !floor && !client; }
};
Result<PolicyChoice> read_policy_choice(const RuntimeConfig& rc, const std::string& operator_policy,
                                        const oci::Config& c);

// The container's policy: floor (operator) intersected with the annotation's (client).
// nullopt when neither names one.
Result<std::optional<policy::Policy>> select_policy(const PolicyChoice& choice);
Result<std::optional<policy::Policy>> select_policy(const RuntimeConfig& rc, const std::string& operator_policy,
                                                    const oci::Config& c);

}  // namespace sh::lifecycle
