// Which rule lets a request out (docs/egress.md: "some rule allows it: its host, its port, its
// method and its path all match"), or the first check that refused it, for the log.
#pragma once
#include <expected>
#include <string>
#include <string_view>

#include "egress/target.hpp"
#include "spec-mapping/egress.hpp"

namespace sh::egress {

struct Denial {
  std::string check;   // "host", "method", "path", ... (docs/egress.md, "The door's interface")
  std::string reason;  // words for the log and the client
};

// Some rule for this host and port (a CONNECT is let in on that alone; each request inside is
// then decided in full).
bool host_listed(const policy::EgressPolicy& p, const Authority& a);

// The rule that allows the request: one with a credential when several do (the door adds a
// credential when a rule allowing the request names one; parse_egress refuses two that could
// name different ones). `path` is normal_path's.
std::expected<size_t, Denial> decide(const policy::EgressPolicy& p, const Authority& a, std::string_view method,
                                     std::string_view path);

}  // namespace sh::egress
