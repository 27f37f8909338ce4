// `ca init|show|rotate|issue|revoke`: the certificate authority behind per-edge mutual TLS. The
// work is `sharness-edge ca` (cmd/sharness-edge/ca_cli.cpp), where the X.509 code lives; this picks the CA
// directory (--dir, else the runtime config's caDir, else <root>/.ca), names the state root whose
// live registry `issue` and `revoke` change (edges/live.hpp), and hands over.
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::cli {
namespace {
constexpr std::array kArgs{Arg{.name = "<subcommand>", .help = "init, show, rotate, issue or revoke",
                               .completes = Completes::choices, .choices = "init show rotate issue revoke"}};
constexpr std::array kFlags{
    Flag{.name = "dir", .value = "DIR", .help = "the CA directory (default: the runtime config's caDir, else ROOT/.ca)",
         .completes = Completes::directory},
    Flag{.name = "role", .value = "ROLE", .help = "issue: the leaf's role", .only = "issue"},
    Flag{.name = "name", .value = "NAME", .help = "issue, revoke: the leaf's name (a container id)", .only = "issue revoke"},
    Flag{.name = "out", .value = "DIR", .help = "issue: the directory the leaf's key and certificate go to",
         .completes = Completes::directory, .only = "issue"},
    Flag{.name = "seconds", .value = "N", .help = "issue: the leaf's lifetime in seconds", .only = "issue"},
    Flag{.name = "backdate", .value = "N", .help = "issue: start the leaf's validity N seconds ago", .only = "issue"},
    Flag{.name = "owner", .value = "UID:GID", .help = "issue: the owner of the files written (default: the caller)",
         .only = "issue"},
    Flag{.name = "root", .value = "DIR", .help = "the state root whose live leaf registry issue and revoke change",
         .completes = Completes::directory},
    Flag{.name = "init", .help = "issue: make the CA first if there is none", .only = "issue"}};
}  // namespace

// The flags are parsed by `sharness-edge ca` (cmd/sharness-edge/ca_cli.cpp); conformance/suites/cli.sh checks
// that its parser and this table agree.
const CommandTable kCaTable{
    .name = "ca",
    .summary = "the certificate authority of edge mutual TLS: init, show, rotate, issue, revoke",
    .args = kArgs,
    .flags = kFlags,
};

Result<int> cmd_ca(const lifecycle::Globals& g, const Args& args, size_t from) {
  std::vector<std::string> out{"ca"};
  bool has_dir = false, has_root = false;
  for (size_t i = from; i < args.size(); ++i) {
    has_dir = has_dir || args[i] == "--dir" || args[i].starts_with("--dir=");
    has_root = has_root || args[i] == "--root" || args[i].starts_with("--root=");
    out.push_back(args[i]);
  }
  if (!has_root) out.insert(out.end(), {"--root", g.root});
  if (!has_dir) {
    auto rc = TRY(lifecycle::load_runtime_config(g.config_path.empty() ? lifecycle::kDefaultRuntimeConfig : g.config_path,
                                                 !g.config_path.empty()));
    out.insert(out.end(), {"--dir", lifecycle::ca_dir(rc, g.root)});
  }
  TRYV(sealed_exe::exec_sibling("sharness-edge", out));
  return 1;
}

}  // namespace sh::cli
