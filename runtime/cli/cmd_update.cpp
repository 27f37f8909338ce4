// update: change a container's cgroup limits from a resources document (--resources FILE,
// or - for stdin) and/or runc's per-field flags, which override the document's fields.
#include <unistd.h>

#include "base/file.hpp"
#include "runtime/cli/commands.hpp"
#include "runtime/lifecycle/update.hpp"

namespace sh::cli {

Result<int> cmd_update(const lifecycle::Globals& g, const Args& args, size_t from) {
  std::vector<FlagSpec> specs = {{{"resources", "r"}, true}, {{"help", "h"}, false}};
  for (const auto& names : lifecycle::update_flags()) specs.push_back({names, true});
  auto p = TRY(parse(specs, args, from));
  std::string id = TRY(one_id(p.positional, "update"));

  std::optional<oci::Resources> doc;
  if (p.has("resources")) {
    std::string path = p.get("resources");
    if (path.empty()) return fail("update: --resources needs a file path or -");
    std::string origin = path == "-" ? "stdin" : path;
    std::string text = path == "-" ? TRY(read_fd(STDIN_FILENO, "resources from stdin")) : TRYC("update: --resources", read_file(path));
    doc = TRY(oci::parse_resources_json(text, origin));
  }
  std::map<std::string, std::string> flags;
  for (const auto& names : lifecycle::update_flags())
    if (p.has(names.front())) flags[names.front()] = p.get(names.front());
  auto res = TRY(lifecycle::update_resources(std::move(doc), flags));
  TRYV(lifecycle::update(g, id, res));
  return 0;
}

}  // namespace sh::cli
