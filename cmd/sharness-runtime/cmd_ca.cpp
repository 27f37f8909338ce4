// `ca init|show|rotate|issue|revoke`: the certificate authority behind per-edge mutual TLS. The
// work is `sharness-edge ca` (edges/ca_cli.cpp), where the X.509 code lives; this picks the CA
// directory (--dir, else the runtime config's caDir, else <root>/.ca), names the state root whose
// live registry `issue` and `revoke` change (edges/live.hpp), and hands over.
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::cli {

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
