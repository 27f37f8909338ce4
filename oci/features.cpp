#include "oci/features.hpp"

#include "base/json.hpp"

namespace sh::oci {
namespace {

void enabled(json::Writer& w, std::string_view key, bool on) {
  w.key(key).begin_object().kv("enabled", on).end_object();
}

void write_seccomp(json::Writer& w, const Features::Seccomp& s) {
  w.key("seccomp").begin_object().kv("enabled", s.enabled);
  // Without seccomp the lists would be claims about something unusable: leave them out.
  if (s.enabled) {
    w.kv("actions", s.actions).kv("operators", s.operators).kv("archs", s.archs);
    w.kv("knownFlags", s.known_flags).kv("supportedFlags", s.supported_flags);
  }
  w.end_object();
}

void write_linux(json::Writer& w, const Features::Linux& l) {
  w.key("linux").begin_object();
  w.kv("namespaces", l.namespaces).kv("capabilities", l.capabilities);
  w.key("cgroup").begin_object();
  w.kv("v1", l.cgroup.v1).kv("v2", l.cgroup.v2).kv("systemd", l.cgroup.systemd);
  w.kv("systemdUser", l.cgroup.systemd_user).kv("rdma", l.cgroup.rdma);
  w.end_object();
  write_seccomp(w, l.seccomp);
  enabled(w, "apparmor", l.apparmor);
  enabled(w, "selinux", l.selinux);
  w.key("intelRdt").begin_object().kv("enabled", l.intel_rdt.enabled);
  w.kv("schemata", l.intel_rdt.schemata).kv("monitoring", l.intel_rdt.monitoring).end_object();
  w.key("memoryPolicy").begin_object().kv("modes", l.memory_policy.modes).kv("flags", l.memory_policy.flags);
  w.end_object();
  w.key("mountExtensions").begin_object();
  enabled(w, "idmap", l.idmap_mounts);
  w.end_object();
  enabled(w, "netDevices", l.net_devices);
  w.key("landlock").begin_object().kv("enabled", l.landlock.enabled).kv("abi", l.landlock.abi);
  w.kv("handledAccessFS", l.landlock.fs).kv("handledAccessNet", l.landlock.net).kv("scoped", l.landlock.scoped);
  w.key("ruleClasses").begin_object();
  for (const auto& [k, on] : l.landlock.classes) w.kv(k, on ? "enforced" : "not enforced");
  w.end_object();
  w.end_object();
  w.end_object();
}

}  // namespace

std::string features_json(const Features& f) {
  json::Writer w(true);
  w.begin_object();
  w.kv("ociVersionMin", f.oci_version_min).kv("ociVersionMax", f.oci_version_max);
  w.kv("hooks", f.hooks).kv("mountOptions", f.mount_options);
  write_linux(w, f.linux);
  w.key("annotations").begin_object();
  for (const auto& [k, v] : f.annotations) w.kv(k, v);
  w.end_object();
  w.kv("potentiallyUnsafeConfigAnnotations", f.unsafe_annotations);
  w.end_object();
  return w.str();
}

}  // namespace sh::oci
