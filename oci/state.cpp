// The OCI state document: compact for hooks (stdin), pretty for `state` (runc's shape).
#include "oci/state.hpp"

#include "base/json.hpp"

namespace sh::oci {
namespace {

void annotations(json::Writer& w, const State& s) {
  // runc omits an empty map (omitempty).
  if (s.annotations.empty()) return;
  w.key("annotations").begin_object();
  for (auto& [k, v] : s.annotations) w.kv(k, v);
  w.end_object();
}

}  // namespace

static void spec_state(json::Writer& w, const State& s) {
  w.begin_object().kv("ociVersion", s.oci_version).kv("id", s.id).kv("status", s.status);
  // The spec has pid only while the process exists (created, running).
  if (s.pid > 0) w.kv("pid", static_cast<long long>(s.pid));
  w.kv("bundle", s.bundle);
  annotations(w, s);
  w.end_object();
}

std::string hook_state_json(const State& s) {
  json::Writer w;
  spec_state(w, s);
  return w.str();
}

std::string container_process_state_json(const State& s, pid_t pid, const std::string& metadata) {
  json::Writer w;
  w.begin_object().kv("ociVersion", s.oci_version);
  w.key("fds").begin_array().string("seccompFd").end_array();
  w.kv("pid", static_cast<long long>(pid));
  if (!metadata.empty()) w.kv("metadata", metadata);
  w.key("state");
  spec_state(w, s);
  w.end_object();
  return w.str();
}

std::string state_command_json(const State& s) {
  // runc's `state` field order; pid is always there, 0 once stopped (a stale pid may be reused).
  long long pid = s.status == "stopped" || s.pid < 0 ? 0 : s.pid;
  json::Writer w(true);
  w.begin_object()
      .kv("ociVersion", s.oci_version)
      .kv("id", s.id)
      .kv("pid", pid)
      .kv("status", s.status)
      .kv("bundle", s.bundle)
      .kv("rootfs", s.rootfs)
      .kv("created", s.created);
  annotations(w, s);
  w.kv("owner", s.owner);
  w.end_object();
  return w.str();
}

}  // namespace sh::oci
