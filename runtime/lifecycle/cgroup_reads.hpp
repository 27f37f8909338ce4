// What the commands read of a living container's cgroup: its pids (ps), its stats, and the
// stream of stats and oom events (events).
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/linux/cgroups.hpp"

namespace sh::lifecycle {

// Host pids in the container's cgroup; fails for a stopped container.
Result<std::vector<pid_t>> pids(const Globals& g, const std::string& id);

// Go-style durations: "500ms", "5s", "1m30s", "1.5h". Must be > 0.
Result<std::chrono::nanoseconds> parse_duration(const std::string& flag, const std::string& value);

// events: one `{"type":"stats",...}` object in runc's shape, and the oom event.
std::string stats_event_json(const std::string& id, const cgroups::Cgroup::Stats& s);
std::string oom_event_json(const std::string& id);
// The stats of a container that is not stopped.
Result<cgroups::Cgroup::Stats> stats(const Globals& g, const std::string& id);
// Stream events: a stats line every interval, an oom line when the cgroup's oom_kill count
// grew since the previous sample. Returns when the container stops (or emit returns false).
Result<void> events(const Globals& g, const std::string& id, std::chrono::nanoseconds interval,
                    const std::function<bool(const std::string& line)>& emit);

}  // namespace sh::lifecycle
