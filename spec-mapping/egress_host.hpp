// The host patterns of the egress section (docs/egress.md): what a rule may name and which
// names it matches. One spelling per host, so that composition compares strings exactly:
//   - an exact DNS name: two or more lower-case LDH labels ("api.github.com"), no trailing dot,
//     a last label that is not all digits (that would read as an IPv4 address);
//   - a wildcard: "*." and such a name of at least two labels; it matches exactly one more
//     label, as a TLS certificate's wildcard (RFC 6125): "*.a.com" matches "x.a.com", never
//     "a.com" nor "x.y.a.com";
//   - an IP address, in the form inet_ntop prints (IPv6 without brackets): only a rule that
//     lists it lets the door reach that address (a name never resolves into a private one).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace sh::policy {

// Why `host` is not a pattern ("" when it is one).
std::string host_problem(std::string_view host);

bool is_wildcard(std::string_view host);
bool is_address(std::string_view host);

// Does `pattern` allow the exact host `name`?
bool host_matches(std::string_view pattern, std::string_view name);

// The hosts both patterns allow, as one pattern, or nothing: equal patterns meet in themselves,
// a wildcard and a name it matches in the name, anything else in nothing.
std::optional<std::string> meet_host(const std::string& a, const std::string& b);

}  // namespace sh::policy
