// A policy's `egress` section (docs/egress.md): the hosts the egress door (sharness-egress) may
// reach for the container, what it may send there, the credentials it adds, and the budgets. The
// pure half: parse, intersect, write, describe. egress_map.hpp says what it becomes in
// config.json; the door and its sidecar are the egress wing's (egress/).
//
//   "egress": {
//     "rules": [{"host": "api.github.com", "port": 443, "methods": ["GET", "POST"],
//                "pathPrefixes": ["/repos/acme"],
//                "credential": {"vault": "github", "inject": "bearer", "env": "GITHUB_TOKEN"}}],
//     "budgets": {"requests": 1000, "bytes": "64MiB", "requestsPerSecond": 10}
//   }
#pragma once
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"

namespace sh::policy {

// Where the door puts a credential: "Authorization: Bearer S", "Authorization: Basic
// base64(S)" (S being the vault's user:password pair), or S as the value of a named header.
enum class Inject { bearer, basic, header };
const char* inject_name(Inject i);

struct Credential {
  std::string vault;   // the KMS entry holding the secret (a secrets name)
  Inject inject = Inject::bearer;
  std::string header;  // Inject::header only: the header's name, lower case
  std::string env;     // "": none; else the workload sees env=sharness:<vault>, a placeholder
  auto operator<=>(const Credential&) const = default;
};

struct EgressRule {
  std::string host;    // egress_host.hpp
  uint16_t port = 443;
  std::optional<std::vector<std::string>> methods;        // sorted; absent: any of kMethods
  std::optional<std::vector<std::string>> path_prefixes;  // sorted, none beneath another; absent: every path
  std::optional<Credential> credential;
  auto operator<=>(const EgressRule&) const = default;
};

struct EgressBudgets {  // over the container's life; absent: no budget
  std::optional<uint64_t> requests, bytes, requests_per_second;
  bool operator==(const EgressBudgets&) const = default;
};

struct EgressPolicy {
  std::vector<EgressRule> rules;  // sorted, unique
  EgressBudgets budgets;
  bool operator==(const EgressPolicy&) const = default;
};

// The methods a rule may name; CONNECT (a tunnel the door cannot see into) and TRACE (it
// echoes the request, injected credential included) are refused.
inline const std::vector<std::string> kMethods = {"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"};

// Segments, not characters: "/repos/acme" holds "/repos/acme" and "/repos/acme/x", never
// "/repos/acme-evil" (the door matches a request's decoded, normalised path this way).
bool within_prefix(const std::string& prefix, const std::string& path);

// Strict: every bad value is an error naming its JSON path. Two rules that can match one
// request may not carry different credentials (the door could not tell which to add).
Result<EgressPolicy> parse_egress(const json::Value& v);

// The rule allowing exactly what both allow, or none: the hosts met (egress_host.hpp), the
// same port, methods and path prefixes intersected; the credential kept only when both carry
// the same one (a client never ties a credential to a host the floor does not tie it to).
std::optional<EgressRule> meet_rule(const EgressRule& a, const EgressRule& b);
// Every pair of rules met; the smaller of each budget (absent: none).
EgressPolicy intersect_egress(const EgressPolicy& a, const EgressPolicy& b);
// Does `outer` allow everything `inner` does (credential included)?
bool rule_within(const EgressRule& inner, const EgressRule& outer);

void write_egress(json::Writer& w, const EgressPolicy& e);
// "api.github.com:443 GET,POST /repos/acme (credential github as bearer, env GITHUB_TOKEN)"
std::string describe_rule(const EgressRule& r);
std::string describe_egress(const EgressPolicy& e);

// "GITHUB_TOKEN=sharness:github"
inline std::string placeholder_env(const Credential& c) { return c.env + "=sharness:" + c.vault; }

}  // namespace sh::policy
