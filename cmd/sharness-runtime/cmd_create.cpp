#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {
namespace {
constexpr std::array kArgs{Arg{.name = "<container-id>", .help = "a name for the container, unique in --root"}};
}  // namespace

const CommandTable kCreateTable{
    .name = "create",
    .summary = "create a container (its process waits for start)",
    .args = kArgs,
    .flags = kCreateFlags,
    .description = "Creates the container from the bundle's config.json: namespaces, cgroup, rootfs and the\n"
                   "bounds of the operator's policy. The user process waits until `start`.",
};

std::vector<FlagSpec> create_flag_specs() { return flag_specs(kCreateTable); }

Result<lifecycle::CreateOptions> create_options(const Parsed& p) {
  lifecycle::CreateOptions o;
  o.bundle = p.get("bundle");
  o.pid_file = p.get("pid-file");
  o.console_socket = p.get("console-socket");
  o.no_pivot = p.flag("no-pivot");
  o.no_new_keyring = p.flag("no-new-keyring");
  if (p.has("preserve-fds")) o.preserve_fds = TRY(to_unsigned("preserve-fds", p.get("preserve-fds")));
  return o;
}

Result<int> cmd_create(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kCreateTable, args, from));
  auto o = TRY(create_options(p));
  o.id = TRY(one_id(p.positional, "create"));
  TRY(lifecycle::create(g, o));
  return 0;
}

}  // namespace sh::cli
