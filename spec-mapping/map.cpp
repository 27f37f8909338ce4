#include "spec-mapping/map.hpp"

#include "oci/config_write.hpp"
#include "spec-mapping/compose.hpp"

namespace sh::policy {
namespace {

// Re-emit only `keys` of an object (those present), in that order.
void pick(json::Writer& w, const json::Value& obj, std::initializer_list<std::string_view> keys) {
  w.begin_object();
  for (auto k : keys)
    if (auto v = obj.get(k)) w.key(k).value(v->raw());
  w.end_object();
}

}  // namespace

Result<Policy> load_policies(const std::vector<std::string>& paths) {
  if (paths.empty()) return fail("no policy file given");
  Policy p = TRY(load_policy(paths[0]));
  for (size_t i = 1; i < paths.size(); ++i) {
    p = intersect(p, TRY(load_policy(paths[i])));
    if (p.hash.empty()) return fail("could not hash the composition with " + paths[i]);
  }
  return p;
}

Result<std::string> map_policy_json(const Policy& p, bool pretty, const HostProbe& host,
                                    std::span<const ShowHost> sidecars) {
  oci::Config c;
  Extension ext;
  TRYV(apply_to_config(p, c, ext, host));
  // The host side of each sidecar as create makes it, with the state root and id left symbolic.
  for (ShowHost show : sidecars)
    if (show) TRYV(show(ext, c));
  // Serialize with the one config writer, then keep the sections a policy touches.
  auto doc = TRY(json::Document::parse(TRY(oci::config_to_json(c, false)), "mapped config"));
  auto root = doc.root();
  json::Writer w(pretty);
  w.begin_object();
  if (auto proc = root.get("process")) {
    w.key("process");
    bool user = p.identity.gid || (p.identity.uid && !p.identity.uid->ephemeral);
    if (user)
      pick(w, *proc, {"user", "capabilities", "rlimits", "noNewPrivileges", "env"});
    else
      pick(w, *proc, {"capabilities", "rlimits", "noNewPrivileges", "env"});
  }
  if (c.root.readonly) w.key("root").begin_object().kv("readonly", true).end_object();
  for (auto k : {"mounts", "hooks", "annotations"})
    if (auto v = root.get(k)) w.key(k).value(v->raw());
  if (auto l = root.get("linux")) {
    w.key("linux");
    pick(w, *l, {"namespaces", "resources", "devices", "maskedPaths", "readonlyPaths", "sysctl"});
  }
  w.key("sharness");
  write_extension(w, ext);
  w.end_object();
  return w.str();
}

Result<std::string> merged_config_json(const Policy& floor, std::string_view config_text, const std::string& origin,
                                       bool pretty, const HostProbe& host) {
  auto doc = TRY(json::Document::parse(config_text, origin));
  if (doc.root().get("sharness"))
    return fail(origin + ": already carries a \"sharness\" block (a policy was applied): apply to the original config");
  oci::Config c = TRY(oci::parse_config(config_text, origin));
  // The annotation names an installed policy that only create resolves (runtime config's
  // policyDirs): applying the floor alone would silently drop it.
  if (c.annotations.contains(kAnnotationPolicy))
    return fail(origin + ": annotations." + kAnnotationPolicy + " names an installed policy, applied at create; " +
                "give it to `policy apply` as another --policy instead");
  Policy p = floor;
  Extension ext;
  TRYV(apply_to_config(p, c, ext, host));
  json::Writer w(pretty);
  w.begin_object();
  oci::write_config_members(w, c);
  w.key("sharness");
  write_extension(w, ext);
  w.end_object();
  return w.text();
}

}  // namespace sh::policy
