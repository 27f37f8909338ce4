#include "runtime/lifecycle/runtime_config.hpp"

#include <sys/stat.h>

#include "base/file.hpp"
#include "base/json.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/no_looser.hpp"

namespace sh::lifecycle {

namespace {
constexpr const char* kAnnotation = "org.sharness.policy";

bool is_plain_name(const std::string& n) {
  if (n.empty() || n.size() > 255 || n == "." || n == "..") return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
          c == '.'))
      return false;
  return true;
}
// "clientPolicies": {"NAME": {"mayAdd": ["role", "edges", "accepts", "secrets", "egress"]}, ...}
Result<std::map<std::string, policy::Grants>> parse_client_policies(const json::Value& v) {
  TRYV(v.expect_object());
  std::map<std::string, policy::Grants> out;
  TRYV(v.each_member([&](std::string_view name, const json::Value& entry) -> Result<void> {
    if (!is_plain_name(std::string(name)) || name.ends_with(".json"))
      return fail(entry.path() + ": not a policy name (the name of NAME.json in policyDirs, without .json)");
    TRYV(entry.only_keys({"mayAdd"}));
    policy::Grants g;
    if (auto add = entry.get("mayAdd"))
      TRYV(add->each_item([&](size_t, const json::Value& it) -> Result<void> {
        std::string s = TRY(it.as_string());
        bool* flag = s == "role" ? &g.mesh.role : s == "edges" ? &g.mesh.edges : s == "accepts" ? &g.mesh.accepts
                   : s == "secrets" ? &g.secrets : s == "egress" ? &g.egress : nullptr;
        if (!flag)
          return fail(it.path() + ": \"" + s + "\" is not a section a client policy may add (role, edges, accepts, secrets, egress)");
        *flag = true;
        return {};
      }));
    out.emplace(std::string(name), g);
    return {};
  }));
  return out;
}

}  // namespace

Result<RuntimeConfig> parse_runtime_config(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  TRYV(root.only_keys({"policyDirs", "defaultPolicy", "ephemeralUids", "caDir", "kms", "edges",
                               "seccompCache", "policyCache", "clientPolicies", "trustBundleClaims", "egress"}));
  RuntimeConfig rc;
  rc.source = text;
  if (root.get("policyDirs")) {
    TRYV(root.opt("policyDirs", rc.policy_dirs));
    for (size_t i = 0; i < rc.policy_dirs.size(); ++i)
      if (rc.policy_dirs[i].empty() || rc.policy_dirs[i][0] != '/')
        return fail(origin + ": policyDirs[" + std::to_string(i) + "]: must be an absolute path");
  }
  TRYV(root.opt("defaultPolicy", rc.default_policy));
  TRYV(root.opt("caDir", rc.ca_dir));
  TRYV(root.opt("seccompCache", rc.seccomp_cache));
  TRYV(root.opt("policyCache", rc.policy_cache));
  TRYV(root.opt("trustBundleClaims", rc.trust_bundle_claims));
  if (!rc.ca_dir.empty() && rc.ca_dir[0] != '/') return fail(origin + ": caDir: must be an absolute path");
  if (auto k = root.get("kms")) {
    TRYV(k->only_keys({"vault", "kek", "cgroupParent"}));
    TRYV(k->opt("vault", rc.kms_vault));
    TRYV(k->opt("kek", rc.kms_kek));
    TRYV(k->opt("cgroupParent", rc.kms_cgroup_parent));
    for (auto [key, v] : {std::pair{"vault", &rc.kms_vault}, {"kek", &rc.kms_kek}, {"cgroupParent", &rc.kms_cgroup_parent}})
      if (v->empty() || (*v)[0] != '/') return fail(origin + ": kms." + key + ": must be an absolute path");
  }
  if (auto e = root.get("edges")) {
    TRYV(e->only_keys({"leafSeconds"}));
    if (auto l = e->get("leafSeconds")) rc.leaf_seconds = TRY(l->as_int_in(10, 30 * 24 * 3600));
  }
  if (auto e = root.get("egress")) {
    TRYV(e->only_keys({"upstreamTrust", "hosts", "allowAddresses", "credentialsDir"}));
    TRYV(e->opt("upstreamTrust", rc.egress_upstream_trust));
    TRYV(e->opt("hosts", rc.egress_hosts));
    TRYV(e->opt("allowAddresses", rc.egress_allow_addresses));
    TRYV(e->opt("credentialsDir", rc.egress_credentials_dir));
    for (auto [key, v] : {std::pair{"upstreamTrust", &rc.egress_upstream_trust}, {"hosts", &rc.egress_hosts},
                          {"credentialsDir", &rc.egress_credentials_dir}})
      if (!v->empty() && (*v)[0] != '/') return fail(origin + ": egress." + key + ": must be an absolute path");
  }
  if (auto cp = root.get("clientPolicies")) rc.client_policies = TRY(parse_client_policies(*cp));
  if (auto u = root.get("ephemeralUids")) {
    TRYV(u->only_keys({"first", "count"}));
    if (auto f = u->get("first")) rc.ephemeral_first = uint32_t(TRY(f->as_int_in(1000, 4000000000LL)));
    if (auto n = u->get("count")) rc.ephemeral_count = uint32_t(TRY(n->as_int_in(1, 1 << 24)));
    if (uint64_t(rc.ephemeral_first) + rc.ephemeral_count > 4294967294ULL)
      return fail(origin + ": ephemeralUids: range goes past the largest uid");
  }
  return rc;
}

std::string ca_dir(const RuntimeConfig& rc, const std::string& state_root) {
  return rc.ca_dir.empty() ? state_root + "/.ca" : rc.ca_dir;  // a dot: never a container id
}

Result<RuntimeConfig> load_runtime_config(const std::string& path, bool explicit_path) {
  auto text = read_file(path, 1u << 20);
  if (!text) {
    if (!explicit_path && text.error().err == ENOENT) return RuntimeConfig{};
    return fail(text.error());
  }
  return parse_runtime_config(*text, path);
}

Result<PolicySource> find_named_policy(const RuntimeConfig& rc, const std::string& name) {
  auto read = [](const std::string& path) -> Result<PolicySource> {
    auto text = TRY(read_file(path, 1u << 20));  // a policy is small; refuse a huge file
    return PolicySource{path, std::move(text)};
  };
  if (name.find('/') != std::string::npos) return read(name);
  if (!is_plain_name(name)) return fail("policy \"" + name + "\": not a valid policy name");
  std::string file = name.size() > 5 && name.ends_with(".json") ? name : name + ".json";
  for (auto& dir : rc.policy_dirs) {
    std::string path = dir + "/" + file;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return read(path);
  }
  std::string dirs;
  for (auto& dir : rc.policy_dirs) dirs += (dirs.empty() ? "" : ", ") + dir;
  return fail("policy \"" + name + "\": not found in the policy directories (" + dirs + ")");
}

Result<policy::Policy> load_named_policy(const RuntimeConfig& rc, const std::string& name) {
  auto src = TRY(find_named_policy(rc, name));
  return policy::parse_policy(src.text, src.path);
}

namespace {
constexpr const char* kClientWhere = "annotation org.sharness.policy";  // kAnnotation

// The policy a client names: a plain name of an installed file, one clientPolicies allows.
Result<void> find_client_policy(const RuntimeConfig& rc, const std::string& value, PolicyChoice& ch) {
  if (value.empty()) return fail("\"\": empty (name an installed policy, or leave the annotation out)");
  if (!is_plain_name(value))
    return fail("\"" + value + "\" is not a policy name (a client names an installed policy, never a path)");
  std::string name = value.size() > 5 && value.ends_with(".json") ? value.substr(0, value.size() - 5) : value;
  if (rc.client_policies) {
    auto it = rc.client_policies->find(name);
    if (it == rc.client_policies->end()) {
      std::string names;
      for (const auto& [n, g] : *rc.client_policies) names += (names.empty() ? "" : ", ") + n;
      return fail("policy \"" + name + "\" is not one a client may name (the runtime config's clientPolicies: " +
                  (names.empty() ? "none" : names) + ")");
    }
    ch.grants = it->second;
  }
  ch.client_name = name;
  ch.client = TRY(find_named_policy(rc, name));
  return {};
}

// Its id is its name, so that state and SHARNESS_POLICY_ID say which file runs.
Result<policy::Policy> client_policy(const PolicyChoice& ch) {
  auto p = TRY(policy::parse_policy(ch.client->text, ch.client->path));
  if (p.id != ch.client_name)
    return fail("policy \"" + ch.client_name + "\" has the id \"" + p.id +
                "\": a policy a client names must carry its file's name as its id");
  return p;
}
}  // namespace

Result<PolicyChoice> read_policy_choice(const RuntimeConfig& rc, const std::string& operator_policy,
                                        const oci::Config& c) {
  PolicyChoice ch;
  std::string name = operator_policy.empty() ? rc.default_policy : operator_policy;
  if (!name.empty()) ch.floor = TRYC("operator policy", find_named_policy(rc, name));
  auto it = c.annotations.find(kAnnotation);
  if (it != c.annotations.end()) TRYVC(kClientWhere, find_client_policy(rc, it->second, ch));
  return ch;
}

Result<std::optional<policy::Policy>> select_policy(const RuntimeConfig& rc, const std::string& operator_policy,
                                                    const oci::Config& c) {
  return select_policy(TRY(read_policy_choice(rc, operator_policy, c)));
}

Result<std::optional<policy::Policy>> select_policy(const PolicyChoice& ch) {
  std::optional<policy::Policy> floor;
  if (ch.floor) floor = TRYC("operator policy", policy::parse_policy(ch.floor->text, ch.floor->path));
  if (!ch.client) return floor;
  // The client's choice: a name only, looked up where the operator installed policies, no
  // looser than the floor in any section it states.
  const std::string where = kClientWhere;
  auto client = TRYC(where, client_policy(ch));
  auto looser = policy::looser_sections(floor ? &*floor : nullptr, client, ch.grants);
  if (!looser.empty()) {
    std::string why;
    for (const auto& l : looser) why += (why.empty() ? "" : "; ") + policy::describe(l);
    return fail(where + ": policy \"" + client.id + "\" is looser than the floor (" +
                (floor ? "policy " + floor->id : std::string("none, which grants no identity or reach")) + "): " + why);
  }
  if (!floor) return std::optional<policy::Policy>(std::move(client));
  auto composed = policy::intersect(*floor, client, ch.grants);
  // Its hash goes into the container's environment and `state`: no hash, no container.
  if (composed.hash.empty()) return fail(where + ": could not hash the composition of " + floor->id + " and " + client.id);
  return std::optional<policy::Policy>(std::move(composed));
}

}  // namespace sh::lifecycle
