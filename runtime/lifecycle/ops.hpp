// Operations on a living container: pause/resume, update, pids (ps), stats and events; and
// the features document of this build and host. The CLI files stay thin; the parsing of
// flag values lives here so unit tests reach it.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "oci/features.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/host_facts.hpp"

namespace sh::lifecycle {

// Freeze / thaw every process of a running / paused container.
Result<void> pause(const Globals& g, const std::string& id);
Result<void> resume(const Globals& g, const std::string& id);

// Host pids in the container's cgroup; fails for a stopped container.
Result<std::vector<pid_t>> pids(const Globals& g, const std::string& id);

// Apply a resources update to a container that is not stopped.
Result<void> update(const Globals& g, const std::string& id, const oci::Resources& res);

// The per-field flags of `update`, as runc names them: each entry's first name is the one
// the values map below is keyed by, the others are aliases.
const std::vector<std::vector<std::string>>& update_flags();
// The resources an `update` applies: the --resources document (if any) with the flag values
// (canonical name -> text as given) laid over it field by field. Memory sizes take runc's
// suffixes (256m, 1g; -1 is unlimited). Also drops what an update never touches (device
// rules are fixed at create) and reads runc's "0 means unchanged" for pids and blkio weight.
// Errors name the flag.
Result<oci::Resources> update_resources(std::optional<oci::Resources> json,
                                        const std::map<std::string, std::string>& flags);
// "256m" -> 268435456; "-1" -> -1 (unlimited). Binary units k m g t p, optional i and b.
Result<int64_t> parse_memory_size(const std::string& flag, const std::string& value);
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

// The features document of this build on a host (host::probe(host::Depth::features)).
oci::Features host_features(const host::Facts& host);

}  // namespace sh::lifecycle
