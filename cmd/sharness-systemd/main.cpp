// sharness-systemd: the runtime's D-Bus helper for the systemd cgroup driver (--systemd-cgroup).
// Installed beside sharness-runtime, which runs it (runtime/lifecycle/systemd_scope.cpp):
//   sharness-systemd start|set|stop [--user] [--env NAME=VALUE]... UNIT [Name=sig:value...]
// The properties are in systemd_props.hpp's argv form. --env passes only the bus addresses
// (the runtime runs its helpers with an empty environment). Errors go to stderr, exit 1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/linux/systemd_bus.hpp"
#include "runtime/linux/systemd_props.hpp"

namespace {

constexpr std::string_view kUsage =
    "usage: sharness-systemd start|set|stop [--user] [--env NAME=VALUE]... UNIT [Name=sig:value...]\n";

sh::Result<void> run(int argc, char** argv) {
  using sh::fail;
  if (argc < 3) return fail(std::string(kUsage));
  std::string_view op = argv[1];
  if (op != "start" && op != "set" && op != "stop") return fail(std::string(kUsage));
  bool user = false;
  int i = 2;
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--user") {
      user = true;
    } else if (a == "--env" && i + 1 < argc) {
      std::string kv = argv[++i];
      std::string name = kv.substr(0, kv.find('='));
      if (kv.find('=') == std::string::npos ||
          (name != "XDG_RUNTIME_DIR" && name != "DBUS_SESSION_BUS_ADDRESS" && name != "DBUS_SYSTEM_BUS_ADDRESS"))
        return fail("--env " + kv + ": only the bus addresses are passed");
      ::setenv(name.c_str(), kv.substr(name.size() + 1).c_str(), 1);
    } else {
      break;
    }
  }
  if (i >= argc) return fail(std::string(kUsage));
  std::string unit = argv[i++];
  sh::systemd::Properties props;
  for (; i < argc; ++i) props.push_back(TRY(sh::systemd::decode(argv[i])));
  if (op == "stop" && !props.empty()) return fail("stop takes no properties");
  auto bus = TRY(sh::systemd::Bus::open(user));
  if (op == "start") return bus.start(unit, props);
  if (op == "set") return bus.set(unit, props);
  return bus.stop(unit);
}

}  // namespace

int main(int argc, char** argv) {
  auto r = run(argc, argv);
  if (r) return 0;
  std::fprintf(stderr, "%s\n", r.error().what().c_str());
  return 1;
}
