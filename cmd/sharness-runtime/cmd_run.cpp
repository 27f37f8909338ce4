#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {
namespace {
constexpr std::array kArgs{Arg{.name = "<container-id>", .help = "a name for the container, unique in --root"}};
constexpr auto kFlags = join_flags(
    kCreateFlags,
    std::array{Flag{.name = "detach", .alias = "d", .help = "return once the container runs, leaving it running"},
               Flag{.name = "keep", .help = "keep the container's state after it exits (not with --detach)"}});
}  // namespace

const CommandTable kRunTable{
    .name = "run",
    .summary = "create and start a container, and wait for it",
    .args = kArgs,
    .flags = kFlags,
    .description = "create then start: without --detach, waits for the container's process and exits with its\n"
                   "status, then deletes the container (unless --keep).",
};

Result<int> cmd_run(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kRunTable, args, from));
  auto o = TRY(create_options(p));
  o.id = TRY(one_id(p.positional, "run"));
  if (p.flag("detach") && p.flag("keep")) return fail("--detach and --keep cannot be used together");
  return lifecycle::run(g, o, p.flag("detach"), p.flag("keep"));
}

}  // namespace sh::cli
