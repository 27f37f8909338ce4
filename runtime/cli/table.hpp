// One declarative table per command: the single source of its command line. The parser's flag
// specs, `CMD --help`, `help CMD`, the man pages (`__man`) and the bash completion script
// (`__completion`) are all made from these tables (runtime/cli/help.cpp), so a flag cannot be
// accepted without being documented. The tables are constant data (no start-up cost): each
// command's lives in its cmd_*.cpp, the global flags and the registry in commands.cpp.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runtime/cli/args.hpp"

namespace sh::cli {

// What a flag's value or a positional argument completes to in the bash completion script.
enum class Completes { nothing, container, file, directory, choices, signal, command };

struct Flag {
  const char* name = "";             // long name, without dashes ("bundle")
  const char* alias = nullptr;       // short alias ("b"), or none
  const char* value = nullptr;       // the value's name ("DIR"); nullptr: a boolean flag
  const char* help = "";             // one line
  Completes completes = Completes::nothing;
  const char* choices = nullptr;     // for Completes::choices: "table json"
  bool repeatable = false;           // --env A --env B
  const char* only = nullptr;        // subcommands the flag belongs to ("pin"), or all of them
};

struct Arg {
  const char* name = "";             // "<container-id>", "[signal]", "<command>..."
  const char* help = "";
  Completes completes = Completes::nothing;
  const char* choices = nullptr;
};

struct CommandTable {
  const char* name = "";
  const char* summary = "";          // one line, as in `--help`'s command list and NAME
  std::span<const Arg> args{};       // positional arguments, in order
  std::span<const Flag> flags{};     // every flag but --help, which every command has
  const char* description = nullptr; // paragraphs for --help and the man page ('\n' separated)
  bool flags_end_at_positional = false;  // `exec ID CMD -x`: what follows the id is not ours
  const char* usage = nullptr;       // the usage line's arguments, when args do not say it
  bool hidden = false;               // generator commands: not listed, no man page
};

// The --help flag every command accepts.
inline constexpr Flag kHelpFlag{.name = "help", .alias = "h", .help = "show this help"};

// The parser's specs for a table: its flags (those of subcommand `sub` when given) and --help.
std::vector<FlagSpec> flag_specs(const CommandTable& t, const char* sub = nullptr);
// parse() with the table's specs and its flags_end_at_positional.
Result<Parsed> parse(const CommandTable& t, const std::vector<std::string>& args, size_t from,
                     const char* sub = nullptr);
// Whether flag f belongs to subcommand sub (a flag without `only` belongs to all).
bool flag_in(const Flag& f, const char* sub);

}  // namespace sh::cli
