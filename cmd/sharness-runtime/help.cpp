#include "cmd/sharness-runtime/help.hpp"

#include <algorithm>
#include <cstring>

#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {
namespace {

constexpr const char* kProgram = "sharness-runtime";

std::string dashes(const char* name) { return (std::strlen(name) == 1 ? "-" : "--") + std::string(name); }

std::string arg_line(const CommandTable& t) {
  if (t.usage) return t.usage;
  std::string s;
  for (const auto& a : t.args) s += (s.empty() ? "" : " ") + std::string(a.name);
  return s;
}

std::string usage_line(const CommandTable& t) {
  if (&t == &kGlobalTable) return std::string(kProgram) + " [global options] <command> [command options] [arguments...]";
  std::string s = std::string(kProgram) + " [global options] " + t.name + " [options]";
  std::string a = arg_line(t);
  return a.empty() ? s : s + " " + a;
}

// Every flag of t, --help last.
std::vector<Flag> all_flags(const CommandTable& t) {
  std::vector<Flag> out(t.flags.begin(), t.flags.end());
  out.push_back(kHelpFlag);
  return out;
}

// Rows of two columns, the second aligned, each row one line.
std::string rows(const std::vector<std::pair<std::string, std::string>>& r) {
  size_t w = 0;
  for (const auto& [a, b] : r) w = std::max(w, a.size());
  std::string s;
  for (const auto& [a, b] : r) s += "   " + a + std::string(w - a.size() + 2, ' ') + b + "\n";
  return s;
}

std::string indented(const char* text) {
  std::string s = "   ";
  for (const char* p = text; *p; ++p) s += *p == '\n' ? std::string("\n   ") : std::string(1, *p);
  return s + "\n";
}

// roff: backslashes, hyphens (as \- so they copy as ASCII) and a control character at a line start.
std::string roff(const std::string& text) {
  std::string s;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) s += "\\&";
    if (c == '\\') s += "\\e";
    else if (c == '-') s += "\\-";
    else s += c;
    line_start = c == '\n';
  }
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string man_flag(const Flag& f) {
  std::string s = ".TP\n";
  if (f.alias) s += "\\fB" + roff(dashes(f.alias)) + "\\fR, ";
  s += "\\fB" + roff(dashes(f.name)) + "\\fR";
  if (f.value) s += " \\fI" + roff(f.value) + "\\fR";
  return s + "\n" + roff(f.help) + "\n";
}

std::string completes_word(Completes c) {
  switch (c) {
    case Completes::nothing: return "nothing";
    case Completes::container: return "container";
    case Completes::file: return "file";
    case Completes::directory: return "directory";
    case Completes::choices: return "choices";
    case Completes::signal: return "signal";
    case Completes::command: return "command";
  }
  return "nothing";
}

// Every spelling the parser accepts for f's names: --name, -name (single-dash long form), -a.
std::vector<std::string> spellings(const Flag& f) {
  std::vector<std::string> out{"--" + std::string(f.name), "-" + std::string(f.name)};
  if (f.alias) {
    out.push_back("-" + std::string(f.alias));
    if (std::strlen(f.alias) > 1) out.push_back("--" + std::string(f.alias));
  }
  return out;
}

}  // namespace

std::string flag_spelling(const Flag& f) {
  std::string s = f.alias ? dashes(f.alias) + ", " + dashes(f.name) : dashes(f.name);
  return f.value ? s + " " + f.value : s;
}

std::string help_text(const CommandTable& t) {
  if (&t == &kGlobalTable) return main_help();
  std::string s = "NAME:\n   " + std::string(kProgram) + " " + t.name + " - " + t.summary + "\n\nUSAGE:\n   " +
                  usage_line(t) + "\n";
  if (t.description) s += "\nDESCRIPTION:\n" + indented(t.description);
  if (!t.args.empty()) {
    std::vector<std::pair<std::string, std::string>> r;
    for (const auto& a : t.args) r.emplace_back(a.name, a.help);
    s += "\nARGUMENTS:\n" + rows(r);
  }
  std::vector<std::pair<std::string, std::string>> r;
  for (const auto& f : all_flags(t)) r.emplace_back(flag_spelling(f), f.help);
  s += "\nOPTIONS:\n" + rows(r);
  s += "\nThe global options (" + std::string(kProgram) + " --help) go before the command. The man page: man " +
       std::string(kProgram) + "-" + t.name + ".\n";
  return s;
}

std::string main_help() {
  const CommandTable& t = kGlobalTable;
  std::string s = "NAME:\n   " + std::string(kProgram) + " - " + t.summary + "\n\nUSAGE:\n   " + usage_line(t) + "\n";
  if (t.description) s += "\nDESCRIPTION:\n" + indented(t.description);
  std::vector<std::pair<std::string, std::string>> r;
  for (const auto& c : commands())
    if (!c.table.hidden) r.emplace_back(c.table.name, c.table.summary);
  s += "\nCOMMANDS:\n" + rows(r);
  r.clear();
  for (const auto& f : all_flags(t)) r.emplace_back(flag_spelling(f), f.help);
  s += "\nGLOBAL OPTIONS:\n" + rows(r);
  s += "\n'" + std::string(kProgram) + " help COMMAND' or '" + kProgram +
       " COMMAND --help' shows a command's options; man " + kProgram + "-COMMAND has them too.\n";
  return s;
}

std::string man_page_name(const CommandTable& t) {
  return &t == &kGlobalTable ? std::string(kProgram) + ".8" : std::string(kProgram) + "-" + t.name + ".8";
}

std::string man_page(const CommandTable& t) {
  const bool main_page = &t == &kGlobalTable;
  const std::string page = man_page_name(t).substr(0, man_page_name(t).size() - 2);
  std::string s = ".\\\" Generated from the command tables by `" + std::string(kProgram) + " __man`; do not edit.\n";
  s += ".TH " + roff(upper(page)) + " 8 \"\" \"" + roff(std::string(kProgram) + " " + SHARNESS_VERSION) +
       "\" \"System Manager's Manual\"\n";
  s += ".nh\n.ad l\n";  // no hyphenation, ragged right: a flag never breaks across lines
  s += ".SH NAME\n" + roff(page) + " \\- " + roff(t.summary) + "\n";
  s += ".SH SYNOPSIS\n.B " + roff(kProgram) + "\n[\\fIglobal options\\fR]\n";
  if (main_page) {
    s += "\\fIcommand\\fR [\\fIcommand options\\fR] [\\fIarguments\\fR...]\n";
  } else {
    s += ".B " + roff(t.name) + "\n[\\fIoptions\\fR]";
    std::string a = arg_line(t);
    s += a.empty() ? "\n" : " " + roff(a) + "\n";
  }
  if (t.description) s += ".SH DESCRIPTION\n" + roff(t.description) + "\n";
  if (main_page) {
    s += ".SH COMMANDS\n";
    for (const auto& c : commands())
      if (!c.table.hidden) s += ".TP\n.B " + roff(c.table.name) + "\n" + roff(c.table.summary) + "\n";
  }
  if (!t.args.empty()) {
    s += ".SH ARGUMENTS\n";
    for (const auto& a : t.args) s += ".TP\n.I " + roff(a.name) + "\n" + roff(a.help) + "\n";
  }
  s += main_page ? ".SH GLOBAL OPTIONS\n" : ".SH OPTIONS\n";
  for (const auto& f : all_flags(t)) s += man_flag(f);
  if (!main_page) s += ".PP\nThe global options are in\n.BR " + roff(kProgram) + " (8).\n";
  s += ".SH SEE ALSO\n";
  if (main_page) {
    std::string see;
    for (const auto& c : commands())
      if (!c.table.hidden) see += (see.empty() ? "" : ",\n") + std::string(".BR ") + roff(kProgram) + "\\-" + roff(c.table.name) + " (8)";
    s += see + "\n";
  } else {
    s += ".BR " + roff(kProgram) + " (8)\n";
  }
  return s;
}

std::string bash_completion() {
  std::string names, value_cases, flag_cases, arg_cases;
  auto add = [&](const CommandTable& t, const std::string& cmd) {
    std::string flags;
    for (const auto& f : all_flags(t)) {
      for (const auto& sp : spellings(f))
        if (sp.starts_with("--") || sp.size() == 2) flags += (flags.empty() ? "" : " ") + sp;
      if (!f.value) continue;
      std::string pats;
      for (const auto& sp : spellings(f)) pats += (pats.empty() ? "" : "|") + ("\"" + cmd + " " + sp + "\"");
      std::string kind = completes_word(f.completes);
      if (f.completes == Completes::choices && f.choices) kind += " " + std::string(f.choices);
      value_cases += "    " + pats + ") echo " + kind + " ;;\n";
    }
    flag_cases += "    \"" + cmd + "\") echo \"" + flags + "\" ;;\n";
    if (cmd.empty()) return;
    std::string kinds;
    for (const auto& a : t.args) {
      std::string kind = completes_word(a.completes);
      if (a.completes == Completes::choices && a.choices) kind += " " + std::string(a.choices);
      kinds += " \"" + kind + "\"";
    }
    arg_cases += "    " + cmd + ") kinds=(" + kinds.substr(kinds.empty() ? 0 : 1) + ")" +
                 (t.flags_end_at_positional ? "; stop=1" : "") + " ;;\n";
  };
  add(kGlobalTable, "");
  for (const auto& c : commands()) {
    if (c.table.hidden) continue;
    names += (names.empty() ? "" : " ") + std::string(c.table.name);
    add(c.table, c.table.name);
  }
  return R"(# bash completion for sharness-runtime: commands, flags, flag values and container ids (from
# `sharness-runtime [--root DIR] list -q`, with the --root given on the line). Generated from the
# command tables by `sharness-runtime __completion`; do not edit.

_sharness_runtime_commands=")" + names + R"("

# _sharness_runtime_value CMD FLAG: what FLAG's value completes to ("" if FLAG takes none; CMD ""
# for the global flags).
_sharness_runtime_value() {
  case "$1 $2" in
)" + value_cases + R"(  esac
}

# _sharness_runtime_flags CMD: every flag of CMD.
_sharness_runtime_flags() {
  case "$1" in
)" + flag_cases + R"(  esac
}

# _sharness_runtime_args CMD: sets kinds (what each positional argument completes to) and stop
# (1 when CMD's flags end at its first positional argument).
_sharness_runtime_args() {
  kinds=() stop=0
  case "$1" in
)" + arg_cases + R"(  esac
}

# _sharness_runtime_complete KIND [CHOICES...]: COMPREPLY for one kind of word.
_sharness_runtime_complete() {
  local kind=$1 IFS=$' \t\n' words=""
  shift
  case $kind in
    container) words=$("$bin" ${root:+--root "$root"} list -q 2>/dev/null) ;;
    choices) words="$*" ;;
    command) words=$_sharness_runtime_commands ;;
    signal) words=$(compgen -A signal); words="$words ${words//SIG/}" ;;
    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
    directory) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
    *) COMPREPLY=(); return ;;
  esac
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

_sharness_runtime() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local bin=${COMP_WORDS[0]} root="" cmd="" at=0 n=0 dashdash=0 i w kind kinds stop
  COMPREPLY=()
  # The global flags (remembering --root), then the command, then its flags and arguments.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if [[ -z $cmd ]]; then
      case $w in
        --root=* | -root=*) root=${w#*=} ;;
        --root | -root) ((i + 1 < COMP_CWORD)) && root=${COMP_WORDS[i + 1]} ;;
      esac
      if [[ $w == -* ]]; then
        [[ $w != *=* && -n $(_sharness_runtime_value "" "$w") ]] && i=$((i + 1))
        continue
      fi
      cmd=$w at=$i
      _sharness_runtime_args "$cmd"
      continue
    fi
    if ((dashdash || (stop && n > 0))); then
      n=$((n + 1))
    elif [[ $w == -- ]]; then
      dashdash=1
    elif [[ $w == -* ]]; then
      [[ $w != *=* && -n $(_sharness_runtime_value "$cmd" "$w") ]] && i=$((i + 1))
    else
      n=$((n + 1))
    fi
  done
  if [[ -z $cmd ]]; then
    kind=$(_sharness_runtime_value "" "$prev")
    if [[ -n $kind ]]; then _sharness_runtime_complete $kind
    elif [[ $cur == -* ]]; then _sharness_runtime_complete choices $(_sharness_runtime_flags "")
    else _sharness_runtime_complete command
    fi
    return
  fi
  ((COMP_CWORD - 1 > at)) && kind=$(_sharness_runtime_value "$cmd" "$prev")
  if ((!dashdash && !(stop && n > 0))); then
    if [[ -n $kind ]]; then _sharness_runtime_complete $kind; return; fi
    if [[ $cur == -* ]]; then _sharness_runtime_complete choices $(_sharness_runtime_flags "$cmd"); return; fi
  fi
  ((n < ${#kinds[@]})) || return 0
  _sharness_runtime_complete ${kinds[n]}
}

complete -F _sharness_runtime sharness-runtime
)";
}

}  // namespace sh::cli
