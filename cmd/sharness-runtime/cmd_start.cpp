#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

Result<int> cmd_start(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse({{{"help", "h"}, false}}, args, from));
  TRYV(lifecycle::start(g, TRY(one_id(p.positional, "start"))));
  return 0;
}

}  // namespace sh::cli
