// The systemd cgroup driver's D-Bus half: transient scope units through systemd's Manager API
// (org.freedesktop.systemd1, sd-bus from libsystemd). Built only into sharness-systemd
// (cmd/sharness-systemd/main.cpp): the runtime itself is a static binary and libsystemd has no
// static archive, so the runtime runs that helper (runtime/lifecycle/systemd_scope.cpp).
#pragma once
#include <string>

#include "base/error.hpp"
#include "runtime/linux/systemd_props.hpp"

struct sd_bus;

namespace sh::systemd {

class Bus {
 public:
  // The system bus (root), else systemd's private socket when no dbus-daemon listens; with
  // `user`, the caller's own session bus (sd_bus_open_user: $DBUS_SESSION_BUS_ADDRESS or
  // $XDG_RUNTIME_DIR/bus), whose systemd --user manager owns a rootless container's unit.
  static Result<Bus> open(bool user);
  Bus(Bus&& o) noexcept : bus_(o.bus_) { o.bus_ = nullptr; }
  Bus& operator=(Bus&&) = delete;
  ~Bus();

  // StartTransientUnit(name, "replace", props), then wait for its job's JobRemoved signal
  // (30 s): a job that ends other than "done" is an error. A leftover failed unit of the same
  // name is reset and the start tried once more, as runc does.
  Result<void> start(const std::string& unit, const Properties& props);
  // SetUnitProperties(name, runtime=true, props): until the unit goes, not written to /etc.
  Result<void> set(const std::string& unit, const Properties& props);
  // StopUnit(name, "replace") and wait for the job; a unit already gone is success. A failed
  // unit is reset so systemd forgets it.
  Result<void> stop(const std::string& unit);

 private:
  explicit Bus(sd_bus* b) : bus_(b) {}
  Result<std::string> start_once(const std::string& unit, const Properties& props, std::string* error_name);
  Result<void> wait_job(const std::string& method, const std::string& unit, const std::string& job);
  void reset_failed(const std::string& unit);
  sd_bus* bus_ = nullptr;
  std::string what_;  // "the system bus", "the user bus", for messages
};

}  // namespace sh::systemd
