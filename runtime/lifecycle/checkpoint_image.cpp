// sharness.json in an image directory, and the bounds CRIU cannot carry (checkpoint_image.hpp).
#include "runtime/lifecycle/checkpoint_image.hpp"

#include "base/json.hpp"

namespace sh::lifecycle {

std::string image_record_to_json(const ImageRecord& r) {
  json::Writer w;
  w.begin_object().kv("id", r.id);
  if (!r.policy_id.empty()) w.kv("policyId", r.policy_id).kv("policyHash", r.policy_hash);
  w.key("ephemeralUid").uinteger(r.ephemeral_uid);
  w.key("wallClockSpentMs").uinteger(r.wall_clock_spent_ms);
  w.kv("stdio", r.stdio);
  w.key("cgroupBinds").begin_object();
  for (const auto& [mp, ctrl] : r.cgroup_binds) w.kv(mp, ctrl);
  w.end_object().end_object();
  return w.str();
}

Result<ImageRecord> image_record_from_json(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  TRYV(root.expect_object());
  ImageRecord r;
  TRYV(root.opt("id", r.id));
  TRYV(root.opt("policyId", r.policy_id));
  TRYV(root.opt("policyHash", r.policy_hash));
  std::optional<uint64_t> uid, spent;
  TRYV(root.opt("ephemeralUid", uid));
  TRYV(root.opt("wallClockSpentMs", spent));
  if (uid && *uid > UINT32_MAX) return fail(origin + ": ephemeralUid: not a uid");
  r.ephemeral_uid = uint32_t(uid.value_or(0));
  r.wall_clock_spent_ms = spent.value_or(0);
  TRYV(root.opt("stdio", r.stdio));
  if (auto b = root.get("cgroupBinds"); b && !b->is_null())
    TRYV(b->each_member([&](std::string_view mp, const json::Value& v) -> Result<void> {
      r.cgroup_binds[std::string(mp)] = TRY(v.as_string());
      return {};
    }));
  if (r.policy_id.empty() != r.policy_hash.empty()) return fail(origin + ": policyId and policyHash go together");
  return r;
}

std::string uncarried_bound(const oci::Config& c, const policy::Extension* ext, Sidecars sidecars) {
  const std::string why = ": CRIU cannot carry it (docs/checkpoint.md), and a container is never restored with "
                          "less confinement than it had";
  if (c.process && c.process->landlock_json)
    return "the container's Landlock domain (config.json process.landlock): the kernel has no interface to read "
           "a Landlock domain back, so CRIU would restore its processes without it" + why;
  if (!ext) return {};
  const std::string policy = "policy " + ext->policy_id + ": ";
  if (ext->exec)
    return policy + "the exec allowlist (exec): it is a Landlock domain, which the kernel cannot read back" + why;
  if (ext->landlock)
    return policy + "its Landlock layer (files, ports, scope): the kernel has no interface to read a Landlock "
                    "domain back" + why;
  for (const Sidecar* s : sidecars)
    if (s->wanted(*ext))
      return policy + "its " + s->name + " sidecar: a process outside the container with its own identity and "
                                         "keys, which is not in the image" + why;
  return {};
}

Result<void> same_policy(const ImageRecord& image, const policy::Extension* restoring) {
  auto name = [](const std::string& id, const std::string& hash) {
    return id.empty() ? std::string("no policy") : "policy " + id + " (sha256 " + hash + ")";
  };
  std::string took = name(image.policy_id, image.policy_hash);
  std::string now = restoring ? name(restoring->policy_id, restoring->policy_hash) : name("", "");
  if (took != now)
    return fail("the checkpoint was taken under " + took + " and this restore selects " + now +
                ": restore under the same policy (the image's processes hold the bounds it set)");
  return {};
}

std::vector<std::pair<std::string, std::string>> external_binds(const oci::Config& c, const std::string& bundle) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& m : c.mounts) {
    if (!oci::is_bind(m)) continue;
    std::string src = m.source.starts_with("/") ? m.source : bundle + "/" + m.source;
    out.emplace_back(m.destination, src);
  }
  return out;
}

}  // namespace sh::lifecycle
