// The naming rules the edges, the KMS and the mesh share: what a role is, the SPIFFE URI a
// container's certificate carries, and where a container finds its identity. Pure: no X.509.
//
//   spiffe://sharness.local/role/<role>/<name>      (<name>: the container id, or the KMS's)
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sh::naming {

inline constexpr const char* kTrustDomain = "sharness.local";
inline constexpr const char* kContainerDir = "/run/sharness/identity";  // where a container finds its files
inline constexpr const char* kCertFile = "cert.pem";
inline constexpr const char* kKeyFile = "key.pem";
inline constexpr const char* kCaFile = "ca.pem";

// Roles name components: 1-63 of a-z 0-9 '-', starting with a letter or digit. They go into
// URIs, environment variable names and file names: nothing else is allowed.
Result<void> validate_role(std::string_view role);

// spiffe://sharness.local/role/<role>/<name>
std::string spiffe_uri(std::string_view role, std::string_view name);
struct SpiffeId {
  std::string role, name;
};
// Parse a URI of exactly that shape (our trust domain); anything else is an error.
Result<SpiffeId> parse_spiffe_uri(std::string_view uri);

}  // namespace sh::naming
