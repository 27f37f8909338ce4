// `sharness-egress ca init --name ID --dir DIR --trust DIR`: the per-container CA (egress/ca.hpp),
// run by create's egress sidecar, so that the runtime binary carries no X.509 code.
#include <cstdio>

#include "cmd/sharness-egress/commands.hpp"
#include "egress/ca.hpp"
#include "runtime/cli/args.hpp"

namespace sh::egress_cli {

int ca(const std::vector<std::string>& args) {
  auto r = [&]() -> Result<void> {
    auto p = TRY(cli::parse({{{"name"}, true}, {{"dir"}, true}, {{"trust"}, true}}, args, 0));
    if (p.positional.size() != 1 || p.positional[0] != "init") return fail("the one subcommand is init");
    if (!p.has("name") || !p.has("dir") || !p.has("trust")) return fail("init: --name ID, --dir DIR and --trust DIR are required");
    return egress::make_door_ca(p.get("dir"), p.get("trust"), p.get("name"));
  }();
  if (r) return 0;
  std::fprintf(stderr, "sharness-egress ca: %s\n", r.error().what().c_str());
  return 1;
}

}  // namespace sh::egress_cli
