// pause / resume: freeze or thaw every process of the container (its cgroup freezer).
#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/pause.hpp"

namespace sh::cli {

const CommandTable kPauseTable{.name = "pause", .summary = "freeze every process of a container", .args = kIdArg};
const CommandTable kResumeTable{.name = "resume", .summary = "thaw a paused container", .args = kIdArg};

Result<int> cmd_pause(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kPauseTable, args, from));
  std::string id = TRY(one_id(p.positional, "pause"));
  TRYV(lifecycle::pause(g, id));
  return 0;
}

Result<int> cmd_resume(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kResumeTable, args, from));
  std::string id = TRY(one_id(p.positional, "resume"));
  TRYV(lifecycle::resume(g, id));
  return 0;
}

}  // namespace sh::cli
