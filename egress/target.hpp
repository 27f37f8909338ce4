// What a request names, read one way: the CONNECT authority, the absolute-form URL of a plain
// proxy request, the origin-form path inside a tunnel, and the Host field; each host brought to
// the one spelling the policy's host patterns use (spec-mapping/egress_host.hpp), or refused.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sh::egress {

struct Authority {
  std::string host;  // lower case; an address in inet_ntop's form, IPv6 without brackets
  uint16_t port = 0;
};

// "host:port", "[v6]:port" (CONNECT: the port is required).
Result<Authority> parse_authority(std::string_view s, uint16_t default_port = 0);

struct Target {
  Authority authority;  // absolute form only
  std::string path;     // as written, before the query: normal_path decides on it
  std::string origin;   // what goes upstream: path and query as the client wrote them
};
// "http://host[:port]/path?query" (a plain proxy request; the port defaults to 80).
Result<Target> parse_absolute(std::string_view target);
// "/path?query" (a request inside a tunnel).
Result<Target> parse_origin(std::string_view target);

// The path a rule's pathPrefixes are checked against: percent-decoded once, and refused (never
// repaired) when it holds a "..", "." or empty segment ("//"), an encoded "/" or "\", a "\",
// NUL or a byte outside printable ASCII once decoded.
Result<std::string> normal_path(std::string_view raw);

// Does the Host field name `a` (the port may be left out when it is the scheme's default)?
bool host_field_names(std::string_view field, const Authority& a, uint16_t default_port);

}  // namespace sh::egress
