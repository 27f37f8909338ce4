// `sharness-egress up|down --root R [--config F]`: the container's createRuntime and poststop
// hooks (egress/up.cpp, egress/down.cpp), with the OCI state on stdin.
#include <cstdio>

#include "cmd/sharness-egress/commands.hpp"
#include "egress/commands.hpp"
#include "runtime/cli/args.hpp"

namespace sh::egress_cli {
namespace {

int hook(const char* name, Result<int> (*fn)(const edges::Opts&), const std::vector<std::string>& args) {
  auto r = [&]() -> Result<int> {
    auto p = TRY(cli::parse({{{"root"}, true}, {{"config"}, true}}, args, 0));
    if (!p.positional.empty()) return fail("unexpected argument \"" + p.positional[0] + "\"");
    if (!p.has("root")) return fail("--root is required");
    return fn(edges::Opts{p.get("root"), p.get("config")});
  }();
  if (r) return *r;
  std::fprintf(stderr, "sharness-egress %s: %s\n", name, r.error().what().c_str());
  return 1;
}

}  // namespace

int up(const std::vector<std::string>& args) { return hook("up", egress::up, args); }
int down(const std::vector<std::string>& args) { return hook("down", egress::down, args); }

}  // namespace sh::egress_cli
