// The registry of commands (each table with its function), the global flags' table, and the
// commands made from the tables themselves: `help`, and the hidden generators `__man` and
// `__completion` the build runs to make the man pages and the bash completion script.
#include "cmd/sharness-runtime/commands.hpp"

#include <cstdio>

#include "base/file.hpp"
#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/cmd_policy.hpp"
#include "cmd/sharness-runtime/help.hpp"

namespace sh::cli {
namespace {

constexpr std::array kGlobalFlags{
    Flag{.name = "root", .value = "DIR",
         .help = "state directory (default: /run/sharness; $XDG_RUNTIME_DIR/sharness if not root)",
         .completes = Completes::directory},
    Flag{.name = "log", .value = "FILE", .help = "write the log to FILE (default: stderr)", .completes = Completes::file},
    Flag{.name = "log-format", .value = "FORMAT", .help = "the log's format: text (default) or json",
         .completes = Completes::choices, .choices = "text json"},
    Flag{.name = "debug", .help = "log at debug level"},
    Flag{.name = "systemd-cgroup", .help = "cgroupsPath is slice:prefix:name (system.slice:sharness:ID)"},
    Flag{.name = "rootless", .value = "MODE",
         .help = "auto (default), true or false: whether a cgroup it may not write is only a warning",
         .completes = Completes::choices, .choices = "auto true false"},
    Flag{.name = "criu", .value = "PATH", .help = "CRIU's binary for checkpoint and restore (default: criu in PATH)",
         .completes = Completes::file},
    Flag{.name = "policy", .value = "NAME|PATH", .help = "the operator's policy: a floor every container gets",
         .completes = Completes::file},
    Flag{.name = "config", .value = "FILE", .help = "runtime config (default: /etc/sharness/runtime.json)",
         .completes = Completes::file},
    Flag{.name = "version", .alias = "v", .help = "print the version"},
};

constexpr std::array kHelpArgs{
    Arg{.name = "[command]", .help = "the command to show the help of", .completes = Completes::command}};
constexpr std::array kManArgs{Arg{.name = "[command]", .help = "the command's page (default: sharness-runtime(8))",
                                  .completes = Completes::command}};
constexpr std::array kManFlags{Flag{.name = "out", .value = "DIR",
                                    .help = "write every page into DIR instead", .completes = Completes::directory}};
constexpr std::array kCompletionFlags{
    Flag{.name = "out", .value = "FILE", .help = "write the script to FILE instead", .completes = Completes::file}};

Result<void> write_out(const std::string& path, const std::string& text) {
  return write_file_atomic(path, text, 0644);
}

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

}  // namespace

const CommandTable kGlobalTable{
    .name = "sharness-runtime",
    .summary = "an OCI container runtime that holds hostile code in every bound Linux offers",
    .flags = kGlobalFlags,
    .description = "A drop-in for runc: Docker, containerd and Podman drive it with runc's commands and flags.\n"
                   "Every container also gets the operator's policy (--policy), a floor no config can loosen.",
    .flags_end_at_positional = true,  // global flags end at the command
};
const CommandTable kHelpTable{
    .name = "help", .summary = "show the commands, or one command's help", .args = kHelpArgs};
const CommandTable kManTable{.name = "__man",
                             .summary = "print a man page (roff), or write them all with --out",
                             .args = kManArgs,
                             .flags = kManFlags,
                             .hidden = true};
const CommandTable kCompletionTable{.name = "__completion",
                                    .summary = "print the bash completion script",
                                    .flags = kCompletionFlags,
                                    .hidden = true};

const std::vector<CommandInfo>& commands() {
  static const std::vector<CommandInfo> k = {
      {kCreateTable, cmd_create},     {kStartTable, cmd_start},       {kRunTable, cmd_run},
      {kStateTable, cmd_state},       {kKillTable, cmd_kill},         {kDeleteTable, cmd_delete},
      {kListTable, cmd_list},         {kSpecTable, cmd_spec},         {kExecTable, cmd_exec},
      {kPsTable, cmd_ps},             {kPauseTable, cmd_pause},       {kResumeTable, cmd_resume},
      {kUpdateTable, cmd_update},     {kEventsTable, cmd_events},     {kFeaturesTable, cmd_features},
      {kPolicyTable, cmd_policy},     {kHelloTable, cmd_hello},       {kCaTable, cmd_ca},
      {kKmsTable, cmd_kms},           {kCheckpointTable, cmd_checkpoint}, {kRestoreTable, cmd_restore},
      {kHelpTable, cmd_help},         {kManTable, cmd_man},           {kCompletionTable, cmd_completion},
  };
  return k;
}

const CommandInfo* find_command(const std::string& name) {
  for (const auto& c : commands())
    if (name == c.table.name) return &c;
  return nullptr;
}

Result<std::string> one_id(const std::vector<std::string>& positional, const char* cmd) {
  if (positional.size() != 1)
    return fail(std::string(cmd) + ": requires exactly 1 argument, the container id (got " +
                std::to_string(positional.size()) + ")");
  return positional[0];
}

bool wants_help(const CommandTable& t, const Args& args, size_t from) {
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a == "--help" || a == "-h") return true;
    if (!t.flags_end_at_positional) continue;
    if (a.size() < 2 || a[0] != '-') break;  // the container id: what follows is the command's
    if (a.find('=') != std::string::npos) continue;
    std::string body = a.substr(a[1] == '-' ? 2 : 1);
    for (const auto& f : t.flags)
      if (f.value && (body == f.name || (f.alias && body == f.alias))) ++i;  // skip its value
  }
  return false;
}

Result<int> cmd_help(const lifecycle::Globals&, const Args& args, size_t from) {
  auto p = TRY(parse(kHelpTable, args, from));
  if (p.positional.empty()) {
    print(main_help());
    return 0;
  }
  if (p.positional.size() > 1) return fail("help: takes one command (got " + std::to_string(p.positional.size()) + ")");
  const CommandInfo* c = find_command(p.positional[0]);
  if (!c || c->table.hidden) return fail("help: unknown command \"" + p.positional[0] + "\"");
  print(help_text(c->table));
  return 0;
}

Result<int> cmd_man(const lifecycle::Globals&, const Args& args, size_t from) {
  auto p = TRY(parse(kManTable, args, from));
  if (p.has("out")) {
    if (!p.positional.empty()) return fail("__man --out: takes no command (it writes every page)");
    const std::string dir = p.get("out");
    TRYV(write_out(dir + "/" + man_page_name(kGlobalTable), man_page(kGlobalTable)));
    for (const auto& c : commands())
      if (!c.table.hidden) TRYV(write_out(dir + "/" + man_page_name(c.table), man_page(c.table)));
    return 0;
  }
  if (p.positional.empty()) {
    print(man_page(kGlobalTable));
    return 0;
  }
  const CommandInfo* c = p.positional.size() == 1 ? find_command(p.positional[0]) : nullptr;
  if (!c || c->table.hidden) return fail("__man: unknown command \"" + p.positional[0] + "\"");
  print(man_page(c->table));
  return 0;
}

Result<int> cmd_completion(const lifecycle::Globals&, const Args& args, size_t from) {
  auto p = TRY(parse(kCompletionTable, args, from));
  if (!p.positional.empty()) return fail("__completion: unexpected argument \"" + p.positional[0] + "\"");
  if (p.has("out")) {
    TRYV(write_out(p.get("out"), bash_completion()));
    return 0;
  }
  print(bash_completion());
  return 0;
}

}  // namespace sh::cli
