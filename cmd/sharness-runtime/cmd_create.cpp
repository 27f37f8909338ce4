#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

std::vector<FlagSpec> create_flag_specs() {
  return {{{"bundle", "b"}, true},       {{"pid-file"}, true},       {{"console-socket"}, true},
          {{"no-pivot"}, false},         {{"no-new-keyring"}, false}, {{"preserve-fds"}, true},
          {{"help", "h"}, false}};
}

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
  auto p = TRY(parse(create_flag_specs(), args, from));
  auto o = TRY(create_options(p));
  o.id = TRY(one_id(p.positional, "create"));
  TRY(lifecycle::create(g, o));
  return 0;
}

}  // namespace sh::cli
