#include "spec-mapping/egress_map.hpp"

#include <algorithm>
#include <set>

namespace sh::policy {

void apply_egress_env(const EgressPolicy& e, oci::Process& proc) {
  std::vector<std::string> add;
  const std::string url = "http://127.0.0.1:" + std::to_string(kEgressProxyPort);
  for (const char* name : {"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"}) add.push_back(name + ("=" + url));
  std::set<std::string> placeholders;  // two rules may share one (parse refuses two vaults for one name)
  for (const auto& r : e.rules)
    if (r.credential && !r.credential->env.empty()) placeholders.insert(placeholder_env(*r.credential));
  add.insert(add.end(), placeholders.begin(), placeholders.end());
  std::erase_if(proc.env, [&](const std::string& v) {
    std::string name = v.substr(0, v.find('='));
    for (const char* around : {"ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"})
      if (name == around) return true;
    return std::ranges::any_of(add, [&](const std::string& a) { return a.starts_with(name + "="); });
  });
  proc.env.insert(proc.env.end(), add.begin(), add.end());
}

}  // namespace sh::policy
