#include <fcntl.h>

#include "base/file.hpp"
#include "oci/default_spec.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {

Result<int> cmd_spec(const lifecycle::Globals&, const Args& args, size_t from) {
  auto p = TRY(parse({{{"bundle", "b"}, true}, {{"rootless"}, false}, {{"help", "h"}, false}}, args, from));
  std::string dir = p.get("bundle", ".");
  std::string path = dir + "/config.json";
  // Like runc: never overwrite an existing config.
  TRYV(write_file(path, oci::default_spec_json(p.flag("rootless")) + "\n", O_WRONLY | O_CREAT | O_EXCL, 0644));
  return 0;
}

Result<int> cmd_checkpoint(const lifecycle::Globals&, const Args&, size_t) {
  // Podman probes `checkpoint --help`: it must fail while checkpointing is unsupported.
  return fail("checkpoint/restore is not supported by sharness-runtime");
}

}  // namespace sh::cli
