// What is made from the command tables (runtime/cli/table.hpp) besides the parser: `--help`
// text, man pages (roff) and the bash completion script. Pure: strings in, strings out.
#pragma once
#include <string>

#include "runtime/cli/table.hpp"

namespace sh::cli {

// `sharness-runtime CMD --help` and `sharness-runtime help CMD`.
std::string help_text(const CommandTable& t);
// `sharness-runtime --help`: the commands and the global flags.
std::string main_help();
// sharness-runtime-CMD(8), or sharness-runtime(8) for the global table.
std::string man_page(const CommandTable& t);
// The file name of t's man page ("sharness-runtime-exec.8").
std::string man_page_name(const CommandTable& t);
// The bash completion script (commands, flags, flag values, container ids).
std::string bash_completion();
// "-p, --process FILE": how help and the man page spell a flag.
std::string flag_spelling(const Flag& f);

}  // namespace sh::cli
