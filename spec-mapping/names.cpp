#include "spec-mapping/names.hpp"

namespace sh::naming {

Result<void> validate_role(std::string_view role) {
  bool ok = !role.empty() && role.size() <= 63 && role[0] != '-';
  for (char c : role) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
  if (!ok)
    return fail("\"" + std::string(role) + "\" is not a role (1-63 of a-z 0-9 -, not starting with -)");
  return {};
}

std::string spiffe_uri(std::string_view role, std::string_view name) {
  return "spiffe://" + std::string(kTrustDomain) + "/role/" + std::string(role) + "/" + std::string(name);
}

Result<SpiffeId> parse_spiffe_uri(std::string_view uri) {
  std::string prefix = "spiffe://" + std::string(kTrustDomain) + "/role/";
  if (!uri.starts_with(prefix)) return fail("URI \"" + std::string(uri) + "\" is not in " + prefix + "...");
  std::string_view rest = uri.substr(prefix.size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return fail("URI \"" + std::string(uri) + "\" names no workload");
  SpiffeId id{std::string(rest.substr(0, slash)), std::string(rest.substr(slash + 1))};
  TRYC("URI " + std::string(uri), validate_role(id.role));
  if (id.name.empty() || id.name.find('/') != std::string::npos)
    return fail("URI \"" + std::string(uri) + "\": bad workload name");
  return id;
}

}  // namespace sh::naming
