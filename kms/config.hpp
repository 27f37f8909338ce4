// sharness-kms's config file (docs/kms.md "Config"): JSON, strict (unknown keys are errors
// naming the JSON path). The policy's `secrets` section becomes one of these per container.
#pragma once
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "kms/protocol.hpp"
#include "tls/tls.hpp"

namespace sh::kms {

// The role of a container's egress door (sharness-egress): the only caller credentials go to.
inline constexpr const char* kDoorRole = "egress";

struct Config {
  std::string name;          // instance name (the container id): cgroup, state dir, log lines
  std::string vault, kek;    // sealed vault and its key-encryption key (host paths, root only)
  std::string socket;        // the listening UNIX socket the gate binds
  tls::Files tls;             // the KMS's own certificate, its key and the CA
  std::string caller_role;   // the workload's role ("app"); "": the workload is no caller
  std::string caller_id;     // the only id (the container's) of either caller: spiffe://.../role/<role>/<id>
  Allowlist allow;           // vaults, hosts, operations, max TTL (the workload's derive requests)
  bool workload_may_ask = false;  // the workload's own derive requests are refused unless set
  std::vector<CredentialGrant> credentials;  // what the door (role kDoorRole) may ask for
  // Who may complete the handshake: the workload's role if set, the door's if it has credentials.
  std::vector<std::string> caller_roles() const;
  std::string log;           // log file, opened before the sandbox (default: stderr)
  std::string state_root = "/run/sharness-kms";  // <root>/<name>/ holds the pid file; uid claims
  std::string cgroup_parent = "/sharness-kms";   // cgroups <parent>/<name>/{gate,worker}
  uint64_t memory_limit = 64ull << 20;           // bytes, each of gate and worker
  bool allow_weaker_memory = false;              // run without memfd_secret (and say so)
};

Result<Config> parse_config(std::string_view text, const std::string& origin);
Result<Config> load_config(const std::string& path);

// The throwaway uid range of KMS processes: right after the containers' range
// (runtime/lifecycle/ephemeral_uid.hpp), so a KMS never shares a uid with a container.
inline constexpr uint32_t kKmsUidFirst = 2000000000u + 65536u;
inline constexpr uint32_t kKmsUidCount = 65536u;

}  // namespace sh::kms
