// sharness-edge: the per-container edge proxy of per-edge mutual TLS (docs/edges.md).
//
//   sharness-edge up   --root R [--config F]   createRuntime hook (OCI state on stdin): edges/up.cpp
//   sharness-edge down --root R [--config F]   poststop hook (OCI state on stdin): edges/down.cpp
//   sharness-edge connect --cert-dir D --socket S --role R   one TLS client connection:
//                                               stdin -> peer, peer -> stdout (tests, tools)
//   sharness-edge ca init|show|rotate|issue|revoke --dir D ...   the CA (cmd/sharness-edge/ca_cli.cpp),
//                                               for `sharness-runtime ca` and `create`
//
// Connections between proxies are TLS 1.3 over the UNIX sockets of <root>/.edges/<role>/, or
// over TCP between containers that have networks; the plaintext legs never leave a container
// and its proxy.
#include <cstdio>

#include "cmd/sharness-edge/ca_cli.hpp"
#include "edges/commands.hpp"
#include "runtime/cli/args.hpp"

namespace {

sh::Result<int> dispatch(const sh::cli::Parsed& p) {
  const std::string& cmd = p.positional[0];
  sh::edges::Opts o{p.get("root"), p.get("config")};
  if ((cmd == "up" || cmd == "down") && o.root.empty()) return sh::fail(cmd + ": --root is required");
  if (cmd == "up") return sh::edges::up(o);
  if (cmd == "down") return sh::edges::down(o);
  if (cmd == "connect") {
    if (!p.has("cert-dir") || !p.has("socket") || !p.has("role"))
      return sh::fail("connect: --cert-dir DIR, --socket PATH and --role ROLE are required");
    return sh::edges::connect(p.get("cert-dir"), p.get("socket"), p.get("role"));
  }
  return sh::fail("unknown command \"" + cmd + "\"");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() >= 2 && args[1] == "ca") {
    auto r = sh::edges::ca_command(args, 2);
    if (!r) std::fprintf(stderr, "sharness-edge ca: %s\n", r.error().what().c_str());
    return r ? *r : 1;
  }
  auto p = sh::cli::parse({{{"root"}, true},
                           {{"config"}, true},
                           {{"cert-dir"}, true},
                           {{"socket"}, true},
                           {{"role"}, true}},
                          args, 1);
  if (!p || p->positional.size() != 1) {
    std::fprintf(stderr, "usage: sharness-edge up|down --root DIR [--config F] | connect --cert-dir D --socket S --role R"
                 " | ca init|show|rotate|issue|revoke --dir D ...\n%s\n",
                 p ? "" : p.error().what().c_str());
    return 2;
  }
  auto r = dispatch(*p);
  if (!r) {
    std::fprintf(stderr, "sharness-edge %s: %s\n", p->positional[0].c_str(), r.error().what().c_str());
    return 1;
  }
  return *r;
}
