// A policy's `secrets` section (docs/kms.md): what the workload may ask the KMS sidecar for.
// The pure half: parse, intersect, write, describe. The KMS wing (kms/host/) turns it into one
// container's hooks, mounts and KMS config.
//
//   "secrets": {"vaults": [...], "hosts": [...], "operations": [...], "ttl": seconds,
//               "allowWeakerMemory": false, "workloadMayAsk": false}
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"

namespace sh::policy {

struct SecretsPolicy {
  std::vector<std::string> vaults, hosts, operations;  // sorted, unique
  uint64_t ttl = 0;
  // Where the kernel lacks memfd_secret: run with mlocked, MADV_DONTDUMP, MADV_WIPEONFORK
  // anonymous memory (root can read it via /proc/<pid>/mem) instead of refusing to start.
  bool allow_weaker_memory = false;
  // May the workload itself ask the KMS for derived keys? By default the KMS answers only the
  // container's egress door (the credentials its rules inject), so a policy says so explicitly.
  bool workload_may_ask = false;
  bool operator==(const SecretsPolicy&) const = default;
};
// Strict: unknown keys, empty lists, names outside [A-Za-z0-9._:-] and ttl outside 1..30 days
// are errors naming the JSON path.
Result<SecretsPolicy> parse_secrets(const json::Value& v);
// Policies only tighten: lists intersected, the smaller ttl, the weaker mode and the workload's
// own asking only if both allow them (false wins).
SecretsPolicy intersect_secrets(const SecretsPolicy& a, const SecretsPolicy& b);
// The section as an object (the policy writer and the config's "sharness" block).
void write_secrets(json::Writer& w, const SecretsPolicy& s);
// For `policy explain` / `hello`.
std::string describe_secrets(const SecretsPolicy& s);
// A vault, host, operation or KMS name: 1-253 characters of [A-Za-z0-9._:-].
bool valid_secrets_name(std::string_view v);

// Where the workload reaches its KMS, the same for every container (so `policy apply` writes it).
inline constexpr const char* kKmsSocketDirInContainer = "/run/kms";
// "SHARNESS_KMS_SOCKET=/run/kms/kms.sock"
inline std::string kms_socket_env() {
  return std::string("SHARNESS_KMS_SOCKET=") + kKmsSocketDirInContainer + "/kms.sock";
}

}  // namespace sh::policy
