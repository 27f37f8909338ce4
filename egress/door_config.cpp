#include "egress/door_config.hpp"

#include <algorithm>

#include "base/json.hpp"

namespace sh::egress {
namespace {

using json::Value;

Result<std::string> absolute(const Value& v) {
  std::string p = TRY(v.as_string());
  if (p.empty() || p[0] != '/') return fail(v.path() + ": an absolute path");
  return p;
}

Result<std::vector<Cidr>> cidrs(const Value& v) {
  TRYV(v.expect_array());
  std::vector<Cidr> out;
  TRYV(v.each_item([&](size_t, const Value& it) -> Result<void> {
    std::string s = TRY(it.as_string());
    auto c = parse_cidr(s);
    if (!c) return fail(it.path() + ": " + c.error().msg);
    out.push_back(*c);
    return {};
  }));
  return out;
}

}  // namespace

Result<DoorConfig> parse_door_config(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  Value r = doc.root();
  TRYV(r.expect_object());
  TRYV(r.only_keys({"container", "egress", "ca", "upstreamTrust", "hosts", "allowAddresses", "denyAddresses",
                    "credentials"}));
  DoorConfig c;
  c.container = TRY(TRY(r.need("container")).as_string());
  if (c.container.empty()) return fail(r.child_path("container") + ": empty");
  c.egress = TRY(policy::parse_egress(TRY(r.need("egress"))));
  Value ca = TRY(r.need("ca"));
  TRYV(ca.expect_object());
  TRYV(ca.only_keys({"cert", "key"}));
  c.ca_cert = TRY(absolute(TRY(ca.need("cert"))));
  c.ca_key = TRY(absolute(TRY(ca.need("key"))));
  if (auto t = r.get("upstreamTrust")) c.upstream_trust = TRY(absolute(*t));
  if (auto h = r.get("hosts")) c.hosts = TRY(absolute(*h));
  if (auto a = r.get("allowAddresses")) c.allow = TRY(cidrs(*a));
  if (auto d = r.get("denyAddresses")) c.deny = TRY(cidrs(*d));
  bool needs = std::ranges::any_of(c.egress.rules, [](const policy::EgressRule& x) { return x.credential.has_value(); });
  if (auto s = r.get("credentials")) c.credentials = TRY(make_source(*s, c.container));
  else if (needs) return fail(r.child_path("credentials") + ": required: a rule adds a credential");
  return c;
}

}  // namespace sh::egress
