// The systemd cgroup driver's lifecycle half (see systemd_scope.hpp).
#include "runtime/lifecycle/systemd_scope.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "base/file.hpp"
#include "hooks/hooks.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::lifecycle::systemd_scope {
namespace {

bool initial_userns() {
  auto m = read_file("/proc/self/uid_map", 4096);
  if (!m) return true;
  unsigned long a = 1, b = 1, n = 0;
  return std::sscanf(m->c_str(), "%lu %lu %lu", &a, &b, &n) == 3 && a == 0 && b == 0 && n == 4294967295ul;
}

Result<void> call(const char* op, const std::string& unit, bool user, const systemd::Properties& props) {
  std::vector<std::string> args{op};
  if (user) args.push_back("--user");
  // Helpers run with an empty environment: the bus addresses are passed on by name.
  for (const char* name : {"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS"})
    if (const char* v = ::getenv(name)) {
      args.push_back("--env");
      args.push_back(std::string(name) + "=" + v);
    }
  args.push_back(unit);
  for (const auto& p : props) args.push_back(systemd::encode(p));
  std::string helper = TRYC("systemd cgroup driver", sealed_exe::sibling("sharness-systemd"));
  return hooks::run_helper(helper, args);
}

}  // namespace

Result<void> require_systemd(const cgroups::Layout& l) {
  struct stat st;
  if (::lstat("/run/systemd/system", &st) < 0 || !S_ISDIR(st.st_mode))
    return fail("--systemd-cgroup: systemd is not running on this host (no /run/systemd/system directory): "
                "there is no systemd to make the container's scope unit; run without --systemd-cgroup "
                "(runc refuses the same way)");
  if (l.mode != cgroups::Mode::v2)
    return fail("--systemd-cgroup: this host's cgroups are " + cgroups::mode_name(l.mode) +
                "; this runtime's systemd driver needs the unified hierarchy (cgroup v2)");
  return {};
}

bool user_bus(const Globals& g) {
  if (g.rootless == "true") return true;
  if (g.rootless == "false") return false;
  return ::geteuid() != 0 || !initial_userns();
}

Result<void> start(const std::string& unit, bool user, const systemd::Properties& props) {
  return call("start", unit, user, props);
}
Result<void> set(const std::string& unit, bool user, const systemd::Properties& props) {
  return call("set", unit, user, props);
}
Result<void> stop(const std::string& unit, bool user) { return call("stop", unit, user, {}); }

Result<std::string> cgroup_of(pid_t pid) {
  std::string where = "/proc/" + std::to_string(pid) + "/cgroup";
  std::string text = TRY(read_file(where, 1u << 16));
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line = std::string_view(text).substr(pos, end - pos);
    if (line.starts_with("0::/") && line.size() > 4) return std::string(line.substr(3));
    pos = end + 1;
  }
  return fail(where + ": no cgroup v2 line (0::/...)");
}

}  // namespace sh::lifecycle::systemd_scope
