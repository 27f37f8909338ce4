#include "egress/decide.hpp"

#include <algorithm>
#include <optional>

#include "spec-mapping/egress_host.hpp"

namespace sh::egress {
namespace {

bool host_ok(const policy::EgressRule& r, const Authority& a) {
  return r.port == a.port && policy::host_matches(r.host, a.host);
}

bool method_ok(const policy::EgressRule& r, std::string_view m) {
  const auto& ms = r.methods ? *r.methods : policy::kMethods;
  return std::ranges::find(ms, m) != ms.end();
}

bool path_ok(const policy::EgressRule& r, std::string_view path) {
  if (!r.path_prefixes) return true;
  return std::ranges::any_of(*r.path_prefixes, [&](const std::string& p) { return policy::within_prefix(p, std::string(path)); });
}

}  // namespace

bool host_listed(const policy::EgressPolicy& p, const Authority& a) {
  return std::ranges::any_of(p.rules, [&](const policy::EgressRule& r) { return host_ok(r, a); });
}

std::expected<size_t, Denial> decide(const policy::EgressPolicy& p, const Authority& a, std::string_view method,
                                     std::string_view path) {
  std::string where = a.host + ":" + std::to_string(a.port);
  // The furthest check any rule passed names the refusal: a rule for the host that refuses the
  // method says "method", one that takes the method but not the path says "path".
  int best = 0;
  std::optional<size_t> pick;
  for (size_t i = 0; i < p.rules.size(); ++i) {
    const auto& r = p.rules[i];
    int got = !host_ok(r, a) ? 0 : !method_ok(r, method) ? 1 : !path_ok(r, path) ? 2 : 3;
    best = std::max(best, got);
    if (got == 3 && (!pick || (r.credential && !p.rules[*pick].credential))) pick = i;
  }
  if (pick) return *pick;
  if (best == 0) return std::unexpected(Denial{"host", "no rule lists " + where});
  if (best == 1) return std::unexpected(Denial{"method", "no rule for " + where + " allows " + std::string(method)});
  return std::unexpected(Denial{"path", "no rule for " + where + " allows " + std::string(method) + " " + std::string(path)});
}

}  // namespace sh::egress
