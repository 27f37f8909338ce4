#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {
namespace {
constexpr std::array kFlags{
    Flag{.name = "force", .alias = "f", .help = "kill the container (SIGKILL) if it still runs, then delete it"}};
}  // namespace

const CommandTable kDeleteTable{
    .name = "delete", .summary = "delete a container and everything it holds", .args = kIdArg, .flags = kFlags};

Result<int> cmd_delete(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kDeleteTable, args, from));
  TRYV(lifecycle::remove(g, TRY(one_id(p.positional, "delete")), p.flag("force")));
  return 0;
}

}  // namespace sh::cli
