#include "egress/target.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

#include "egress/http.hpp"
#include "spec-mapping/egress_host.hpp"

namespace sh::egress {
namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A host as a policy writes it: names in lower case (DNS is case-blind; the policy spells them
// one way), addresses in inet_ntop's form. Whatever the policy could not name is refused here:
// single labels, trailing dots, numeric names, IPv4-mapped IPv6, non-canonical addresses.
Result<std::string> host_spelling(std::string_view raw, bool bracketed) {
  std::string h = lower_case(raw);
  if (bracketed) {
    in6_addr a6{};
    char buf[INET6_ADDRSTRLEN];
    if (::inet_pton(AF_INET6, h.c_str(), &a6) != 1 || !::inet_ntop(AF_INET6, &a6, buf, sizeof buf))
      return fail("\"[" + h + "]\" is not an IPv6 address");
    h = buf;
  } else if (policy::is_address(h) && h.find(':') != std::string::npos) {
    return fail("an IPv6 address must be in brackets");
  }
  if (std::string why = policy::host_problem(h); !why.empty()) return fail("host \"" + h + "\": " + why);
  if (policy::is_wildcard(h)) return fail("host \"" + h + "\" is a pattern, not a host");
  return h;
}

Result<uint16_t> port_of(std::string_view s) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || s.size() > 5 || ec != std::errc() || p != s.data() + s.size() || v == 0 || v > 65535 ||
      s[0] == '0')
    return fail("port \"" + std::string(s) + "\" is not 1..65535");
  return uint16_t(v);
}

}  // namespace

Result<Authority> parse_authority(std::string_view s, uint16_t default_port) {
  Authority a;
  std::string_view host, port;
  bool bracketed = s.starts_with('[');
  if (bracketed) {
    size_t close = s.find(']');
    if (close == std::string_view::npos) return fail("an unclosed [ in \"" + std::string(s) + "\"");
    host = s.substr(1, close - 1);
    std::string_view rest = s.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return fail("\"" + std::string(s) + "\" is not [address]:port");
    if (!rest.empty()) port = rest.substr(1);
    else if (!default_port) return fail("\"" + std::string(s) + "\" has no port");
  } else {
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos) {
      if (!default_port) return fail("\"" + std::string(s) + "\" has no port");
      host = s;
    } else {
      host = s.substr(0, colon);
      port = s.substr(colon + 1);
    }
  }
  if (s.find('@') != std::string_view::npos) return fail("user information in \"" + std::string(s) + "\"");
  a.host = TRY(host_spelling(host, bracketed));
  a.port = port.empty() && default_port ? default_port : TRY(port_of(port));
  return a;
}

Result<std::string> normal_path(std::string_view raw) {
  if (!raw.starts_with('/')) return fail("the path does not start with /");
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '%') {
      int hi = i + 2 < raw.size() ? hex(raw[i + 1]) : -1, lo = hi >= 0 ? hex(raw[i + 2]) : -1;
      if (lo < 0) return fail("a % that is not followed by two hexadecimal digits");
      c = char(hi * 16 + lo);
      i += 2;
      if (c == '/' || c == '\\') return fail("an encoded / or \\ in the path");
    }
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '\\') return fail("a control byte, space, \\ or non-ASCII byte in the path");
    out += c;
  }
  size_t from = 1;
  for (;;) {  // every segment between two slashes (the last may be empty: a trailing slash)
    size_t e = out.find('/', from);
    std::string_view seg = std::string_view(out).substr(from, e == std::string::npos ? std::string::npos : e - from);
    if (seg == "." || seg == "..") return fail("a \".\" or \"..\" segment in the path");
    if (e == std::string::npos) break;
    if (seg.empty()) return fail("an empty segment (//) in the path");
    from = e + 1;
  }
  return out;
}

Result<Target> parse_origin(std::string_view target) {
  if (!target.starts_with('/')) return fail("the request target is not a path (origin form)");
  if (target.find('#') != std::string_view::npos) return fail("a fragment in the request target");
  Target t;
  t.origin = std::string(target);
  t.path = std::string(target.substr(0, target.find('?')));
  return t;
}

Result<Target> parse_absolute(std::string_view target) {
  constexpr std::string_view kScheme = "http://";
  if (target.size() < kScheme.size() || lower_case(target.substr(0, kScheme.size())) != kScheme)
    return fail("a plain proxy request names an http:// URL (HTTPS goes through CONNECT)");
  target.remove_prefix(kScheme.size());
  size_t end = std::min(target.find('/'), target.find('?'));
  std::string_view authority = target.substr(0, end);
  std::string origin = end == std::string_view::npos ? "/" : std::string(target.substr(end));
  if (origin.starts_with('?')) origin = "/" + origin;
  Target t = TRY(parse_origin(origin));
  t.authority = TRY(parse_authority(authority, 80));
  return t;
}

bool host_field_names(std::string_view field, const Authority& a, uint16_t default_port) {
  auto h = parse_authority(field, default_port);
  return h && h->host == a.host && h->port == a.port;
}

}  // namespace sh::egress
