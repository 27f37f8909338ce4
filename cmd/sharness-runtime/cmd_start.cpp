#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

const CommandTable kStartTable{.name = "start", .summary = "start the user process of a created container", .args = kIdArg};

Result<int> cmd_start(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kStartTable, args, from));
  TRYV(lifecycle::start(g, TRY(one_id(p.positional, "start"))));
  return 0;
}

}  // namespace sh::cli
