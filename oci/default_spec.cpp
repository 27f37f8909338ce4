#include "oci/default_spec.hpp"

#include <unistd.h>

#include <string_view>
#include <vector>

#include "base/json.hpp"

namespace sh::oci {
namespace {

using Strings = std::vector<std::string>;

void process(json::Writer& w) {
  const Strings caps = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"};
  w.key("process").begin_object().kv("terminal", true);
  w.key("user").begin_object().kv("uid", 0).kv("gid", 0).end_object();
  w.kv("args", Strings{"sh"});
  w.kv("env", Strings{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"});
  w.kv("cwd", "/");
  w.key("capabilities").begin_object().kv("bounding", caps).kv("effective", caps).kv("permitted", caps).end_object();
  w.key("rlimits").begin_array();
  w.begin_object().kv("type", "RLIMIT_NOFILE").kv("hard", 1024).kv("soft", 1024).end_object();
  w.end_array();
  w.kv("noNewPrivileges", true);
  w.end_object();
}

void mount(json::Writer& w, std::string_view dest, std::string_view type, std::string_view source,
           const Strings& options) {
  w.begin_object().kv("destination", dest).kv("type", type).kv("source", source);
  if (!options.empty()) w.kv("options", options);
  w.end_object();
}

void mounts(json::Writer& w, bool rootless) {
  // uid=/gid= options name host ids a rootless user cannot map.
  Strings pts = {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"};
  if (!rootless) pts.push_back("gid=5");
  w.key("mounts").begin_array();
  mount(w, "/proc", "proc", "proc", {});
  mount(w, "/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"});
  mount(w, "/dev/pts", "devpts", "devpts", pts);
  mount(w, "/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"});
  mount(w, "/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"});
  // sysfs cannot be mounted fresh without owning a network namespace: bind the host's.
  if (rootless)
    mount(w, "/sys", "none", "/sys", {"rbind", "nosuid", "noexec", "nodev", "ro"});
  else
    mount(w, "/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"});
  mount(w, "/sys/fs/cgroup", "cgroup", "cgroup", {"nosuid", "noexec", "nodev", "relatime", "ro"});
  w.end_array();
}

void id_mapping(json::Writer& w, std::string_view key, unsigned host_id) {
  w.key(key).begin_array();
  w.begin_object().kv("containerID", 0).key("hostID").uinteger(host_id).kv("size", 1).end_object();
  w.end_array();
}

void linux_section(json::Writer& w, bool rootless) {
  w.key("linux").begin_object();
  if (rootless) {
    id_mapping(w, "uidMappings", geteuid());
    id_mapping(w, "gidMappings", getegid());
  } else {
    w.key("resources").begin_object().key("devices").begin_array();
    w.begin_object().kv("allow", false).kv("access", "rwm").end_object();
    w.end_array().end_object();
  }
  const Strings ns = rootless ? Strings{"pid", "ipc", "uts", "mount", "user"}
                              : Strings{"pid", "network", "ipc", "uts", "mount", "cgroup"};
  w.key("namespaces").begin_array();
  for (auto& t : ns) w.begin_object().kv("type", t).end_object();
  w.end_array();
  w.kv("maskedPaths", Strings{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                              "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
                              "/proc/scsi", "/sys/devices/virtual/powercap"});
  w.kv("readonlyPaths", Strings{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"});
  w.end_object();
}

}  // namespace

std::string default_spec_json(bool rootless) {
  json::Writer w(true);
  w.begin_object().kv("ociVersion", "1.3.0");
  process(w);
  w.key("root").begin_object().kv("path", "rootfs").kv("readonly", true).end_object();
  w.kv("hostname", "sharness");
  mounts(w, rootless);
  linux_section(w, rootless);
  w.end_object();
  return w.str();
}

}  // namespace sh::oci
