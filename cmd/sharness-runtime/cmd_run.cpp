#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

Result<int> cmd_run(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto specs = create_flag_specs();
  specs.push_back({{"detach", "d"}, false});
  specs.push_back({{"keep"}, false});
  auto p = TRY(parse(specs, args, from));
  auto o = TRY(create_options(p));
  o.id = TRY(one_id(p.positional, "run"));
  if (p.flag("detach") && p.flag("keep")) return fail("--detach and --keep cannot be used together");
  return lifecycle::run(g, o, p.flag("detach"), p.flag("keep"));
}

}  // namespace sh::cli
