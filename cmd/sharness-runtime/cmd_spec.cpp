#include <fcntl.h>

#include "base/file.hpp"
#include "oci/default_spec.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {
namespace {
constexpr std::array kFlags{
    Flag{.name = "bundle", .alias = "b", .value = "DIR",
         .help = "directory to write config.json in (default: the current directory)", .completes = Completes::directory},
    Flag{.name = "rootless", .help = "a spec for a container run by an unprivileged user"}};
}  // namespace

const CommandTable kSpecTable{
    .name = "spec",
    .summary = "write a default config.json (never over an existing one)",
    .flags = kFlags,
};

Result<int> cmd_spec(const lifecycle::Globals&, const Args& args, size_t from) {
  auto p = TRY(parse(kSpecTable, args, from));
  std::string dir = p.get("bundle", ".");
  std::string path = dir + "/config.json";
  // Like runc: never overwrite an existing config.
  TRYV(write_file(path, oci::default_spec_json(p.flag("rootless")) + "\n", O_WRONLY | O_CREAT | O_EXCL, 0644));
  return 0;
}

}  // namespace sh::cli
