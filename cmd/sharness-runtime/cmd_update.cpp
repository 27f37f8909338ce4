// update: change a container's cgroup limits from a resources document (--resources FILE,
// or - for stdin) and/or runc's per-field flags, which override the document's fields.
#include <unistd.h>

#include "base/file.hpp"
#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/update.hpp"

namespace sh::cli {
namespace {
constexpr std::array kFlags{
    Flag{.name = "resources", .alias = "r", .value = "FILE",
         .help = "a linux.resources document (JSON) to apply, or - for stdin", .completes = Completes::file},
    Flag{.name = "memory", .value = "BYTES", .help = "memory limit (suffixes k, m, g; -1: unlimited)"},
    Flag{.name = "memory-reservation", .value = "BYTES", .help = "memory soft limit"},
    Flag{.name = "memory-swap", .value = "BYTES", .help = "memory plus swap limit (-1: unlimited)"},
    Flag{.name = "kernel-memory", .value = "BYTES", .help = "kernel memory limit (cgroup v1; deprecated)"},
    Flag{.name = "kernel-memory-tcp", .value = "BYTES", .help = "kernel TCP buffer limit (cgroup v1; deprecated)"},
    Flag{.name = "cpu-share", .alias = "cpu-shares", .value = "N", .help = "CPU shares (relative weight)"},
    Flag{.name = "cpu-period", .value = "USEC", .help = "CPU CFS period in microseconds"},
    Flag{.name = "cpu-quota", .value = "USEC", .help = "CPU CFS quota in microseconds per period (-1: none)"},
    Flag{.name = "cpu-rt-period", .value = "USEC", .help = "CPU realtime period in microseconds"},
    Flag{.name = "cpu-rt-runtime", .value = "USEC", .help = "CPU realtime runtime in microseconds per period"},
    Flag{.name = "cpuset-cpus", .value = "LIST", .help = "the CPUs the container may use (0-3,5)"},
    Flag{.name = "cpuset-mems", .value = "LIST", .help = "the memory nodes the container may use (0-1)"},
    Flag{.name = "pids-limit", .value = "N", .help = "maximum number of processes (-1: unlimited; 0: unchanged)"},
    Flag{.name = "blkio-weight", .value = "N", .help = "block IO weight, 10 to 1000 (0: unchanged)"},
    Flag{.name = "l3-cache-schema", .value = "SCHEMA", .help = "Intel RDT L3 cache schema: refused (no RDT support)"},
    Flag{.name = "mem-bw-schema", .value = "SCHEMA", .help = "Intel RDT memory bandwidth schema: refused (no RDT support)"},
};
}  // namespace

// Every flag but --resources is one of lifecycle::update_flags() (tests/unit/test_cli_table.cpp
// checks both lists agree); the flags override the document's fields.
const CommandTable kUpdateTable{
    .name = "update",
    .summary = "change a container's cgroup limits",
    .args = kIdArg,
    .flags = kFlags,
};

Result<int> cmd_update(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kUpdateTable, args, from));
  std::string id = TRY(one_id(p.positional, "update"));

  std::optional<oci::Resources> doc;
  if (p.has("resources")) {
    std::string path = p.get("resources");
    if (path.empty()) return fail("update: --resources needs a file path or -");
    std::string origin = path == "-" ? "stdin" : path;
    std::string text = path == "-" ? TRY(read_fd(STDIN_FILENO, "resources from stdin")) : TRYC("update: --resources", read_file(path));
    doc = TRY(oci::parse_resources_json(text, origin));
  }
  std::map<std::string, std::string> flags;
  for (const auto& names : lifecycle::update_flags())
    if (p.has(names.front())) flags[names.front()] = p.get(names.front());
  auto res = TRY(lifecycle::update_resources(std::move(doc), flags));
  TRYV(lifecycle::update(g, id, res));
  return 0;
}

}  // namespace sh::cli
