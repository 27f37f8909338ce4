// One function per command; each parses its flags with its table (runtime/cli/table.hpp) and
// calls the lifecycle library. They return the process exit code; errors come back as sh::Error
// for the one sink in main.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runtime/cli/args.hpp"
#include "runtime/cli/table.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::cli {

using Args = std::vector<std::string>;
using Command = Result<int> (*)(const lifecycle::Globals&, const Args& args, size_t from);

struct CommandInfo {
  const CommandTable& table;
  Command fn;
};

Result<int> cmd_create(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_start(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_run(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_state(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_kill(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_delete(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_list(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_spec(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_checkpoint(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_restore(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_exec(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_ps(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_pause(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_resume(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_update(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_events(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_features(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_policy(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_hello(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_ca(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_kms(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_help(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_man(const lifecycle::Globals&, const Args&, size_t);
Result<int> cmd_completion(const lifecycle::Globals&, const Args&, size_t);

// Each command's table, beside its function in cmd_*.cpp; the global flags' in commands.cpp.
extern const CommandTable kGlobalTable, kCreateTable, kStartTable, kRunTable, kStateTable, kKillTable,
    kDeleteTable, kListTable, kSpecTable, kExecTable, kPsTable, kPauseTable, kResumeTable, kUpdateTable,
    kEventsTable, kFeaturesTable, kPolicyTable, kHelloTable, kCaTable, kKmsTable, kCheckpointTable,
    kRestoreTable, kHelpTable, kManTable, kCompletionTable;

// Every command, in the order --help lists them.
const std::vector<CommandInfo>& commands();
const CommandInfo* find_command(const std::string& name);
// Exactly one positional argument, the container id.
Result<std::string> one_id(const std::vector<std::string>& positional, const char* cmd);
// `CMD --help` or `-h` among the command's own flags (before "--", and before the container id
// for a command whose flags end there).
bool wants_help(const CommandTable& t, const Args& args, size_t from);

}  // namespace sh::cli

namespace sh::cli {
// Flags shared by create and run (kCreateTable's), and their conversion to CreateOptions.
std::vector<FlagSpec> create_flag_specs();
Result<lifecycle::CreateOptions> create_options(const Parsed& p);
// exec's flags (also parsed by the CLI fuzz target).
const std::vector<FlagSpec>& exec_flag_specs();
}  // namespace sh::cli
