// features: the runtime-spec features document of this build on this host.
#include <cstdio>

#include "oci/features.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/features.hpp"
#include "runtime/linux/host_facts.hpp"

namespace sh::cli {

const CommandTable kFeaturesTable{
    .name = "features", .summary = "print the runtime-spec features document of this build on this host"};

Result<int> cmd_features(const lifecycle::Globals&, const Args& args, size_t from) {
  auto p = TRY(parse(kFeaturesTable, args, from));
  if (!p.positional.empty()) return fail("features: takes no arguments (got \"" + p.positional[0] + "\")");
  std::string doc = oci::features_json(lifecycle::host_features(host::probe(host::Depth::features)));
  std::printf("%s%s", doc.c_str(), doc.ends_with('\n') ? "" : "\n");
  return 0;
}

}  // namespace sh::cli
