#include "spec-mapping/secrets.hpp"

#include <algorithm>
#include <set>

namespace sh::policy {

bool valid_secrets_name(std::string_view v) {
  if (v.empty() || v.size() > 253) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == ':';
  });
}

namespace {

Result<std::vector<std::string>> name_list(const json::Value& v, std::string_view key) {
  auto list = TRY(v.need(key));
  TRYV(list.expect_array());
  std::set<std::string> out;
  TRYV(list.each_item([&](size_t i, const json::Value& item) -> Result<void> {
    std::string s = TRY(item.as_string());
    if (!valid_secrets_name(s)) return fail(list.item_path(i) + ": \"" + s + "\" is not 1-253 characters of [A-Za-z0-9._:-]");
    out.insert(std::move(s));
    return {};
  }));
  if (out.empty()) return fail(list.path() + ": must name at least one");
  return std::vector<std::string>(out.begin(), out.end());
}

std::vector<std::string> common(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return "[" + s + "]";
}

}  // namespace

Result<SecretsPolicy> parse_secrets(const json::Value& v) {
  TRYV(v.expect_object());
  TRYV(v.only_keys({"vaults", "hosts", "operations", "ttl", "allowWeakerMemory", "workloadMayAsk"}));
  SecretsPolicy s;
  s.vaults = TRY(name_list(v, "vaults"));
  s.hosts = TRY(name_list(v, "hosts"));
  s.operations = TRY(name_list(v, "operations"));
  s.ttl = static_cast<uint64_t>(TRY(TRY(v.need("ttl")).as_int_in(1, 30 * 24 * 3600)));
  TRYV(v.opt("allowWeakerMemory", s.allow_weaker_memory));
  TRYV(v.opt("workloadMayAsk", s.workload_may_ask));
  return s;
}

SecretsPolicy intersect_secrets(const SecretsPolicy& a, const SecretsPolicy& b) {
  return {common(a.vaults, b.vaults), common(a.hosts, b.hosts), common(a.operations, b.operations),
          std::min(a.ttl, b.ttl), a.allow_weaker_memory && b.allow_weaker_memory,
          a.workload_may_ask && b.workload_may_ask};
}

void write_secrets(json::Writer& w, const SecretsPolicy& s) {
  w.begin_object().kv("vaults", s.vaults).kv("hosts", s.hosts).kv("operations", s.operations);
  w.key("ttl").uinteger(s.ttl);
  if (s.allow_weaker_memory) w.kv("allowWeakerMemory", true);  // absent: false (and the policy hash unchanged)
  if (s.workload_may_ask) w.kv("workloadMayAsk", true);
  w.end_object();
}

std::string describe_secrets(const SecretsPolicy& s) {
  return "secrets: KMS sidecar (other uid, empty namespaces, frozen between calls, keys in memfd_secret" +
         std::string(s.allow_weaker_memory ? ", or where the kernel lacks it the WEAKER mode the policy allows: "
                                             "mlocked anonymous memory root can read"
                                           : "; refuses to start where the kernel lacks it") +
         "): vaults " + joined(s.vaults) + ", hosts " + joined(s.hosts) + ", operations " + joined(s.operations) +
         ", ttl <= " + std::to_string(s.ttl) + " s, " +
         (s.workload_may_ask ? "asked by the workload itself (workloadMayAsk)"
                             : "asked only by the egress door (the workload's own requests refused: no workloadMayAsk)") +
         "; the master keys never enter the container";
}

}  // namespace sh::policy
