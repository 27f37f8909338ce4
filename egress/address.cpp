#include "egress/address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <span>

namespace sh::egress {
namespace {

struct Range {
  const char* cidr;
  const char* kind;
};

// IANA's special-purpose registries, less what is routable on purpose. Documentation ranges
// (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are not here: they reach
// nothing real, and the tests' hosts live in them.
constexpr Range kV4[] = {
    {"0.0.0.0/8", "unspecified (\"this network\")"},
    {"10.0.0.0/8", "private (RFC 1918)"},
    {"100.64.0.0/10", "shared address space (CGNAT, RFC 6598)"},
    {"127.0.0.0/8", "loopback"},
    {"169.254.169.254/32", "cloud metadata"},
    {"169.254.0.0/16", "link-local"},
    {"172.16.0.0/12", "private (RFC 1918)"},
    {"192.0.0.0/24", "IETF protocol assignments"},
    {"192.168.0.0/16", "private (RFC 1918)"},
    {"198.18.0.0/15", "benchmarking (RFC 2544)"},
    {"224.0.0.0/4", "multicast"},
    {"255.255.255.255/32", "broadcast"},
    {"240.0.0.0/4", "reserved"},
};
constexpr Range kV6[] = {
    {"::/128", "unspecified"},
    {"::1/128", "loopback"},
    {"fd00:ec2::254/128", "cloud metadata"},
    {"fc00::/7", "unique-local"},
    {"fe80::/10", "link-local"},
    {"fec0::/10", "site-local (deprecated)"},
    {"ff00::/8", "multicast"},
    {"100::/64", "discard-only"},
    {"2001::/23", "IETF protocol assignments"},
};

// The IPv4 address an IPv6 one carries: ::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::a.b.c.d (NAT64),
// 2002:AABB:CCDD::/48 (6to4).
bool embedded_v4(const Ip& ip, Ip* v4) {
  const auto& b = ip.bytes;
  auto zeros = [&](size_t from, size_t to) { return std::all_of(b.begin() + from, b.begin() + to, [](uint8_t x) { return x == 0; }); };
  size_t at = 16;
  if (zeros(0, 10) && b[10] == 0xff && b[11] == 0xff) at = 12;
  else if (zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && b[15] == 1)) at = 12;
  else if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zeros(4, 12)) at = 12;
  else if (b[0] == 0x20 && b[1] == 0x02) at = 2;
  if (at == 16) return false;
  v4->family = AF_INET;
  v4->bytes = {};
  std::copy(b.begin() + at, b.begin() + at + 4, v4->bytes.begin());
  return true;
}

bool in_any(const Ip& ip, const std::vector<Cidr>& v) {
  return std::ranges::any_of(v, [&](const Cidr& c) { return c.contains(ip); });
}

}  // namespace

Result<Ip> parse_ip(std::string_view text) {
  std::string t(text);
  Ip ip;
  if (::inet_pton(AF_INET, t.c_str(), ip.bytes.data()) == 1) return ip;
  ip.family = AF_INET6;
  if (::inet_pton(AF_INET6, t.c_str(), ip.bytes.data()) == 1) return ip;
  return fail("\"" + t + "\" is not an IP address");
}

std::string ip_text(const Ip& ip) {
  char buf[INET6_ADDRSTRLEN] = "";
  ::inet_ntop(ip.family, ip.bytes.data(), buf, sizeof buf);
  return buf;
}

sockaddr_storage sockaddr_of(const Ip& ip, uint16_t port, socklen_t* len) {
  sockaddr_storage ss{};
  if (ip.family == AF_INET) {
    auto* s = reinterpret_cast<sockaddr_in*>(&ss);
    s->sin_family = AF_INET;
    s->sin_port = htons(port);
    std::memcpy(&s->sin_addr, ip.bytes.data(), 4);
    *len = sizeof *s;
  } else {
    auto* s = reinterpret_cast<sockaddr_in6*>(&ss);
    s->sin6_family = AF_INET6;
    s->sin6_port = htons(port);
    std::memcpy(&s->sin6_addr, ip.bytes.data(), 16);
    *len = sizeof *s;
  }
  return ss;
}

bool Cidr::contains(const Ip& ip) const {
  if (ip.family != net.family) return false;
  unsigned full = bits / 8, rest = bits % 8;
  if (!std::equal(ip.bytes.begin(), ip.bytes.begin() + full, net.bytes.begin())) return false;
  if (!rest) return true;
  uint8_t mask = uint8_t(0xff << (8 - rest));
  return (ip.bytes[full] & mask) == (net.bytes[full] & mask);
}

Result<Cidr> parse_cidr(std::string_view text) {
  size_t slash = text.find('/');
  Cidr c;
  c.net = TRY(parse_ip(text.substr(0, slash)));
  unsigned max = c.net.family == AF_INET ? 32 : 128;
  c.bits = max;
  if (slash != std::string_view::npos) {
    std::string_view b = text.substr(slash + 1);
    auto [p, ec] = std::from_chars(b.data(), b.data() + b.size(), c.bits);
    if (b.empty() || ec != std::errc() || p != b.data() + b.size() || c.bits > max)
      return fail("\"" + std::string(text) + "\": the prefix length is not 0.." + std::to_string(max));
  }
  return c;
}

std::string special_kind(const Ip& ip) {
  Ip v4;
  if (ip.family == AF_INET6 && embedded_v4(ip, &v4)) {
    std::string k = special_kind(v4);
    return k.empty() ? "" : "IPv6 carrying an IPv4 address that is " + k;
  }
  for (const Range& r : ip.family == AF_INET ? std::span<const Range>(kV4) : std::span<const Range>(kV6))
    if (parse_cidr(r.cidr)->contains(ip)) return r.kind;
  return "";
}

std::string AddressRules::refusal(const Ip& ip, bool literal_request) const {
  if (literal_request && std::ranges::find(literal, ip) != literal.end()) return "";
  Ip inner = ip;
  if (ip.family == AF_INET6) embedded_v4(ip, &inner);
  if (in_any(ip, own) || in_any(inner, own)) return ip_text(ip) + " is an address of this host";
  if (std::string k = special_kind(ip); !k.empty() && !in_any(ip, allow)) return ip_text(ip) + " is " + k;
  return "";
}

Result<std::vector<Cidr>> own_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return sys_error("getifaddrs");
  std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> hold(list, &::freeifaddrs);
  std::vector<Cidr> out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    Cidr c;
    if (i->ifa_addr->sa_family == AF_INET) {
      std::memcpy(c.net.bytes.data(), &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, 4);
      c.bits = 32;
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      c.net.family = AF_INET6;
      std::memcpy(c.net.bytes.data(), &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, 16);
      c.bits = 128;
    } else {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace sh::egress
