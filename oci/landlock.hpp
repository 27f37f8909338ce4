// The process.landlock block of config.json, in the shape of the open runtime-spec Landlock
// proposal (runtime-spec PRs #1111/#1241), extended with network port rules and scopes:
//
//   "landlock": {
//     "ruleset": {
//       "handledAccessFS": ["execute", "read_file", "read_dir", "write_file", ...],
//       "handledAccessNet": ["bind_tcp", "connect_tcp"],
//       "scoped": ["abstract_unix_socket", "signal"]
//     },
//     "rules": {
//       "pathBeneath": [{"allowedAccess": ["read_file", "read_dir"], "paths": ["/usr", "/etc"]}],
//       "netPort": [{"allowedAccess": ["connect_tcp"], "ports": [443]}]
//     },
//     "disableBestEffort": false
//   }
//
// This is the typed model and its strict parser (a typo in a sandbox is a hole, so unknown
// keys and rights are errors naming the JSON path). What the running kernel can enforce is
// runtime/linux/landlock's business; docs/landlock.md is the reference.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/json.hpp"

namespace sh::oci {

enum class LandlockKind { fs, net, scope };

// One right (or scope) by its proposal name, with the kernel's bit for it (uapi
// linux/landlock.h, stable ABI values) and the Landlock ABI version that introduced it.
struct LandlockRight {
  std::string_view name;  // "read_file"
  LandlockKind kind;
  uint64_t bit;
  int abi;
};

// Bits and ABI versions from the kernel's uapi linux/landlock.h and
// Documentation/userspace-api/landlock.rst ("Previous limitations"); ABI 7 added only
// audit-logging flags, no right.
inline constexpr std::array<LandlockRight, 20> kLandlockRights{{
    {"execute", LandlockKind::fs, 1ull << 0, 1},
    {"write_file", LandlockKind::fs, 1ull << 1, 1},
    {"read_file", LandlockKind::fs, 1ull << 2, 1},
    {"read_dir", LandlockKind::fs, 1ull << 3, 1},
    {"remove_dir", LandlockKind::fs, 1ull << 4, 1},
    {"remove_file", LandlockKind::fs, 1ull << 5, 1},
    {"make_char", LandlockKind::fs, 1ull << 6, 1},
    {"make_dir", LandlockKind::fs, 1ull << 7, 1},
    {"make_reg", LandlockKind::fs, 1ull << 8, 1},
    {"make_sock", LandlockKind::fs, 1ull << 9, 1},
    {"make_fifo", LandlockKind::fs, 1ull << 10, 1},
    {"make_block", LandlockKind::fs, 1ull << 11, 1},
    {"make_sym", LandlockKind::fs, 1ull << 12, 1},
    {"refer", LandlockKind::fs, 1ull << 13, 2},
    {"truncate", LandlockKind::fs, 1ull << 14, 3},
    {"ioctl_dev", LandlockKind::fs, 1ull << 15, 5},
    {"bind_tcp", LandlockKind::net, 1ull << 0, 4},
    {"connect_tcp", LandlockKind::net, 1ull << 1, 4},
    {"abstract_unix_socket", LandlockKind::scope, 1ull << 0, 6},
    {"signal", LandlockKind::scope, 1ull << 1, 6},
}};

// Every right this build knows (kLandlockRights), in the kernel's bit order: fs, net, scopes.
std::span<const LandlockRight> landlock_rights();
// nullptr when `name` is no right of that kind.
const LandlockRight* find_landlock_right(LandlockKind kind, std::string_view name);
// Names of the bits set in `mask`, in table order.
std::vector<std::string> landlock_names(LandlockKind kind, uint64_t mask);
// "fs right", "net right", "scope".
const char* landlock_kind_noun(LandlockKind kind);
// The first Linux release with Landlock ABI `abi`: "6.2" for 3; "" for an ABI this build does
// not know.
std::string_view landlock_abi_linux(int abi);

// Filesystem rights that apply to a file (not only to a directory's content). The kernel
// refuses a rule on a non-directory that carries any other right.
inline constexpr uint64_t kLandlockFileRights = (1ull << 0)     // execute
                                                | (1ull << 1)   // write_file
                                                | (1ull << 2)   // read_file
                                                | (1ull << 14)  // truncate
                                                | (1ull << 15); // ioctl_dev

// rules.pathBeneath[i]: `allowed` on every file hierarchy under `paths`.
struct LandlockPathRule {
  uint64_t allowed = 0;            // LANDLOCK_ACCESS_FS_* bits
  std::vector<std::string> paths;  // absolute, container paths (resolved after pivot_root)
  bool operator==(const LandlockPathRule&) const = default;
};

// rules.netPort[i]: `allowed` on every TCP port of `ports`.
struct LandlockPortRule {
  uint64_t allowed = 0;          // LANDLOCK_ACCESS_NET_* bits
  std::vector<uint16_t> ports;
  bool operator==(const LandlockPortRule&) const = default;
};

// A right that another bound of the same policy covers when the kernel lacks it (the policy
// layer decides: spec-mapping/landlock_standin). `by` names that bound: "the pid namespace".
struct LandlockStandIn {
  LandlockKind kind = LandlockKind::fs;
  uint64_t bit = 0;
  std::string by;
  bool operator==(const LandlockStandIn&) const = default;
};

struct LandlockConfig {
  uint64_t handled_fs = 0;   // ruleset.handledAccessFS: denied unless a rule allows
  uint64_t handled_net = 0;  // ruleset.handledAccessNet
  uint64_t scoped = 0;       // ruleset.scoped: IPC cut off at the domain's edge
  std::vector<LandlockPathRule> path_beneath;
  std::vector<LandlockPortRule> net_port;
  // false (default): rights the kernel lacks are dropped and reported; true: refuse to run.
  bool disable_best_effort = false;
  // Not in the JSON: set by the runtime for a policy's block (sharness.landlock), whose
  // rule paths must not pass through a symlink, so that lexical composition is exact.
  bool canonical_paths = false;
  // Not in the proposal's JSON (never read from process.landlock): a policy's block lists the
  // rights another of its bounds stands in for; a kernel that lacks one of them drops it
  // without refusing, even with disableBestEffort, and says by what it is held.
  std::vector<LandlockStandIn> stand_ins;
  bool operator==(const LandlockConfig&) const = default;
};

// Parse the block from its JSON text. `origin` is the block's own path and leads every
// error: "config.json: process.landlock" gives
// `config.json: process.landlock.rules.pathBeneath[1].allowedAccess[0]: unknown access right "wirte_file"`.
Result<LandlockConfig> parse_landlock(std::string_view json_text, const std::string& origin);
// The same from a node of a document already parsed (errors use the node's path).
Result<LandlockConfig> parse_landlock(const json::Value& v);

// Back to the proposal's JSON (names in table order, empty sections left out), so that a
// policy can write the block and `parse_landlock(landlock_to_json(c))` gives `c` again.
void write_landlock(json::Writer& w, const LandlockConfig& c);
std::string landlock_to_json(const LandlockConfig& c, bool pretty = false);

}  // namespace sh::oci
