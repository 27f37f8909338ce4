// systemd's Manager API over sd-bus (see systemd_bus.hpp).
#include "runtime/linux/systemd_bus.hpp"

#include <systemd/sd-bus.h>
#include <time.h>

#include <cstring>
#include <utility>
#include <vector>

namespace sh::systemd {
namespace {

constexpr const char* kDest = "org.freedesktop.systemd1";
constexpr const char* kPath = "/org/freedesktop/systemd1";
constexpr const char* kManager = "org.freedesktop.systemd1.Manager";
constexpr uint64_t kJobTimeoutUsec = 30'000'000;  // runc waits 30 s for a job too

std::string errno_text(int r) { return std::strerror(r < 0 ? -r : r); }

// "org.freedesktop.systemd1.UnitExists: Unit x.scope already exists."
std::string bus_error_text(const sd_bus_error& e, int r) {
  if (e.name) return std::string(e.name) + ": " + (e.message ? e.message : errno_text(r));
  return errno_text(r);
}

struct MessageRef {
  sd_bus_message* m = nullptr;
  ~MessageRef() { sd_bus_message_unref(m); }
};
struct ErrorRef {
  sd_bus_error e = SD_BUS_ERROR_NULL;
  ~ErrorRef() { sd_bus_error_free(&e); }
};

int append_value(sd_bus_message* m, const Value& value) {
  return std::visit(
      [&](const auto& v) -> int {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return sd_bus_message_append(m, "v", "b", int(v));
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          return sd_bus_message_append(m, "v", "t", v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return sd_bus_message_append(m, "v", "s", v.c_str());
        } else if constexpr (std::is_same_v<T, std::vector<uint32_t>>) {
          int r = sd_bus_message_open_container(m, 'v', "au");
          if (r >= 0) r = sd_bus_message_append_array(m, 'u', v.data(), v.size() * sizeof(uint32_t));
          if (r >= 0) r = sd_bus_message_close_container(m);
          return r;
        } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
          int r = sd_bus_message_open_container(m, 'v', "ay");
          if (r >= 0) r = sd_bus_message_append_array(m, 'y', v.data(), v.size());
          if (r >= 0) r = sd_bus_message_close_container(m);
          return r;
        } else {
          int r = sd_bus_message_open_container(m, 'v', "a(ss)");
          if (r >= 0) r = sd_bus_message_open_container(m, 'a', "(ss)");
          for (size_t i = 0; r >= 0 && i < v.size(); ++i)
            r = sd_bus_message_append(m, "(ss)", v[i].first.c_str(), v[i].second.c_str());
          if (r >= 0) r = sd_bus_message_close_container(m);
          if (r >= 0) r = sd_bus_message_close_container(m);
          return r;
        }
      },
      value);
}

// a(sv): the unit's properties.
Result<void> append_properties(sd_bus_message* m, const Properties& props, const std::string& what) {
  int r = sd_bus_message_open_container(m, 'a', "(sv)");
  for (size_t i = 0; r >= 0 && i < props.size(); ++i) {
    r = sd_bus_message_open_container(m, 'r', "sv");
    if (r >= 0) r = sd_bus_message_append(m, "s", props[i].name.c_str());
    if (r >= 0) r = append_value(m, props[i].value);
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r < 0) return fail(what + ": property " + props[i].name + ": " + errno_text(r));
  }
  if (r >= 0) r = sd_bus_message_close_container(m);
  if (r < 0) return fail(what + ": properties: " + errno_text(r));
  return {};
}

// JobRemoved(u id, o job, s unit, s result) signals seen since the watch was set.
struct JobWatch {
  sd_bus_slot* slot = nullptr;
  std::vector<std::pair<std::string, std::string>> removed;  // (job path, result)
  ~JobWatch() { sd_bus_slot_unref(slot); }
};

int on_job_removed(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto* w = static_cast<JobWatch*>(userdata);
  uint32_t id = 0;
  const char *job = nullptr, *unit = nullptr, *result = nullptr;
  if (sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) >= 0 && job && result)
    w->removed.emplace_back(job, result);
  return 0;
}

uint64_t now_usec() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000 + uint64_t(ts.tv_nsec) / 1000;
}

JobWatch* g_watch = nullptr;  // the one operation in flight (the helper does one at a time)

}  // namespace

Bus::~Bus() { sd_bus_flush_close_unref(bus_); }

Result<Bus> Bus::open(bool user) {
  sd_bus* b = nullptr;
  std::string what;
  if (user) {
    what = "the user's D-Bus session bus";
    int r = sd_bus_open_user(&b);
    if (r < 0) {
      const char* xdg = getenv("XDG_RUNTIME_DIR");
      const char* addr = getenv("DBUS_SESSION_BUS_ADDRESS");
      return fail("systemd cgroup driver: connect to " + what + " (sd_bus_open_user, DBUS_SESSION_BUS_ADDRESS=" +
                  (addr ? addr : "unset") + ", XDG_RUNTIME_DIR=" + (xdg ? xdg : "unset") +
                  "): " + errno_text(r) + "; a rootless container's scope is made by the user's systemd --user");
    }
  } else {
    what = "the system D-Bus";
    int r = sd_bus_open_system(&b);
    if (r < 0) {
      // No dbus-daemon: systemd's own socket takes the same calls (as systemctl does).
      int first = r;
      r = sd_bus_new(&b);
      if (r >= 0) r = sd_bus_set_address(b, "unix:path=/run/systemd/private");
      if (r >= 0) r = sd_bus_start(b);
      if (r < 0) {
        sd_bus_unref(b);
        return fail("systemd cgroup driver: connect to " + what + " (sd_bus_open_system): " + errno_text(first) +
                    ", nor to systemd's /run/systemd/private: " + errno_text(r));
      }
      what = "systemd's private socket";
    }
  }
  Bus bus(b);
  bus.what_ = what;
  return bus;
}

Result<std::string> Bus::start_once(const std::string& unit, const Properties& props, std::string* error_name) {
  const std::string what = "StartTransientUnit " + unit;
  MessageRef m;
  int r = sd_bus_message_new_method_call(bus_, &m.m, kDest, kPath, kManager, "StartTransientUnit");
  if (r >= 0) r = sd_bus_message_append(m.m, "ss", unit.c_str(), "replace");
  if (r < 0) return fail(what + ": " + errno_text(r));
  TRYV(append_properties(m.m, props, what));
  r = sd_bus_message_append(m.m, "a(sa(sv))", 0);  // no auxiliary units
  if (r < 0) return fail(what + ": " + errno_text(r));
  ErrorRef err;
  MessageRef reply;
  r = sd_bus_call(bus_, m.m, kJobTimeoutUsec, &err.e, &reply.m);
  if (r < 0) {
    if (error_name && err.e.name) *error_name = err.e.name;
    return fail(what + ": " + bus_error_text(err.e, r));
  }
  const char* job = nullptr;
  r = sd_bus_message_read(reply.m, "o", &job);
  if (r < 0 || !job) return fail(what + ": reading the job path: " + errno_text(r));
  return std::string(job);
}

Result<void> Bus::wait_job(const std::string& method, const std::string& unit, const std::string& job) {
  const std::string what = method + " " + unit;
  uint64_t deadline = now_usec() + kJobTimeoutUsec;
  for (;;) {
    for (const auto& [path, result] : g_watch->removed) {
      if (path != job) continue;
      if (result == "done") return {};
      return fail(what + ": systemd job " + job + " ended \"" + result + "\"" +
                  (result == "failed" ? " (journalctl -u " + unit + " says why)" : std::string()));
    }
    int r = sd_bus_process(bus_, nullptr);
    if (r < 0) return fail(what + ": waiting for job " + job + " on " + what_ + ": " + errno_text(r));
    if (r > 0) continue;
    uint64_t now = now_usec();
    if (now >= deadline) return fail(what + ": job " + job + " not finished after 30 s");
    r = sd_bus_wait(bus_, deadline - now);
    if (r < 0) return fail(what + ": waiting for job " + job + " on " + what_ + ": " + errno_text(r));
  }
}

void Bus::reset_failed(const std::string& unit) {
  ErrorRef err;
  (void)sd_bus_call_method(bus_, kDest, kPath, kManager, "ResetFailedUnit", &err.e, nullptr, "s", unit.c_str());
}

namespace {
// Subscribe (so systemd sends job signals to this connection) and watch JobRemoved, before
// the call that makes the job: its signal may come before the call's reply.
Result<void> watch_jobs(sd_bus* bus, JobWatch& w, const std::string& what) {
  int r = sd_bus_match_signal(bus, &w.slot, kDest, kPath, kManager, "JobRemoved", on_job_removed, &w);
  if (r < 0) return fail(what + ": watch JobRemoved: " + errno_text(r));
  ErrorRef err;
  r = sd_bus_call_method(bus, kDest, kPath, kManager, "Subscribe", &err.e, nullptr, "");
  if (r < 0) return fail(what + ": Subscribe: " + bus_error_text(err.e, r));
  g_watch = &w;
  return {};
}
}  // namespace

Result<void> Bus::start(const std::string& unit, const Properties& props) {
  JobWatch w;
  TRYV(watch_jobs(bus_, w, "StartTransientUnit " + unit));
  std::string error_name;
  auto job = start_once(unit, props, &error_name);
  if (!job && error_name == "org.freedesktop.systemd1.UnitExists") {
    // Maybe a leftover failed unit: reset it so systemd drops it, and try once more.
    reset_failed(unit);
    job = start_once(unit, props, nullptr);
  }
  if (!job) return fail(std::move(job.error()));
  auto done = wait_job("StartTransientUnit", unit, *job);
  if (!done) reset_failed(unit);
  return done;
}

Result<void> Bus::set(const std::string& unit, const Properties& props) {
  const std::string what = "SetUnitProperties " + unit;
  MessageRef m;
  int r = sd_bus_message_new_method_call(bus_, &m.m, kDest, kPath, kManager, "SetUnitProperties");
  if (r >= 0) r = sd_bus_message_append(m.m, "sb", unit.c_str(), 1);
  if (r < 0) return fail(what + ": " + errno_text(r));
  TRYV(append_properties(m.m, props, what));
  ErrorRef err;
  r = sd_bus_call(bus_, m.m, kJobTimeoutUsec, &err.e, nullptr);
  if (r < 0) return fail(what + ": " + bus_error_text(err.e, r));
  return {};
}

Result<void> Bus::stop(const std::string& unit) {
  const std::string what = "StopUnit " + unit;
  JobWatch w;
  TRYV(watch_jobs(bus_, w, what));
  ErrorRef err;
  MessageRef reply;
  int r = sd_bus_call_method(bus_, kDest, kPath, kManager, "StopUnit", &err.e, &reply.m, "ss", unit.c_str(), "replace");
  if (r < 0) {
    if (err.e.name && std::strcmp(err.e.name, "org.freedesktop.systemd1.NoSuchUnit") == 0) return {};
    return fail(what + ": " + bus_error_text(err.e, r));
  }
  const char* job = nullptr;
  r = sd_bus_message_read(reply.m, "o", &job);
  if (r < 0 || !job) return fail(what + ": reading the job path: " + errno_text(r));
  auto done = wait_job("StopUnit", unit, job);
  reset_failed(unit);
  return done;
}

}  // namespace sh::systemd
