// What the wall-clock watchdog leaves in the container's state dir when its time is up, written
// before it sends SIGKILL: when init started, the deadline it armed and when its timer fired, all
// in CLOCK_BOOTTIME nanoseconds, the watchdog's own clock. So whoever asks later why the container
// died (delete's log line, `hello`'s verdict) reads what happened, not how long the asking took:
// on a loaded host, reaping and teardown after the kill can take seconds.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "runtime/lifecycle/state_store.hpp"

namespace sh::lifecycle {

inline constexpr const char* kWatchdogFiredFile = "watchdog-fired.json";

struct WatchdogFired {
  uint64_t started_ns = 0;   // init's start (field 22 of /proc/<pid>/stat, in ticks, as ns)
  uint64_t deadline_ns = 0;  // started + the limit (what was left of it, after a restore)
  uint64_t fired_ns = 0;     // when the timer woke the watchdog
  double limit_seconds() const { return double(deadline_ns - started_ns) / 1e9; }
  double fired_after_seconds() const { return double(fired_ns - started_ns) / 1e9; }
};

// {"startedNs": N, "deadlineNs": N, "firedNs": N}, with started <= deadline <= fired.
Result<WatchdogFired> parse_watchdog_fired(std::string_view text, const std::string& origin);
// The record in a container's state dir; nullopt when the watchdog never fired there.
Result<std::optional<WatchdogFired>> read_watchdog_fired(const ContainerDir& dir);
// "the wall-clock watchdog sent SIGKILL 3.01 s after init started (its limit: 3.00 s)"
std::string describe(const WatchdogFired& f);

}  // namespace sh::lifecycle
