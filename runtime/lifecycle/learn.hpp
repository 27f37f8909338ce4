// policy learn's run (docs/learn.md): the bundle's process, created and started by the
// lifecycle's own create and start in recording mode (CreateOptions::learn), under --from without
// the sections being learned, waited for, and what it did.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"
#include "spec-mapping/learn.hpp"

namespace sh::lifecycle {

struct LearnOptions {
  std::string bundle;
  std::optional<policy::Policy> from;  // the bounds the run is held to (recording_floor of it)
  std::optional<unsigned> seconds;     // end the run (SIGKILL) after this long: a server's window
};

struct LearnRun {
  policy::Trace trace;
  std::map<std::string, std::string> sha256;  // every trace.execs entry, hashed in the bundle's rootfs
  int exit_code = 0;                           // as run reports it (128+signal when killed)
  bool ended_by_seconds = false;               // --seconds ran out (then exit_code is the kill's)
  std::string command;                         // process.args, for the description
};

Result<LearnRun> learn_run(const Globals& g, const LearnOptions& o);

}  // namespace sh::lifecycle
