// events: the container's stats once (--stats), or a stream of stats every --interval with
// oom events in between, until the container stops; or (--denials) its denials record
// (docs/denials.md), followed until it stops. One JSON object per line.
#include <cstdio>

#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/cgroup_reads.hpp"
#include "runtime/lifecycle/denial_reader.hpp"

namespace sh::cli {
namespace {

// A reader that went away ends the stream quietly.
bool emit_line(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  return std::fflush(stdout) == 0;
}

constexpr std::array kFlags{
    Flag{.name = "stats", .help = "print the container's stats once, then exit"},
    Flag{.name = "interval", .value = "DURATION", .help = "time between stats lines, as 500ms, 5s, 1m (default: 5s)"},
    Flag{.name = "denials", .help = "stream the seccomp and Landlock denials recorded for it instead (docs/denials.md)"}};

}  // namespace

const CommandTable kEventsTable{
    .name = "events",
    .summary = "stream a container's stats and oom events, or its denials (JSON lines)",
    .args = kIdArg,
    .flags = kFlags,
};

Result<int> cmd_events(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kEventsTable, args, from));
  std::string id = TRY(one_id(p.positional, "events"));
  if (p.flag("denials")) {
    TRYV(lifecycle::follow_denials(g, id, emit_line));
    return 0;
  }
  auto interval = TRY(lifecycle::parse_duration("interval", p.get("interval", "5s")));
  if (p.flag("stats")) {
    auto s = TRY(lifecycle::stats(g, id));
    emit_line(lifecycle::stats_event_json(id, s));
    return 0;
  }
  TRYV(lifecycle::events(g, id, interval, emit_line));
  return 0;
}

}  // namespace sh::cli
