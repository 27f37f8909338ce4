#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/linux/signals.hpp"

namespace sh::cli {
namespace {
constexpr std::array kArgs{
    Arg{.name = "<container-id>", .help = "the container", .completes = Completes::container},
    Arg{.name = "[signal]", .help = "a signal name (KILL, SIGKILL) or number (default: SIGTERM)",
        .completes = Completes::signal}};
constexpr std::array kFlags{Flag{.name = "all", .alias = "a", .help = "send the signal to every process of the container"}};
}  // namespace

const CommandTable kKillTable{
    .name = "kill", .summary = "send a signal to the container's init process", .args = kArgs, .flags = kFlags};

Result<int> cmd_kill(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kKillTable, args, from));
  if (p.positional.empty() || p.positional.size() > 2)
    return fail("kill: usage: kill [--all] <container-id> [signal]");
  int sig = TRY(signals::parse(p.positional.size() == 2 ? p.positional[1] : "SIGTERM"));
  TRYV(lifecycle::kill(g, p.positional[0], sig, p.flag("all")));
  return 0;
}

}  // namespace sh::cli
