// `sharness-egress door --config FILE`: read everything, confine, serve (docs/egress.md, "The
// door's interface").
#include <csignal>
#include <cstdio>

#include "cmd/sharness-egress/commands.hpp"
#include "egress/door.hpp"
#include "egress/request_log.hpp"
#include "runtime/cli/args.hpp"

namespace sh::egress_cli {

int door(const std::vector<std::string>& args) {
  auto p = cli::parse({{{"config"}, true}}, args, 0);
  if (!p || !p->has("config") || !p->positional.empty()) {
    std::fprintf(stderr, "usage: sharness-egress door --config FILE\n%s", p ? "" : (p.error().what() + "\n").c_str());
    return 2;
  }
  // A peer gone before the door's last write (a close_notify to an upstream that closed) is an
  // error on that connection, never a signal that ends every other (OpenSSL writes with write()).
  ::signal(SIGPIPE, SIG_IGN);
  auto d = egress::open_door(p->get("config"));
  if (!d) {
    std::fprintf(stderr, "sharness-egress door: %s\n", d.error().what().c_str());
    return 1;
  }
  auto bound = egress::confine_door(**d);
  if (!bound) {
    std::fprintf(stderr, "sharness-egress door: confine: %s\n", bound.error().what().c_str());
    return 1;
  }
  egress::log_door("info", "door serving container " + (*d)->container + " (" + std::to_string((*d)->policy.rules.size()) +
                               " rules; " + *bound + ")");
  return egress::serve(**d);
}

}  // namespace sh::egress_cli
