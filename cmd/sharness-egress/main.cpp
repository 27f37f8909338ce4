// sharness-egress: the egress door (docs/egress.md) and what starts it.
//
//   sharness-egress door --config FILE   serve on fd 3, log to fd 4 (egress/door.hpp)
//
// A table of subcommands, one file each (commands.hpp): the sidecar's own (up, down, ca) are
// added beside `door`.
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
