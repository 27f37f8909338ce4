// sharness-egress: the egress door (docs/egress.md) and what starts it.
//
//   sharness-egress door --config FILE   serve on fd 3, log to fd 4 (egress/door.hpp)
//   sharness-egress ca init --name ID --dir DIR --trust DIR   the per-container CA (egress/ca.hpp)
//   sharness-egress up|down --root R [--config F]             the container's hooks (egress/up.cpp)
//
// A table of subcommands, one file each (commands.hpp).
#include <cstdio>
#include <cstring>

#include "cmd/sharness-egress/commands.hpp"

namespace {

struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
  const char* usage;
};

constexpr Command kCommands[] = {
    {"door", sh::egress_cli::door, "door --config FILE   serve on fd 3 (listener), log to fd 4"},
    {"ca", sh::egress_cli::ca, "ca init --name ID --dir DIR --trust DIR   the per-container CA, for create"},
    {"up", sh::egress_cli::up, "up --root R [--config F]   createRuntime hook: start the container's door"},
    {"down", sh::egress_cli::down, "down --root R [--config F]   poststop hook: stop it"},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2)
    for (const auto& c : kCommands)
      if (std::strcmp(argv[1], c.name) == 0) return c.run(std::vector<std::string>(argv + 2, argv + argc));
  std::fprintf(stderr, "usage:\n");
  for (const auto& c : kCommands) std::fprintf(stderr, "  sharness-egress %s\n", c.usage);
  return 2;
}
