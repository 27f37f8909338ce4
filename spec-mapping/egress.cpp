#include "spec-mapping/egress.hpp"

#include <algorithm>
#include <set>

#include "spec-mapping/egress_host.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

bool within_prefix(const std::string& prefix, const std::string& path) {
  return path == prefix || (path.starts_with(prefix) && path[prefix.size()] == '/');
}

const char* inject_name(Inject i) {
  static constexpr const char* names[] = {"bearer", "basic", "header"};  // in the enum's order
  return names[static_cast<int>(i)];
}

namespace {

using json::Value;

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Listing every method is not listing any: one model for both, so that equality is exact.
EgressRule normal(EgressRule r) {
  if (r.methods == kMethods) r.methods.reset();
  return r;
}

// An empty list would read as "nothing" where leaving the key out means "any": refused.
Result<void> non_empty(const Value& v, const char* what) {
  TRYV(v.expect_array());
  if (v.size() == 0) return fail(v.path() + ": must " + what);
  return {};
}

Result<std::vector<std::string>> parse_methods(const Value& v) {
  TRYV(non_empty(v, "name at least one method (leave it out for any)"));
  std::set<std::string> out;
  TRYV(v.each_item([&](size_t, const Value& it) -> Result<void> {
    std::string m = TRY(it.as_string());
    if (m == "CONNECT") return fail(it.path() + ": CONNECT would open a tunnel the door cannot inspect");
    if (m == "TRACE") return fail(it.path() + ": TRACE echoes the request back, injected credential included");
    if (std::ranges::find(kMethods, m) == kMethods.end())
      return fail(it.path() + ": unknown method \"" + m + "\" (methods are case-sensitive: " + joined(kMethods, ", ") + ")");
    if (!out.insert(m).second) return fail(it.path() + ": duplicate \"" + m + "\"");
    return {};
  }));
  return std::vector<std::string>(out.begin(), out.end());
}

// A prefix has one spelling: no escapes (the door compares the decoded, normalised path), no
// empty, "." or ".." segment, no query or fragment, no trailing slash.
std::string prefix_problem(const std::string& p) {
  if (p.empty() || p[0] != '/') return "a path prefix starts with /";
  if (p == "/") return "\"/\" is every path: leave pathPrefixes out";
  if (p.size() > 1024) return "longer than 1024 characters";
  static const std::string_view ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/";
  if (p.find_first_not_of(ok) != std::string::npos)
    return "only unescaped path characters (no %, ?, # or space): the door matches the decoded path";
  if (p.back() == '/') return "no trailing / (a prefix matches whole segments: /a holds /a/b)";
  for (size_t pos = 1; pos <= p.size();) {
    size_t end = std::min(p.find('/', pos), p.size());
    std::string_view seg(p.data() + pos, end - pos);
    if (seg.empty() || seg == "." || seg == "..") return "an empty, \".\" or \"..\" segment";
    pos = end + 1;
  }
  return "";
}

Result<std::vector<std::string>> parse_prefixes(const Value& v) {
  TRYV(non_empty(v, "name at least one prefix (leave it out for every path)"));
  std::vector<std::string> out;
  TRYV(v.each_item([&](size_t, const Value& it) -> Result<void> {
    std::string p = TRY(it.as_string());
    if (auto why = prefix_problem(p); !why.empty()) return fail(it.path() + ": \"" + p + "\": " + why);
    for (const auto& o : out)
      if (within_prefix(o, p) || within_prefix(p, o))
        return fail(it.path() + ": \"" + p + "\" and \"" + o + "\": one holds the other, list only the shorter");
    out.push_back(std::move(p));
    return {};
  }));
  std::ranges::sort(out);
  return out;
}

bool token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

Result<std::string> parse_header(const Value& v) {
  std::string h = TRY(v.as_string());
  std::ranges::transform(h, h.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; });
  if (h.empty() || h.size() > 64 || !std::ranges::all_of(h, token_char))
    return fail(v.path() + ": \"" + h + "\" is not an HTTP header name");
  // What frames or routes the request is the door's, never a credential's place.
  for (std::string_view no : {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer",
                              "upgrade", "expect"})
    if (h == no) return fail(v.path() + ": \"" + h + "\" frames or routes the request; a credential cannot go there");
  if (h.starts_with("proxy-")) return fail(v.path() + ": \"" + h + "\" is for the proxy, not the upstream");
  return h;
}

Result<std::string> parse_env(const Value& v) {
  std::string e = TRY(v.as_string());
  bool ok = !e.empty() && e.size() <= 128 && !(e[0] >= '0' && e[0] <= '9') && std::ranges::all_of(e, [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!ok) return fail(v.path() + ": \"" + e + "\" is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
  std::string up = e;
  std::ranges::transform(up, up.begin(), [](char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; });
  // The runtime's and the door's own variables, and those that change what the loader runs.
  for (std::string_view no : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
                              "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "CURL_CA_BUNDLE", "PATH", "HOME"})
    if (up == no) return fail(v.path() + ": \"" + e + "\" is set by the runtime or the door");
  if (up.starts_with("SHARNESS_") || up.starts_with("LD_")) return fail(v.path() + ": \"" + e + "\" is reserved");
  return e;
}

Result<Credential> parse_credential(const Value& v) {
  TRYV(v.expect_object());
  TRYV(v.only_keys({"vault", "inject", "header", "env"}));
  Credential c;
  auto vault = TRY(v.need("vault"));
  c.vault = TRY(vault.as_string());
  if (!valid_secrets_name(c.vault))
    return fail(vault.path() + ": \"" + c.vault + "\" is not 1-253 characters of [A-Za-z0-9._:-]");
  auto inj = TRY(v.need("inject"));
  std::string how = TRY(inj.as_string());
  auto kinds = {Inject::bearer, Inject::basic, Inject::header};
  auto kind = std::ranges::find(kinds, how, inject_name);
  if (kind == kinds.end()) return fail(inj.path() + ": expected \"bearer\", \"basic\" or \"header\", got \"" + how + "\"");
  c.inject = *kind;
  auto header = v.get("header");
  if (c.inject == Inject::header && !header) return fail(v.child_path("header") + ": required with \"inject\": \"header\"");
  if (c.inject != Inject::header && header)
    return fail(header->path() + ": only with \"inject\": \"header\" (" + how + " goes in Authorization)");
  if (header) c.header = TRY(parse_header(*header));
  if (auto e = v.get("env")) c.env = TRY(parse_env(*e));
  return c;
}

Result<EgressRule> parse_rule(const Value& v) {
  TRYV(v.expect_object());
  TRYV(v.only_keys({"host", "port", "methods", "pathPrefixes", "credential"}));
  EgressRule r;
  auto h = TRY(v.need("host"));
  r.host = TRY(h.as_string());
  if (auto why = host_problem(r.host); !why.empty()) return fail(h.path() + ": \"" + r.host + "\": " + why);
  if (auto p = v.get("port")) r.port = uint16_t(TRY(p->as_int_in(1, 65535)));
  if (auto m = v.get("methods")) r.methods = TRY(parse_methods(*m));
  if (auto p = v.get("pathPrefixes")) r.path_prefixes = TRY(parse_prefixes(*p));
  if (auto c = v.get("credential")) r.credential = TRY(parse_credential(*c));
  return normal(std::move(r));
}

Result<EgressBudgets> parse_budgets(const Value& v) {
  TRYV(v.expect_object());
  TRYV(v.only_keys({"requests", "bytes", "requestsPerSecond"}));
  if (v.size() == 0) return fail(v.path() + ": must set requests, bytes or requestsPerSecond (leave it out for none)");
  EgressBudgets b;
  if (auto r = v.get("requests")) b.requests = uint64_t(TRY(r->as_int_in(1, 1000000000000)));
  if (auto s = v.get("bytes")) b.bytes = TRY(parse_size(*s, 1, 1ull << 40));
  if (auto r = v.get("requestsPerSecond")) b.requests_per_second = uint64_t(TRY(r->as_int_in(1, 100000)));
  return b;
}

template <class T>
std::optional<T> min_opt(const std::optional<T>& a, const std::optional<T>& b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

}  // namespace

Result<EgressPolicy> parse_egress(const Value& v) {
  TRYV(v.expect_object());
  TRYV(v.only_keys({"rules", "budgets"}));
  EgressPolicy e;
  auto rules = TRY(v.need("rules"));
  TRYV(non_empty(rules, "list at least one rule (leave egress out for none)"));
  TRYV(rules.each_item([&](size_t i, const Value& it) -> Result<void> {
    EgressRule r = TRY(parse_rule(it));
    for (size_t j = 0; j < e.rules.size(); ++j) {  // document order until the end
      const EgressRule& o = e.rules[j];
      std::string other = "rules[" + std::to_string(j) + "]";
      if (o == r) return fail(rules.item_path(i) + ": the same rule as " + other);
      if (r.credential && o.credential && *r.credential != *o.credential && meet_rule(r, o))
        return fail(it.child_path("credential") + ": " + other + " can match the same requests with another credential "
                    "(vault " + o.credential->vault + "): the door could not tell which to add");
      if (r.credential && o.credential && !r.credential->env.empty() && r.credential->env == o.credential->env &&
          r.credential->vault != o.credential->vault)
        return fail(it.child_path("credential.env") + ": " + r.credential->env + " is already the placeholder of vault " +
                    o.credential->vault + " (" + other + ")");
    }
    e.rules.push_back(std::move(r));
    return {};
  }));
  std::ranges::sort(e.rules);
  if (auto b = v.get("budgets")) e.budgets = TRY(parse_budgets(*b));
  return e;
}

std::optional<EgressRule> meet_rule(const EgressRule& a, const EgressRule& b) {
  if (a.port != b.port) return std::nullopt;
  EgressRule out;
  out.port = a.port;
  auto host = meet_host(a.host, b.host);
  if (!host) return std::nullopt;
  out.host = *host;
  if (a.methods && b.methods) {
    out.methods.emplace();
    std::ranges::set_intersection(*a.methods, *b.methods, std::back_inserter(*out.methods));
    if (out.methods->empty()) return std::nullopt;
  } else {
    out.methods = a.methods ? a.methods : b.methods;
  }
  if (a.path_prefixes && b.path_prefixes) {
    // The deeper of each nested pair; both sides list no prefix beneath another of their own,
    // so neither does the result.
    std::set<std::string> kept;
    for (const auto& x : *a.path_prefixes)
      for (const auto& y : *b.path_prefixes)
        if (within_prefix(x, y)) kept.insert(y);
        else if (within_prefix(y, x)) kept.insert(x);
    if (kept.empty()) return std::nullopt;
    out.path_prefixes = std::vector<std::string>(kept.begin(), kept.end());
  } else {
    out.path_prefixes = a.path_prefixes ? a.path_prefixes : b.path_prefixes;
  }
  if (a.credential == b.credential) out.credential = a.credential;
  return normal(std::move(out));
}

EgressPolicy intersect_egress(const EgressPolicy& a, const EgressPolicy& b) {
  std::set<EgressRule> rules;
  for (const auto& x : a.rules)
    for (const auto& y : b.rules)
      if (auto m = meet_rule(x, y)) rules.insert(std::move(*m));
  EgressBudgets budgets{min_opt(a.budgets.requests, b.budgets.requests), min_opt(a.budgets.bytes, b.budgets.bytes),
                        min_opt(a.budgets.requests_per_second, b.budgets.requests_per_second)};
  return {std::vector<EgressRule>(rules.begin(), rules.end()), budgets};
}

bool rule_within(const EgressRule& inner, const EgressRule& outer) {
  auto m = meet_rule(outer, inner);
  return m && *m == inner;
}

void write_egress(json::Writer& w, const EgressPolicy& e) {
  w.begin_object().key("rules").begin_array();
  for (const auto& r : e.rules) {
    w.begin_object().kv("host", r.host).key("port").uinteger(r.port);
    if (r.methods) w.kv("methods", *r.methods);
    if (r.path_prefixes) w.kv("pathPrefixes", *r.path_prefixes);
    if (const auto& c = r.credential) {
      w.key("credential").begin_object().kv("vault", c->vault).kv("inject", inject_name(c->inject));
      if (!c->header.empty()) w.kv("header", c->header);
      if (!c->env.empty()) w.kv("env", c->env);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  const EgressBudgets& b = e.budgets;
  if (b.requests || b.bytes || b.requests_per_second) {
    w.key("budgets").begin_object();
    if (b.requests) w.key("requests").uinteger(*b.requests);
    if (b.bytes) w.key("bytes").uinteger(*b.bytes);
    if (b.requests_per_second) w.key("requestsPerSecond").uinteger(*b.requests_per_second);
    w.end_object();
  }
  w.end_object();
}

std::string describe_rule(const EgressRule& r) {
  std::string s = (r.host.find(':') != std::string::npos ? "[" + r.host + "]" : r.host) + ":" + std::to_string(r.port);
  s += " " + (r.methods ? joined(*r.methods, ",") : std::string("any method"));
  s += " " + (r.path_prefixes ? joined(*r.path_prefixes, " ") : std::string("any path"));
  if (const auto& c = r.credential) {
    s += std::string(" (credential ") + c->vault + " as " + inject_name(c->inject);
    if (c->inject == Inject::header) s += " " + c->header;
    if (!c->env.empty()) s += ", placeholder " + placeholder_env(*c);
    s += ")";
  }
  return s;
}

std::string describe_egress(const EgressPolicy& e) {
  std::vector<std::string> rules, budgets;
  for (const auto& r : e.rules) rules.push_back(describe_rule(r));
  if (e.budgets.requests) budgets.push_back(std::to_string(*e.budgets.requests) + " requests");
  if (e.budgets.bytes) budgets.push_back(format_size(*e.budgets.bytes));
  if (e.budgets.requests_per_second) budgets.push_back(std::to_string(*e.budgets.requests_per_second) + " requests/s");
  return "egress door: the only way out, to " + std::to_string(e.rules.size()) + " rule(s): " +
         joined(rules, "; ") +
         (budgets.empty() ? std::string("; no budget") : "; budget " + joined(budgets, ", "));
}

}  // namespace sh::policy
