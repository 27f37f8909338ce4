#include "spec-mapping/extension.hpp"

#include <set>

#include "oci/config_write.hpp"

namespace sh::policy {
namespace {

const char* kind_name(oci::LandlockKind k) {
  return k == oci::LandlockKind::fs ? "fs" : k == oci::LandlockKind::net ? "net" : "scope";
}

}  // namespace

void write_extension(json::Writer& w, const Extension& e) {
  w.begin_object();
  w.key("policy").begin_object().kv("id", e.policy_id).kv("hash", e.policy_hash).end_object();
  w.kv("bestEffort", e.best_effort);
  if (e.ephemeral_uid) w.kv("ephemeralUid", true);
  if (e.ephemeral_gid) w.kv("ephemeralGid", true);
  if (e.network) w.kv("network", *e.network);
  if (e.wall_clock_seconds) w.key("wallClockSeconds").uinteger(*e.wall_clock_seconds);
  if (e.deny_write_execute) w.kv("denyWriteExecute", true);
  if (e.devices) w.kv("devices", *e.devices);
  if (e.seccomp) {
    w.key("seccomp");
    oci::write_seccomp(w, *e.seccomp);
  }
  if (e.mesh) {
    w.key("edges").begin_object();
    write_mesh_members(w, *e.mesh);
    w.end_object();
  }
  if (e.secrets) {
    w.key("secrets");
    write_secrets(w, *e.secrets);
  }
  if (e.egress) {
    w.key("egress");
    write_egress(w, *e.egress);
  }
  if (e.landlock) {
    w.key("landlock");
    oci::write_landlock(w, *e.landlock);
    if (!e.landlock->stand_ins.empty()) {
      w.key("landlockStandIns").begin_array();
      for (const auto& si : e.landlock->stand_ins) {
        auto names = oci::landlock_names(si.kind, si.bit);
        w.begin_object().kv("kind", kind_name(si.kind)).kv("right", names.empty() ? "" : names[0]).kv("by", si.by);
        w.end_object();
      }
      w.end_array();
    }
  }
  if (!e.hooks_from_config) w.kv("hooksFromConfig", false);
  if (e.exec) {
    w.key("exec").begin_array();
    for (const auto& pin : *e.exec) w.begin_object().kv("path", pin.path).kv("sha256", pin.sha256).end_object();
    w.end_array();
  }
  if (!e.bounds.empty()) {
    w.key("bounds").begin_array();
    for (const auto& b : e.bounds) {
      w.begin_object().kv("mechanism", b.mechanism).kv("available", b.available).kv("appliedBy", b.applied_by);
      if (!b.note.empty()) w.kv("note", b.note);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

Result<void> refuse_config_hooks(const Extension& e, const oci::Hooks& h) {
  if (e.hooks_from_config) return {};
  for (auto [kind, list] : {std::pair{"prestart", &h.prestart}, {"createRuntime", &h.create_runtime},
                            {"createContainer", &h.create_container}, {"startContainer", &h.start_container},
                            {"poststart", &h.poststart}, {"poststop", &h.poststop}})
    if (!list->empty())
      return fail("config.json: hooks." + std::string(kind) + "[0]: refused: policy " + e.policy_id +
                  " has hooks.fromConfig false (a config's hooks run on the host, as root)");
  return {};
}

std::string extension_to_json(const Extension& e, bool pretty) {
  json::Writer w(pretty);
  write_extension(w, e);
  return w.str();
}

namespace {

Result<void> strict(const json::Value& v, std::initializer_list<std::string_view> keys) {
  TRYV(v.expect_object());
  std::set<std::string_view> seen;
  for (size_t i = 0; i < v.raw()->u.object.len; ++i)
    if (!seen.insert(v.raw()->u.object.keys[i]).second)
      return fail(v.child_path(v.raw()->u.object.keys[i]) + ": duplicate key");
  return v.only_keys(keys);
}

// The OCI seccomp parser lives inside oci::parse_config: hand it a config holding only this
// object, so the stacked filter is read exactly as linux.seccomp would be.
Result<oci::Seccomp> parse_seccomp(const json::Value& v) {
  TRYV(v.expect_object());
  json::Writer w;
  w.begin_object().key("linux").begin_object().key("seccomp").value(v.raw()).end_object().end_object();
  auto c = TRY(oci::parse_config(w.str(), v.path() + " (as linux.seccomp)"));
  return *c.linux.seccomp;
}

Result<Bound> parse_bound(const json::Value& v) {
  TRYV(strict(v, {"mechanism", "available", "appliedBy", "note"}));
  Bound b;
  b.mechanism = TRY(TRY(v.need("mechanism")).as_string());
  b.available = TRY(TRY(v.need("available")).as_bool());
  TRYV(v.opt("appliedBy", b.applied_by));
  TRYV(v.opt("note", b.note));
  return b;
}

Error tidy(Error e) {
  for (size_t p; (p = e.msg.find(" : ")) != std::string::npos;) e.msg.replace(p, 3, ": ");
  return e;
}

Result<Extension> parse_impl(const json::Value& v) {
  TRYV(v.expect_object());
  TRYV(strict(v, {"policy", "bestEffort", "ephemeralUid", "ephemeralGid", "network", "wallClockSeconds", "denyWriteExecute", "devices", "seccomp",
                  "edges", "secrets", "egress", "landlock", "landlockStandIns", "exec", "hooksFromConfig", "bounds"}));
  Extension e;
  auto pol = TRY(v.need("policy"));
  TRYV(strict(pol, {"id", "hash"}));
  e.policy_id = TRY(TRY(pol.need("id")).as_string());
  e.policy_hash = TRY(TRY(pol.need("hash")).as_string());
  TRYV(v.opt("bestEffort", e.best_effort));
  TRYV(v.opt("ephemeralUid", e.ephemeral_uid));
  TRYV(v.opt("ephemeralGid", e.ephemeral_gid));
  TRYV(v.opt("network", e.network));
  if (e.network && *e.network != "none" && *e.network != "loopback" && *e.network != "host")
    return fail(v.child_path("network") + ": expected \"none\", \"loopback\" or \"host\", got \"" + *e.network + "\"");
  TRYV(v.opt("wallClockSeconds", e.wall_clock_seconds));
  TRYV(v.opt("denyWriteExecute", e.deny_write_execute));
  TRYV(v.opt("hooksFromConfig", e.hooks_from_config));
  if (v.get("devices")) {
    std::vector<std::string> names;
    TRYV(v.opt("devices", names));
    e.devices = std::move(names);
  }
  if (auto s = v.get("seccomp")) e.seccomp = TRY(parse_seccomp(*s));
  if (auto m = v.get("edges")) {
    TRYV(strict(*m, {"role", "edges", "accepts"}));
    e.mesh = TRY(parse_mesh(*m));
    if (!e.mesh->role) return fail(m->child_path("role") + ": required");
  }
  if (auto s = v.get("secrets")) {
    e.secrets = TRY(parse_secrets(*s));
    if (!e.mesh) return fail(s->path() + ": needs \"edges\" with a role (the KMS answers only the container's certificate)");
  }
  if (auto x = v.get("egress")) e.egress = TRY(parse_egress(*x));
  if (auto l = v.get("landlock")) {
    e.landlock = TRY(oci::parse_landlock(*l));
    e.landlock->canonical_paths = true;
  }
  if (auto list = v.get("landlockStandIns")) {
    if (!e.landlock) return fail(list->path() + ": needs \"landlock\"");
    TRYV(list->each_item([&](size_t, const json::Value& it) -> Result<void> {
      TRYV(strict(it, {"kind", "right", "by"}));
      std::string kind = TRY(TRY(it.need("kind")).as_string()), right = TRY(TRY(it.need("right")).as_string());
      oci::LandlockStandIn si;
      si.by = TRY(TRY(it.need("by")).as_string());
      if (kind != "fs" && kind != "net" && kind != "scope")
        return fail(it.child_path("kind") + ": expected \"fs\", \"net\" or \"scope\", got \"" + kind + "\"");
      si.kind = kind == "fs" ? oci::LandlockKind::fs : kind == "net" ? oci::LandlockKind::net : oci::LandlockKind::scope;
      auto* r = oci::find_landlock_right(si.kind, right);
      if (!r) return fail(it.child_path("right") + ": unknown " + oci::landlock_kind_noun(si.kind) + " \"" + right + "\"");
      si.bit = r->bit;
      e.landlock->stand_ins.push_back(std::move(si));
      return {};
    }));
  }
  if (auto x = v.get("exec")) {
    std::vector<Pin> pins;
    TRYV(x->each_item([&](size_t, const json::Value& it) -> Result<void> {
      TRYV(strict(it, {"path", "sha256"}));
      Pin pin;
      pin.path = TRY(TRY(it.need("path")).as_string());
      pin.sha256 = TRY(TRY(it.need("sha256")).as_string());
      if (pin.path.empty() || pin.path[0] != '/') return fail(it.child_path("path") + ": not an absolute path");
      pins.push_back(std::move(pin));
      return {};
    }));
    e.exec = std::move(pins);
  }
  if (auto b = v.get("bounds"))
    TRYV(b->each_item([&](size_t, const json::Value& it) -> Result<void> {
      e.bounds.push_back(TRY(parse_bound(it)));
      return {};
    }));
  return e;
}

}  // namespace

Result<Extension> parse_extension(const json::Value& v) {
  auto e = parse_impl(v);
  if (!e) return fail(tidy(std::move(e.error())));
  return e;
}

}  // namespace sh::policy
