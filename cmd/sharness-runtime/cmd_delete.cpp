#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

Result<int> cmd_delete(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse({{{"force", "f"}, false}, {{"help", "h"}, false}}, args, from));
  TRYV(lifecycle::remove(g, TRY(one_id(p.positional, "delete")), p.flag("force")));
  return 0;
}

}  // namespace sh::cli
