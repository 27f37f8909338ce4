#include "spec-mapping/egress_host.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace sh::policy {
namespace {

bool ldh(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// An IPv4 or IPv6 literal in the one spelling inet_ntop gives it; "" if `s` is not one.
// A destination only: no unspecified, multicast or broadcast address, and an IPv4 address is
// written as IPv4 (::ffff:a.b.c.d would be a second spelling of a.b.c.d).
std::string address_problem(const std::string& s, bool& is_addr) {
  std::array<unsigned char, 16> b{};
  char back[INET6_ADDRSTRLEN] = {};
  is_addr = true;
  if (::inet_pton(AF_INET, s.c_str(), b.data()) == 1) {
    ::inet_ntop(AF_INET, b.data(), back, sizeof back);
    if (s != back) return "write the IPv4 address as " + std::string(back);
    if (b[0] == 0 || b[0] >= 224) return "not a unicast destination address";
    return "";
  }
  if (::inet_pton(AF_INET6, s.c_str(), b.data()) == 1) {
    ::inet_ntop(AF_INET6, b.data(), back, sizeof back);
    if (s != back) return "write the IPv6 address as " + std::string(back) + " (RFC 5952, no brackets)";
    bool zero10 = std::all_of(b.begin(), b.begin() + 10, [](unsigned char x) { return x == 0; });
    bool tail_small = std::all_of(b.begin() + 12, b.begin() + 15, [](unsigned char x) { return x == 0; }) && b[15] <= 1;
    if (zero10 && ((b[10] == 0xff && b[11] == 0xff) || (b[10] == 0 && b[11] == 0 && !tail_small)))
      return "an IPv4 address in IPv6 form: write it as IPv4";
    if ((zero10 && b[10] == 0 && b[11] == 0 && b[15] == 0 && tail_small) || b[0] == 0xff)
      return "not a unicast destination address";
    return "";
  }
  is_addr = false;
  return "";
}

std::string name_problem(std::string_view name, bool wildcard) {
  if (name.empty()) return "empty";
  if (name.size() > 253) return "longer than 253 characters";
  if (name.back() == '.') return "no trailing dot (write the name without it)";
  if (std::ranges::any_of(name, [](char c) { return c >= 'A' && c <= 'Z'; })) return "host names are written in lower case";
  if (name.find('*') != std::string_view::npos) return "the only wildcard is one leading \"*.\" label";
  size_t labels = 0;
  std::string_view last;
  for (size_t pos = 0; pos <= name.size();) {
    size_t end = std::min(name.find('.', pos), name.size());
    std::string_view label = name.substr(pos, end - pos);
    if (label.empty()) return "an empty label";
    if (label.size() > 63) return "a label longer than 63 characters";
    if (!std::ranges::all_of(label, ldh))
      return "\"" + std::string(label) + "\" is not a label of a-z, 0-9 and - (an IDN in its xn-- form)";
    if (label.front() == '-' || label.back() == '-') return "\"" + std::string(label) + "\": a label neither starts nor ends with -";
    ++labels;
    last = label;
    pos = end + 1;
  }
  if (std::ranges::all_of(last, digit)) return "not a name (its last label is all digits) nor an IP address";
  if (labels < 2)
    return wildcard ? "a wildcard needs a name of at least two labels after \"*.\""
                    : "a single label is resolved through search domains: give the full name";
  return "";
}

}  // namespace

bool is_wildcard(std::string_view host) { return host.starts_with("*."); }

bool is_address(std::string_view host) {
  bool addr = false;
  return address_problem(std::string(host), addr).empty() && addr;
}

std::string host_problem(std::string_view host) {
  bool addr = false;
  std::string why = address_problem(std::string(host), addr);
  if (addr) return why;
  return is_wildcard(host) ? name_problem(host.substr(2), true) : name_problem(host, false);
}

bool host_matches(std::string_view pattern, std::string_view name) {
  if (!is_wildcard(pattern)) return pattern == name;
  std::string_view base = pattern.substr(1);  // ".a.com"
  if (is_address(name) || name.size() <= base.size() || !name.ends_with(base)) return false;
  return name.substr(0, name.size() - base.size()).find('.') == std::string_view::npos;  // one label
}

std::optional<std::string> meet_host(const std::string& a, const std::string& b) {
  if (a == b) return a;
  if (host_matches(a, b)) return b;
  if (host_matches(b, a)) return a;
  return std::nullopt;  // two different wildcards of one label each share no name
}

}  // namespace sh::policy
