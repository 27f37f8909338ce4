// Where the door may connect (docs/egress.md, "Addresses"): an address a name resolved to, or
// one a rule names, is refused when it is special (loopback, link-local, private, unique-local,
// CGNAT, multicast, unspecified, broadcast, cloud metadata, this host's own), unless a rule
// names it literally or the operator lists it (`allowAddresses`). IPv4 and IPv6 alike; an IPv4
// address carried in IPv6 (mapped, compatible, NAT64, 6to4) is judged as the IPv4 it carries.
#pragma once
#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh::egress {

struct Ip {
  int family = AF_INET;              // AF_INET or AF_INET6
  std::array<uint8_t, 16> bytes{};   // IPv4 in the first 4
  bool operator==(const Ip&) const = default;
};

Result<Ip> parse_ip(std::string_view text);  // one address, as inet_pton reads it
std::string ip_text(const Ip& ip);           // inet_ntop's form
sockaddr_storage sockaddr_of(const Ip& ip, uint16_t port, socklen_t* len);

struct Cidr {
  Ip net;
  unsigned bits = 0;
  bool contains(const Ip& ip) const;
};
// "10.0.0.0/8", "fd00::/8", or one address (all its bits).
Result<Cidr> parse_cidr(std::string_view text);

// Why the address is special ("private (RFC 1918)", "cloud metadata", ...), or "" for an
// ordinary global address. This host's own addresses are not known here: AddressRules has them.
std::string special_kind(const Ip& ip);

struct AddressRules {
  std::vector<Ip> literal;    // addresses the rules name
  std::vector<Cidr> allow;    // allowAddresses
  std::vector<Cidr> own;      // this host's: the namespace's addresses and denyAddresses
  // Why the door may not connect to `ip`, or "". `literal`: the request named the address
  // itself (a rule naming it lets it through); a name never resolves into a special address,
  // listed by a rule or not, unless the operator allows it.
  std::string refusal(const Ip& ip, bool literal) const;
};

// The addresses of the calling process's network namespace (getifaddrs), as /128 and /32.
Result<std::vector<Cidr>> own_addresses();

}  // namespace sh::egress
