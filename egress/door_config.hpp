// The door's config file (docs/egress.md, "The door's interface"): JSON through the project's
// yajl wrapper, unknown keys refused, the policy section parsed by the policy floor's own parser.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "egress/address.hpp"
#include "egress/credentials.hpp"
#include "spec-mapping/egress.hpp"

namespace sh::egress {

inline constexpr const char* kDefaultTrust = "/etc/ssl/certs/ca-certificates.crt";

struct DoorConfig {
  std::string container;
  policy::EgressPolicy egress;
  std::string ca_cert, ca_key;         // PEM paths
  std::string upstream_trust = kDefaultTrust;
  std::optional<std::string> hosts;    // /etc/hosts syntax: names from there only
  std::vector<Cidr> allow, deny;       // allowAddresses, denyAddresses
  std::unique_ptr<CredentialSource> credentials;  // null when no rule has a credential
};

Result<DoorConfig> parse_door_config(std::string_view text, const std::string& origin);

}  // namespace sh::egress
