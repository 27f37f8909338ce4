#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/linux/signals.hpp"

namespace sh::cli {

Result<int> cmd_kill(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse({{{"all", "a"}, false}, {{"help", "h"}, false}}, args, from));
  if (p.positional.empty() || p.positional.size() > 2)
    return fail("kill: usage: kill [--all] <container-id> [signal]");
  int sig = TRY(signals::parse(p.positional.size() == 2 ? p.positional[1] : "SIGTERM"));
  TRYV(lifecycle::kill(g, p.positional[0], sig, p.flag("all")));
  return 0;
}

}  // namespace sh::cli
