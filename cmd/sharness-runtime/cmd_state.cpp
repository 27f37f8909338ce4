#include <cstdio>

#include "oci/state.hpp"
#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

const CommandTable kStateTable{.name = "state", .summary = "print the state of a container (JSON)", .args = kIdArg};

Result<int> cmd_state(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kStateTable, args, from));
  auto s = TRY(lifecycle::state(g, TRY(one_id(p.positional, "state"))));
  std::string out = oci::state_command_json(s);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fputc('\n', stdout);
  return 0;
}

}  // namespace sh::cli
