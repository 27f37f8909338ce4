#include "kms/protocol.hpp"

#include <algorithm>
#include <charconv>
#include <map>

namespace sh::kms {
namespace {

// Split "head\nk=v\n...\n\n" into the head and its fields; every key once, only `keys`.
Result<std::map<std::string, std::string, std::less<>>> fields(std::string_view text, std::string_view what,
                                                              size_t max, std::string_view head,
                                                              std::initializer_list<std::string_view> keys,
                                                              std::string* head_rest) {
  if (text.size() > max)
    return fail(std::string(what) + ": " + std::to_string(text.size()) + " bytes, more than " + std::to_string(max));
  if (text.size() < 2 || text.substr(text.size() - 2) != "\n\n")
    return fail(std::string(what) + ": not ended by an empty line");
  text.remove_suffix(1);
  std::map<std::string, std::string, std::less<>> out;
  bool first = true;
  size_t lineno = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    ++lineno;
    if (first) {
      first = false;
      if (line.substr(0, head.size()) != head || line.size() <= head.size() || line[head.size()] != ' ')
        return fail(std::string(what) + ": line 1: expected \"" + std::string(head) + " ...\"");
      *head_rest = std::string(line.substr(head.size() + 1));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return fail(std::string(what) + ": line " + std::to_string(lineno) + ": expected key=value");
    std::string_view k = line.substr(0, eq), v = line.substr(eq + 1);
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      return fail(std::string(what) + ": line " + std::to_string(lineno) + ": unknown field \"" + std::string(k) +
                  "\"");
    if (!out.emplace(std::string(k), std::string(v)).second)
      return fail(std::string(what) + ": field \"" + std::string(k) + "\" given twice");
  }
  if (first) return fail(std::string(what) + ": empty");
  return out;
}

Result<std::string> need(const std::map<std::string, std::string, std::less<>>& f, std::string_view what,
                         std::string_view k) {
  auto it = f.find(k);
  if (it == f.end()) return fail(std::string(what) + ": field \"" + std::string(k) + "\" missing");
  return it->second;
}

Result<uint64_t> number(std::string_view what, std::string_view field, std::string_view v) {
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || v.size() > 12 || ec != std::errc() || p != v.data() + v.size())
    return fail(std::string(what) + ": field \"" + std::string(field) + "\": not a decimal number");
  return n;
}

template <size_t N>
Result<void> hex_into(std::string_view what, std::string_view field, std::string_view v, std::array<uint8_t, N>& out) {
  auto b = TRY(from_hex(v, N, std::string(what) + ": field \"" + std::string(field) + "\""));
  std::copy(b.begin(), b.end(), out.begin());
  return {};
}

bool contains(const std::vector<std::string>& l, std::string_view v) {
  return std::find(l.begin(), l.end(), v) != l.end();
}

}  // namespace

Result<void> check_name(std::string_view field, std::string_view v) {
  if (v.empty() || v.size() > kMaxName)
    return fail("field \"" + std::string(field) + "\": length must be 1.." + std::to_string(kMaxName));
  for (char c : v) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == ':';
    if (!ok) {
      std::string shown = (c >= 0x21 && c < 0x7f) ? std::string(1, c) : "\\x" + to_hex({reinterpret_cast<const uint8_t*>(&c), 1});
      return fail("field \"" + std::string(field) + "\": character '" + shown + "' not allowed");
    }
  }
  return {};
}

Result<void> check_host_pattern(std::string_view field, std::string_view v) {
  return check_name(field, v.starts_with("*.") ? v.substr(2) : v);
}

std::string format_request(const Request& r) {
  if (r.kind == Kind::credential)
    return std::string(kVersionLine) + " credential\nvault=" + r.vault + "\nhost=" + r.host + "\npub=" + to_hex(r.pub) +
           "\n\n";
  return std::string(kVersionLine) + " derive\nvault=" + r.vault + "\nhost=" + r.host + "\nop=" + r.op +
         "\nttl=" + std::to_string(r.ttl) + "\npub=" + to_hex(r.pub) + "\n\n";
}

Result<Request> parse_request(std::string_view text) {
  std::string verb;
  auto f = TRY(fields(text, "request", kMaxRequest, kVersionLine, {"vault", "host", "op", "ttl", "pub"}, &verb));
  Request r;
  if (verb == "credential") {
    // Only these three: a derive field here is an error, as an unknown one is.
    for (auto k : {"op", "ttl"})
      if (f.contains(k)) return fail("request: field \"" + std::string(k) + "\" not in a credential request");
    r.kind = Kind::credential;
    r.vault = TRY(need(f, "request", "vault"));
    r.host = TRY(need(f, "request", "host"));
    TRYVC("request", check_name("vault", r.vault));
    TRYVC("request", check_host_pattern("host", r.host));
    TRYV(hex_into("request", "pub", TRY(need(f, "request", "pub")), r.pub));
    return r;
  }
  if (verb != "derive") return fail("request: unknown operation \"" + verb + "\" (\"derive\" or \"credential\")");
  r.vault = TRY(need(f, "request", "vault"));
  r.host = TRY(need(f, "request", "host"));
  r.op = TRY(need(f, "request", "op"));
  TRYVC("request", check_name("vault", r.vault));
  TRYVC("request", check_name("host", r.host));
  TRYVC("request", check_name("op", r.op));
  r.ttl = TRY(number("request", "ttl", TRY(need(f, "request", "ttl"))));
  if (r.ttl == 0) return fail("request: field \"ttl\": must be at least 1");
  TRYV(hex_into("request", "pub", TRY(need(f, "request", "pub")), r.pub));
  return r;
}

std::string format_response(const Response& r) {
  if (!r.ok) return std::string(kVersionLine) + " refused\nreason=" + r.reason + "\n\n";
  return std::string(kVersionLine) + " ok\nexpires=" + std::to_string(r.expires) + "\nepk=" + to_hex(r.sealed.epk) +
         "\nnonce=" + to_hex(r.sealed.nonce) + "\nct=" + to_hex(r.sealed.ct) + "\ntag=" + to_hex(r.sealed.tag) + "\n\n";
}

Result<Response> parse_response(std::string_view text) {
  std::string status;
  auto f = TRY(fields(text, "response", kMaxResponse, kVersionLine, {"reason", "expires", "epk", "nonce", "ct", "tag"}, &status));
  Response r;
  if (status == "refused") {
    r.reason = TRY(need(f, "response", "reason"));
    return r;
  }
  if (status != "ok") return fail("response: unknown status \"" + status + "\"");
  r.ok = true;
  r.expires = TRY(number("response", "expires", TRY(need(f, "response", "expires"))));
  TRYV(hex_into("response", "epk", TRY(need(f, "response", "epk")), r.sealed.epk));
  TRYV(hex_into("response", "nonce", TRY(need(f, "response", "nonce")), r.sealed.nonce));
  std::string ct = TRY(need(f, "response", "ct"));
  if (ct.empty() || ct.size() % 2 || ct.size() / 2 > kMaxSecretLen)
    return fail("response: field \"ct\": 1.." + std::to_string(kMaxSecretLen) + " bytes of hex");
  r.sealed.ct = TRY(from_hex(ct, ct.size() / 2, "response: field \"ct\""));
  TRYV(hex_into("response", "tag", TRY(need(f, "response", "tag")), r.sealed.tag));
  return r;
}

std::string response_aad(const Request& r, uint64_t expires) {
  if (r.kind == Kind::credential)  // never the AAD of a derive request: a reply opens for its kind only
    return std::string(kVersionLine) + " credential|" + r.vault + "|" + r.host + "|" + std::to_string(expires) + "|" +
           to_hex(r.pub);
  return std::string(kVersionLine) + "|" + r.vault + "|" + r.host + "|" + r.op + "|" + std::to_string(r.ttl) + "|" +
         std::to_string(expires) + "|" + to_hex(r.pub);
}

Result<void> check(const Allowlist& a, const Request& r) {
  if (r.kind != Kind::derive) return fail("not a derive request");
  if (!contains(a.vaults, r.vault)) return fail("vault \"" + r.vault + "\" is not allowed");
  if (!contains(a.hosts, r.host)) return fail("host \"" + r.host + "\" is not allowed");
  if (!contains(a.ops, r.op)) return fail("operation \"" + r.op + "\" is not allowed");
  if (r.ttl > a.max_ttl)
    return fail("ttl " + std::to_string(r.ttl) + "s is more than the allowed " + std::to_string(a.max_ttl) + "s");
  return {};
}

Result<void> check_credential(const std::vector<CredentialGrant>& grants, const Request& r) {
  if (r.kind != Kind::credential) return fail("not a credential request");
  for (const auto& g : grants)
    if (g.vault == r.vault && g.host == r.host) return {};
  return fail("credential \"" + r.vault + "\" is not tied to host \"" + r.host + "\" by an egress rule");
}

}  // namespace sh::kms
