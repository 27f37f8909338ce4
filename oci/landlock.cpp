#include "oci/landlock.hpp"

namespace sh::oci {

namespace {

using K = LandlockKind;

const char* kind_noun(K k) {
  switch (k) {
    case K::fs: return "a filesystem right";
    case K::net: return "a network right";
    case K::scope: return "a scope";
  }
  return "?";
}

const char* kind_key(K k) {
  switch (k) {
    case K::fs: return "ruleset.handledAccessFS";
    case K::net: return "ruleset.handledAccessNet";
    case K::scope: return "ruleset.scoped";
  }
  return "?";
}

// A present, non-null member (null reads as absent, as elsewhere in config.json).
std::optional<json::Value> present(const json::Value& v, std::string_view key) {
  auto m = v.get(key);
  if (!m || m->is_null()) return std::nullopt;
  return m;
}

// One name of `kind`; a name of another kind gets a pointed message (the common slip).
Result<const LandlockRight*> right_of(const json::Value& item, K kind) {
  std::string name = TRY(item.as_string());
  if (auto* r = find_landlock_right(kind, name)) return r;
  for (K other : {K::fs, K::net, K::scope})
    if (other != kind && find_landlock_right(other, name))
      return item.error(": \"" + name + "\" is " + kind_noun(other) + ", not " + kind_noun(kind));
  return item.error(std::string(": unknown ") + (kind == K::scope ? "scope" : "access right") + " \"" + name + "\"");
}

// A list of names of `kind` as a mask. `handled` (when given) is the ruleset's mask that a
// rule may only draw from: the kernel refuses a rule allowing an unhandled right.
Result<uint64_t> right_list(const json::Value& list, K kind, const uint64_t* handled = nullptr) {
  uint64_t mask = 0;
  TRYV(list.each_item([&](size_t, const json::Value& item) -> Result<void> {
    const LandlockRight* r = TRY(right_of(item, kind));
    if (handled && !(*handled & r->bit))
      return item.error(": \"" + std::string(r->name) + "\" is not in " + kind_key(kind) +
                        " (a rule can only allow a handled right)");
    mask |= r->bit;
    return {};
  }));
  return mask;
}

Result<void> need_nonempty(const json::Value& list) {
  TRYV(list.expect_array());
  if (list.size() == 0) return list.error(": must not be empty");
  return {};
}

Result<uint64_t> rule_access(const json::Value& rule, K kind, uint64_t handled) {
  auto a = TRY(rule.need("allowedAccess"));
  TRYV(need_nonempty(a));
  return right_list(a, kind, &handled);
}

Result<void> parse_ruleset(const json::Value& v, LandlockConfig& c) {
  // Our first spelling, handledAccessNetwork, is no alias: one key, as the kernel
  // (handled_access_net), landlockconfig and go-landlock spell it; the error says which.
  if (v.get("handledAccessNetwork"))
    return v.error(".handledAccessNetwork: unknown key (the network rights are \"handledAccessNet\")");
  TRYV(v.only_keys({"handledAccessFS", "handledAccessNet", "scoped"}));
  if (auto l = present(v, "handledAccessFS")) c.handled_fs = TRY(right_list(*l, K::fs));
  if (auto l = present(v, "handledAccessNet")) c.handled_net = TRY(right_list(*l, K::net));
  if (auto l = present(v, "scoped")) c.scoped = TRY(right_list(*l, K::scope));
  return {};
}

Result<std::string> absolute_path(const json::Value& item) {
  std::string p = TRY(item.as_string());
  if (p.empty() || p.front() != '/') return item.error(": \"" + p + "\" is not an absolute path");
  return p;
}

Result<LandlockPathRule> parse_path_rule(const json::Value& v, uint64_t handled) {
  TRYV(v.only_keys({"allowedAccess", "paths"}));
  LandlockPathRule r;
  r.allowed = TRY(rule_access(v, K::fs, handled));
  auto paths = TRY(v.need("paths"));
  TRYV(need_nonempty(paths));
  TRYV(paths.each_item([&](size_t, const json::Value& item) -> Result<void> {
    r.paths.push_back(TRY(absolute_path(item)));
    return {};
  }));
  return r;
}

Result<LandlockPortRule> parse_port_rule(const json::Value& v, uint64_t handled) {
  TRYV(v.only_keys({"allowedAccess", "ports"}));
  LandlockPortRule r;
  r.allowed = TRY(rule_access(v, K::net, handled));
  auto ports = TRY(v.need("ports"));
  TRYV(need_nonempty(ports));
  TRYV(ports.each_item([&](size_t, const json::Value& item) -> Result<void> {
    r.ports.push_back(uint16_t(TRY(item.as_int_in(0, 65535))));
    return {};
  }));
  return r;
}

Result<void> parse_rules(const json::Value& v, LandlockConfig& c) {
  TRYV(v.only_keys({"pathBeneath", "netPort"}));
  if (auto l = present(v, "pathBeneath"))
    TRYV(l->each_item([&](size_t, const json::Value& item) -> Result<void> {
      c.path_beneath.push_back(TRY(parse_path_rule(item, c.handled_fs)));
      return {};
    }));
  if (auto l = present(v, "netPort"))
    TRYV(l->each_item([&](size_t, const json::Value& item) -> Result<void> {
      c.net_port.push_back(TRY(parse_port_rule(item, c.handled_net)));
      return {};
    }));
  return {};
}

void write_names(json::Writer& w, std::string_view key, K kind, uint64_t mask) {
  if (!mask) return;
  w.key(key).begin_array();
  for (auto& n : landlock_names(kind, mask)) w.string(n);
  w.end_array();
}

}  // namespace

std::span<const LandlockRight> landlock_rights() { return kLandlockRights; }

const LandlockRight* find_landlock_right(LandlockKind kind, std::string_view name) {
  for (auto& r : kLandlockRights)
    if (r.kind == kind && r.name == name) return &r;
  return nullptr;
}

const char* landlock_kind_noun(LandlockKind kind) {
  return kind == LandlockKind::fs ? "fs right" : kind == LandlockKind::net ? "net right" : "scope";
}

std::string_view landlock_abi_linux(int abi) {
  // Documentation/userspace-api/landlock.rst and each release's changelog.
  static constexpr std::string_view kLinux[] = {"", "5.13", "5.19", "6.2", "6.7", "6.10", "6.12", "6.15"};
  return abi >= 1 && abi < int(std::size(kLinux)) ? kLinux[abi] : std::string_view();
}

std::vector<std::string> landlock_names(LandlockKind kind, uint64_t mask) {
  std::vector<std::string> out;
  for (auto& r : kLandlockRights)
    if (r.kind == kind && (mask & r.bit)) out.emplace_back(r.name);
  return out;
}

Result<LandlockConfig> parse_landlock(const json::Value& v) {
  TRYV(v.only_keys({"ruleset", "rules", "disableBestEffort"}));
  LandlockConfig c;
  if (auto r = present(v, "ruleset")) TRYV(parse_ruleset(*r, c));
  // Rules after the ruleset: each is checked against what the ruleset handles.
  if (auto r = present(v, "rules")) TRYV(parse_rules(*r, c));
  TRYV(v.opt("disableBestEffort", c.disable_best_effort));
  // The kernel refuses an empty ruleset (ENOMSG); say why at create, not at start.
  if (!c.handled_fs && !c.handled_net && !c.scoped)
    return v.error(": the ruleset handles nothing (handledAccessFS, handledAccessNet and scoped are all "
                   "empty), so it would restrict nothing");
  return c;
}

Result<LandlockConfig> parse_landlock(std::string_view json_text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(json_text, origin));
  // Root the paths at the block itself: "origin.rules..." rather than "origin: rules...".
  return parse_landlock(json::Value(doc.root().raw(), origin));
}

void write_landlock(json::Writer& w, const LandlockConfig& c) {
  w.begin_object();
  w.key("ruleset").begin_object();
  write_names(w, "handledAccessFS", K::fs, c.handled_fs);
  write_names(w, "handledAccessNet", K::net, c.handled_net);
  write_names(w, "scoped", K::scope, c.scoped);
  w.end_object();
  if (!c.path_beneath.empty() || !c.net_port.empty()) {
    w.key("rules").begin_object();
    if (!c.path_beneath.empty()) {
      w.key("pathBeneath").begin_array();
      for (auto& r : c.path_beneath) {
        w.begin_object();
        write_names(w, "allowedAccess", K::fs, r.allowed);
        w.kv("paths", r.paths);
        w.end_object();
      }
      w.end_array();
    }
    if (!c.net_port.empty()) {
      w.key("netPort").begin_array();
      for (auto& r : c.net_port) {
        w.begin_object();
        write_names(w, "allowedAccess", K::net, r.allowed);
        w.key("ports").begin_array();
        for (auto p : r.ports) w.integer(p);
        w.end_array();
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
  }
  if (c.disable_best_effort) w.kv("disableBestEffort", true);
  w.end_object();
}

std::string landlock_to_json(const LandlockConfig& c, bool pretty) {
  json::Writer w(pretty);
  write_landlock(w, c);
  return w.str();
}

}  // namespace sh::oci
