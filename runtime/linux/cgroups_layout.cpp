// Where the cgroup hierarchies are (from mountinfo) and where the container goes in them.
#include <algorithm>
#include <array>
#include <optional>

#include "base/file.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/cgroups_impl.hpp"
#include "runtime/linux/proc_info.hpp"

namespace sh::cgroups {
namespace {

// The v1 controllers the kernel knows; any other super option (xattr, noprefix,
// release_agent=...) is not a controller. Named hierarchies come as "name=X".
constexpr std::array kV1Controllers = {"blkio",   "cpu",     "cpuacct",    "cpuset", "devices",
                                       "freezer", "hugetlb", "memory",     "misc",   "net_cls",
                                       "net_prio", "perf_event", "pids",   "rdma"};

bool is_v1_controller(std::string_view opt) {
  return std::find(kV1Controllers.begin(), kV1Controllers.end(), opt) != kV1Controllers.end();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

// A hierarchy seen at several places: the first mount of its root wins, else the first.
void remember(std::string& slot, bool& slot_is_root, const proc::MountInfo& m) {
  bool is_root = m.root == "/";
  if (slot.empty() || (is_root && !slot_is_root)) {
    slot = m.mount_point;
    slot_is_root = is_root;
  }
}

// The unified root's cgroup.controllers text ("cpu io memory\n") into l.v2_controllers.
void add_v2_controllers(Layout& l, std::string_view text) {
  for (auto tok : split(text, ' '))
    for (auto t : split(tok, '\n'))
      if (!t.empty()) l.v2_controllers.emplace_back(t);
}

}  // namespace

std::string mode_name(Mode m) {
  switch (m) {
    case Mode::v1: return "v1";
    case Mode::v2: return "v2";
    case Mode::hybrid: return "hybrid";
  }
  return "unknown";
}

Result<Layout> parse_layout(std::string_view mountinfo, std::string_view v2_controllers) {
  Layout l;
  std::map<std::string, bool> v1_root;  // controller -> mount is the hierarchy root
  bool unified_root = false, real_v1 = false;
  std::vector<proc::MountInfo> mounts = TRY(proc::parse_mountinfo(mountinfo, "mountinfo"));
  // A later mount on the same place or on a parent of it (a tmpfs over /sys/fs/cgroup/unified,
  // say) hides an earlier one: that hierarchy is not reachable here. "/" is left out, as a
  // pivoted namespace may list its root mount after the others.
  auto covered = [&](size_t i) {
    const std::string& p = mounts[i].mount_point;
    for (size_t j = i + 1; j < mounts.size(); ++j) {
      const std::string& q = mounts[j].mount_point;
      if (q != "/" && (p == q || (p.starts_with(q) && p[q.size()] == '/'))) return true;
    }
    return false;
  };
  for (size_t i = 0; i < mounts.size(); ++i) {
    const proc::MountInfo& m = mounts[i];
    if ((m.fstype == "cgroup2" || m.fstype == "cgroup") && covered(i)) continue;
    if (m.fstype == "cgroup2") {
      remember(l.unified_mount, unified_root, m);
    } else if (m.fstype == "cgroup") {
      for (auto opt : split(m.super_options, ',')) {
        if (!is_v1_controller(opt) && !opt.starts_with("name=")) continue;
        real_v1 |= is_v1_controller(opt);
        std::string key(opt);
        remember(l.v1_mounts[key], v1_root[key], m);
      }
    }
  }
  if (l.unified_mount.empty() && l.v1_mounts.empty()) return fail("no cgroup filesystem is mounted");
  // A named v1 hierarchy alone (name=systemd) next to cgroup2 is still a v2 host.
  l.mode = l.unified_mount.empty() ? Mode::v1 : real_v1 ? Mode::hybrid : Mode::v2;
  add_v2_controllers(l, v2_controllers);
  return l;
}

Result<Layout> detect_layout() {
  static std::optional<Layout> cached;  // the host's mounts do not move under us
  if (cached) return *cached;
  std::string mi = TRYC("detect cgroup layout", read_file("/proc/self/mountinfo"));
  Layout l = TRYC("detect cgroup layout", parse_layout(mi));
  // What the unified root offers, once its mount is known (mountinfo is not parsed again).
  if (!l.unified_mount.empty())
    if (auto c = read_file(l.unified_mount + "/cgroup.controllers")) add_v2_controllers(l, *c);
  l.mountinfo = std::move(mi);
  cached = l;
  return l;
}

// ---- cgroupsPath ------------------------------------------------------------------------
namespace {

// "/a//b/./c" -> "/a/b/c"; ".." is refused, never resolved.
Result<std::string> normalize(std::string_view p, std::string_view what) {
  std::string out;
  for (auto c : split(p, '/')) {
    if (c.empty() || c == ".") continue;
    if (c == "..") return fail(std::string(what) + ": \"..\" is not allowed in a cgroup path");
    if (c.find('\0') != std::string_view::npos || c.find('\n') != std::string_view::npos)
      return fail(std::string(what) + ": invalid character in a cgroup path");
    out += '/';
    out += c;
  }
  if (out.empty()) return fail(std::string(what) + ": the root cgroup cannot hold a container");
  return out;
}

// systemd's layout of a slice: "a-b-c.slice" lives at "/a.slice/a-b.slice/a-b-c.slice".
Result<std::string> expand_slice(std::string_view slice, std::string_view what) {
  if (slice.empty()) slice = "system.slice";
  if (slice == "-.slice") return std::string();
  if (!slice.ends_with(".slice") || slice.find('/') != std::string_view::npos)
    return fail(std::string(what) + ": invalid slice name \"" + std::string(slice) + "\"");
  std::string_view base = slice.substr(0, slice.size() - 6);
  if (base.empty() || base.front() == '-' || base.back() == '-' || base.find("--") != std::string_view::npos)
    return fail(std::string(what) + ": invalid slice name \"" + std::string(slice) + "\"");
  std::string out;
  for (size_t pos = 0;; ++pos) {
    pos = base.find('-', pos);
    out += '/';
    out += base.substr(0, pos);
    out += ".slice";
    if (pos == std::string_view::npos) break;
  }
  return out;
}

Result<std::string> systemd_path(std::string_view spec, std::string_view what) {
  auto parts = split(spec, ':');
  if (parts.size() != 3)
    return fail(std::string(what) + ": expected \"slice:prefix:name\" with --systemd-cgroup, got \"" +
                std::string(spec) + "\"");
  std::string_view slice = parts[0], prefix = parts[1], name = parts[2];
  if (name.empty() || name.find('/') != std::string_view::npos || prefix.find('/') != std::string_view::npos)
    return fail(std::string(what) + ": invalid unit name in \"" + std::string(spec) + "\"");
  if (name.ends_with(".slice")) return expand_slice(name, what);  // a slice unit sits where systemd puts it
  std::string unit = prefix.empty() ? std::string(name) : std::string(prefix) + "-" + std::string(name);
  return TRY(expand_slice(slice, what)) + "/" + unit + ".scope";
}

}  // namespace

Result<std::string> resolve_path(const std::optional<std::string>& cgroups_path, const std::string& id,
                                 bool systemd_cgroup) {
  const std::string what = "linux.cgroupsPath";
  if (!cgroups_path || cgroups_path->empty()) {
    if (id.empty() || id == "." || id == ".." || id.find('/') != std::string::npos)
      return fail("container id \"" + id + "\" cannot name a cgroup");
    return normalize("/sharness/" + id, what);
  }
  if (systemd_cgroup) return normalize(TRY(systemd_path(*cgroups_path, what)), what);
  return normalize(*cgroups_path, what);
}

}  // namespace sh::cgroups
