// update: apply new cgroup limits to a container that is not stopped; the parsing of runc's
// per-field flags lives here so unit tests reach it.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::lifecycle {

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

}  // namespace sh::lifecycle
