// The floor a container was created under, held against its later callers: `exec` and
// `update` (DESIGN.md §3: "exec and update are held to the floor too").
//
// create writes it (floor.json in the container's state dir, 0600, next to state.json) only
// when a policy was applied, from what the runtime itself applied: the policy's id and hash,
// and the tightened process (user, capabilities, noNewPrivileges, rlimits, oomScoreAdj,
// scheduler, ioPriority) and linux.resources that init got. It is the runtime's own record,
// never read from a bundle: a client's `sharness` block in config.json plays no part in it.
// The record's `floor` flag says it must exist, so a missing or unreadable floor fails exec
// and update closed.
//
// It also keeps what the client's config.json asked for at create (`asked`), before the
// policy tightened it. Real clients build an exec process or an update from the container's
// spec as they wrote it (Docker, containerd's ctr and CRI, Podman): a value that repeats the
// client's own create-time value is tightened exactly as create tightened it, never refused.
// Anything else beyond the floor is refused with an error naming the bound and the floor's
// value. Explicit CLI flags (`exec --user`, `--cap`, `--additional-gids`) are requests, never
// repeats: beyond the floor they are always refused. docs/policy.md states the rule.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "runtime/lifecycle/state_store.hpp"

namespace sh::policy {
struct Extension;
}

namespace sh::lifecycle {

struct Floor {
  std::string policy_id, policy_hash;
  bool fixes_uid = false;  // the policy set the uid (a fixed one, or the ephemeral uid claimed at create)
  bool fixes_gid = false;
  // What create applied: process.{user, capabilities, noNewPrivileges, rlimits, oomScoreAdj,
  // scheduler, ioPriority}, linux.resources.
  oci::Process applied;
  oci::Resources applied_resources;
  // What the client's config.json asked for, before the policy: only decides "repeat" (tighten
  // as create did) against "request" (refuse); it never grants anything.
  oci::Process asked;
  oci::Resources asked_resources;
};

// Which identity fields the policy fixed (from the policy, or assumed fixed for a config that
// `policy apply` tightened already, whose user the runtime cannot tell from the bundle's).
struct FloorIdentity {
  bool uid = false, gid = false;
};

// The floor of a container create is making: `applied` is the tightened config (with the
// claimed ephemeral uid), `asked_*` the bundle's process and resources before the policy.
Floor make_floor(const policy::Extension& ext, FloorIdentity fixed, const oci::Config& applied,
                 const oci::Process& asked_process, const std::optional<oci::Resources>& asked_resources);

std::string floor_to_json(const Floor& f);
Result<Floor> parse_floor(std::string_view text, const std::string& origin);

// floor.json in the container's state dir.
Result<void> save_floor(const ContainerDir& dir, const Floor& f);
// The record's floor, or none when the container was created without a policy.
Result<std::optional<Floor>> load_floor(const ContainerDir& dir, const Record& rec);

// What of an exec's process came from explicit CLI flags: held strictly, never read as a repeat.
struct ExecFlags {
  bool user = false;             // --user
  bool additional_gids = false;  // --additional-gids
  std::vector<std::string> caps; // --cap
};

// Hold an exec's process to the floor: capabilities within the floor's set (an absent
// bounding set becomes it), the floor's uid and gid, noNewPrivileges forced on when the floor
// set it, every floor rlimit present and no hard limit above it; oomScoreAdj not below the
// floor's, no real-time scheduler but the floor's, no nice below it, no I/O priority above it
// (absent on the floor: 0, nice 0, best-effort 4). Refuses what goes beyond.
Result<void> hold_exec(const Floor& f, oci::Process& p, const ExecFlags& flags);

// Hold an update's resources to the floor: no limit above (or removed past) the floor's,
// cpusets within the floor's, CPU bandwidth (quota/period) no larger; lowering is allowed.
// A quota or period given alone is completed with the floor's other half, so the ratio
// checked is the one written.
Result<void> hold_update(const Floor& f, oci::Resources& r);

// "0-3,5" -> {0,1,2,3,5}; `what` names the value in errors. Numbers above 65535 are refused.
Result<std::vector<unsigned>> parse_cpu_list(std::string_view list, const std::string& what);

}  // namespace sh::lifecycle
