// The KMS sidecar as a policy places it into a container's config.json (issue 10, docs/kms.md
// "Policy mapping"): the policy's `secrets` section, and for one container the sharness-kms
// config plus the hooks and mounts that run it. create calls it (runtime/lifecycle/kms_provision).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"
#include "oci/config.hpp"

namespace sh::hooks {

// "secrets": {"vaults": [...], "hosts": [...], "operations": [...], "ttl": seconds,
//             "allowWeakerMemory": false}
struct SecretsPolicy {
  std::vector<std::string> vaults, hosts, operations;  // sorted, unique
  uint64_t ttl = 0;
  // Where the kernel lacks memfd_secret: run with mlocked, MADV_DONTDUMP, MADV_WIPEONFORK
  // anonymous memory (root can read it via /proc/<pid>/mem) instead of refusing to start.
  bool allow_weaker_memory = false;
  bool operator==(const SecretsPolicy&) const = default;
};
// Strict: unknown keys, empty lists, names outside [A-Za-z0-9._:-] and ttl outside 1..30 days
// are errors naming the JSON path.
Result<SecretsPolicy> parse_secrets(const json::Value& v);
// Policies only tighten: lists intersected, the smaller ttl, the weaker mode only if both allow it.
SecretsPolicy intersect_secrets(const SecretsPolicy& a, const SecretsPolicy& b);
// The section as an object (the policy writer and the config's "sharness" block).
void write_secrets(json::Writer& w, const SecretsPolicy& s);
// For `policy explain` / `hello`.
std::string describe_secrets(const SecretsPolicy& s);

// What the operator's runtime config says about KMS sidecars on this host.
struct KmsSite {
  std::string kms_binary, client_binary;  // host paths of sharness-kms and sharness-kms-client
  std::string vault, kek;                 // the sealed vault and its key-encryption key
  std::string ca, cert, key;              // the KMS's own identity (role kms) and the CA
  std::string state_root = "/run/sharness-kms";
  std::string cgroup_parent = "/sharness-kms";
  std::string caller_role;                // the container's role (issue 9)
  std::string client_cert_dir;            // host dir with the container's ca.pem, cert.pem, key.pem
  // Where this container's KMS config, socket dir and log go; empty: beside state_root
  // (<state_root>/<id>.json, .sock, .log). Uid claims and pid files stay under state_root.
  std::string instance_dir;
};

// Where things go inside the container.
inline constexpr const char* kKmsSocketDirInContainer = "/run/kms";
inline constexpr const char* kKmsCertDirInContainer = "/etc/kms";
inline constexpr const char* kKmsClientInContainer = "/usr/bin/sharness-kms-client";
// "SHARNESS_KMS_SOCKET=/run/kms/kms.sock": the same for every container, so `policy apply` writes it.
inline std::string kms_socket_env() {
  return std::string("SHARNESS_KMS_SOCKET=") + kKmsSocketDirInContainer + "/kms.sock";
}

struct KmsPlan {
  std::string config_path;  // write config_json here (0600) before the createRuntime hooks run
  std::string config_json;  // a sharness-kms config (kms/config.hpp), callerId = the container id
  std::string socket_dir;   // create it (0755) before the container's mounts are made
};
// For container `id`: the plan, and `c` gets a createRuntime hook (sharness-kms start), a
// poststop hook (stop), the socket dir, the certificates and the client bind-mounted read-only,
// and SHARNESS_KMS_SOCKET in the process environment.
// `symbolic`: for `policy map`, whose id and state root are placeholders ("<container id>"):
// the id and path checks are skipped (create always checks).
Result<KmsPlan> plan_kms(const SecretsPolicy& s, const KmsSite& site, const std::string& id, oci::Config& c,
                         bool symbolic = false);

}  // namespace sh::hooks
