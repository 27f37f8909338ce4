#define BOOST_TEST_MODULE cli_table
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <set>
#include <sstream>

#include "cmd/sharness-runtime/commands.hpp"
#include "cmd/sharness-runtime/help.hpp"
#include "runtime/lifecycle/update.hpp"
#include "temp_dir.hpp"

using namespace sh::cli;

namespace {

std::vector<const CommandTable*> all_tables() {
  std::vector<const CommandTable*> out{&kGlobalTable};
  for (const auto& c : commands()) out.push_back(&c.table);
  return out;
}

std::vector<Flag> flags_of(const CommandTable& t) {
  std::vector<Flag> out(t.flags.begin(), t.flags.end());
  out.push_back(kHelpFlag);
  return out;
}

std::string dashed(const char* n) { return (std::string(n).size() == 1 ? "-" : "--") + std::string(n); }

// Whether `word` stands in `text` as a token of its own (not inside a longer flag).
bool has_token(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    auto edge = [](char c) { return !(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'); };
    bool left = at == 0 || edge(text[at - 1]);
    bool right = at + word.size() == text.size() || edge(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// How the man page sets a flag: bold, its dashes as \- (ASCII hyphens when copied).
std::string man_bold(const std::string& s) {
  std::string out = "\\fB";
  for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out + "\\fR";
}

// Every word a client or a user might pass as a flag: the tables' own, runc's (1.1, every
// command and the global ones), crun's extras, and every single letter.
std::set<std::string> candidate_flags() {
  std::set<std::string> out;
  for (const auto* t : all_tables())
    for (const auto& f : flags_of(*t)) {
      out.insert(f.name);
      if (f.alias) out.insert(f.alias);
    }
  for (const char* n : {"bundle", "console-socket", "pid-file", "no-pivot", "no-new-keyring", "preserve-fds", "detach",
                        "keep", "force", "all", "format", "quiet", "rootless", "process", "tty", "cwd", "env", "user",
                        "additional-gids", "cap", "no-new-privs", "cgroup", "ignore-paused", "process-label",
                        "apparmor", "resources", "memory", "memory-reservation", "memory-swap", "kernel-memory",
                        "kernel-memory-tcp", "cpu-share", "cpu-shares", "cpu-period", "cpu-quota", "cpu-rt-period",
                        "cpu-rt-runtime", "cpuset-cpus", "cpuset-mems", "pids-limit", "blkio-weight",
                        "l3-cache-schema", "mem-bw-schema", "stats", "interval", "image-path", "work-path",
                        "parent-path", "leave-running", "tcp-established", "ext-unix-sk", "shell-job", "lazy-pages",
                        "status-fd", "page-server", "file-locks", "pre-dump", "manage-cgroups-mode",
                        "empty-ns", "auto-dedup", "no-subreaper", "root", "log", "log-format", "debug",
                        "systemd-cgroup", "criu", "version", "help", "policy", "config", "signal", "no-pivot-root",
                        "preserve-fd", "time", "wall-clock", "rootfs", "out", "kek", "dir", "role", "name",
                        "seconds", "backdate", "owner", "init", "update", "recursive", "usage"})
    out.insert(n);
  for (char c = 'a'; c <= 'z'; ++c) out.insert(std::string(1, c));
  for (char c = 'A'; c <= 'Z'; ++c) out.insert(std::string(1, c));
  return out;
}

// Whether the table's parser takes `name` as a flag (`--name=v`: a value, or a bad boolean).
bool table_takes(const CommandTable& t, const std::string& name, const char* sub = nullptr) {
  auto p = parse(t, {"--" + name + "=v"}, 0, sub);
  return p || p.error().what().find("provided but not defined") == std::string::npos;
}

bool table_lists(const CommandTable& t, const std::string& name) {
  for (const auto& f : flags_of(t))
    if (name == f.name || (f.alias && name == f.alias)) return true;
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_table_flag_is_parsed_under_its_name) {
  for (const auto* t : all_tables()) {
    for (const auto& f : flags_of(*t)) {
      std::vector<std::string> spellings{dashed(f.name), "-" + std::string(f.name)};
      if (f.alias) spellings.push_back(dashed(f.alias));
      for (const auto& sp : spellings) {
        std::vector<std::string> a{sp};
        if (f.value) a.push_back("val");
        const char* sub = f.only ? f.only : nullptr;
        std::string first_sub = sub ? std::string(sub).substr(0, std::string(sub).find(' ')) : "";
        auto p = parse(*t, a, 0, sub ? first_sub.c_str() : nullptr);
        BOOST_TEST_CONTEXT(t->name << " " << sp) {
          BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
          BOOST_TEST(p->has(f.name));
          if (f.value) BOOST_TEST(p->get(f.name) == "val");
          else BOOST_TEST(p->flag(f.name));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_flag_is_in_help_and_man_page_one_line_each) {
  for (const auto* t : all_tables()) {
    std::string help = help_text(*t), man = man_page(*t);
    for (const auto& f : flags_of(*t)) {
      BOOST_TEST_CONTEXT(t->name << " --" << f.name) {
        BOOST_TEST(std::string(f.help).find('\n') == std::string::npos);
        BOOST_TEST(!std::string(f.help).empty());
        // One line of help per flag: the spelling and its help on the same line.
        std::string line = flag_spelling(f);
        size_t at = help.find("   " + line + " ");
        BOOST_TEST(at != std::string::npos);
        if (at != std::string::npos) BOOST_TEST(help.substr(at, help.find('\n', at) - at).find(f.help) != std::string::npos);
        BOOST_TEST(has_token(help, dashed(f.name)));
        BOOST_TEST(man.find(man_bold(dashed(f.name))) != std::string::npos);
        if (f.alias) {
          BOOST_TEST(has_token(help, dashed(f.alias)));
          BOOST_TEST(man.find(man_bold(dashed(f.alias))) != std::string::npos);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_parser_takes_no_flag_its_table_does_not_list) {
  for (const auto* t : all_tables())
    for (const auto& name : candidate_flags()) {
      const bool subs = t == &kPolicyTable;  // its flags depend on the subcommand
      for (const char* sub : subs ? std::vector<const char*>{"check", "pin"} : std::vector<const char*>{nullptr})
        if (table_takes(*t, name, sub)) BOOST_TEST(table_lists(*t, name), t->name << " takes --" << name);
    }
}

BOOST_AUTO_TEST_CASE(no_table_names_a_flag_twice) {
  for (const auto* t : all_tables()) {
    std::set<std::string> seen;
    for (const auto& f : flags_of(*t)) {
      BOOST_TEST(seen.insert(f.name).second, t->name << ": --" << f.name << " twice");
      if (f.alias) BOOST_TEST(seen.insert(f.alias).second, t->name << ": -" << f.alias << " twice");
    }
  }
}

// The commands' real functions, called with each candidate flag and an id that names no
// container, from a temporary directory and state root: a flag the function's parser takes
// (any error but "provided but not defined") must be in the command's table, so a command that
// parsed with a list of its own would fail here. ca and kms hand their arguments to another
// binary (conformance/suites/cli.sh drives those).
BOOST_AUTO_TEST_CASE(what_each_command_accepts_is_in_its_table) {
  sh::test::TempDir dir;
  char old[4096];
  BOOST_REQUIRE(::getcwd(old, sizeof old));
  BOOST_REQUIRE(::chdir(dir.path.c_str()) == 0);
  sh::lifecycle::Globals g;
  g.root = dir / "state";
  for (const auto& c : commands()) {
    std::string name = c.table.name;
    if (name == "ca" || name == "kms") continue;
    // policy's flags depend on the subcommand: one of them taking a flag is enough.
    std::vector<std::string> subs = name == "policy" ? std::vector<std::string>{"check", "pin", "learn"} : std::vector<std::string>{""};
    for (const auto& flag : candidate_flags()) {
      const std::string spelled = (flag.size() == 1 ? "-" : "--") + flag + "=v";
      bool taken = false;
      for (const auto& sub : subs) {
        std::vector<std::string> a{"sharness-runtime", name};
        if (!sub.empty()) a.push_back(sub);
        a.insert(a.end(), {spelled, "no-such-container"});
        auto r = c.fn(g, a, 2);
        taken = taken || r || r.error().what().find("provided but not defined") == std::string::npos;
      }
      if (taken) BOOST_TEST(table_lists(c.table, flag), name << " takes " << spelled);
      else BOOST_TEST(!table_lists(c.table, flag), name << " refuses " << spelled << ", which its table lists");
    }
  }
  BOOST_REQUIRE(::chdir(old) == 0);
}

BOOST_AUTO_TEST_CASE(update_table_is_lifecycle_update_flags) {
  std::set<std::string> table, lifecycle;
  for (const auto& f : kUpdateTable.flags)
    if (std::string(f.name) != "resources") table.insert(std::string(f.name) + (f.alias ? std::string("|") + f.alias : ""));
  for (const auto& names : sh::lifecycle::update_flags()) {
    std::string s = names[0];
    for (size_t i = 1; i < names.size(); ++i) s += "|" + names[i];
    lifecycle.insert(s);
  }
  BOOST_TEST(table == lifecycle);
}

BOOST_AUTO_TEST_CASE(main_help_lists_every_command_and_global_flag) {
  std::string h = main_help();
  for (const auto& c : commands()) {
    if (c.table.hidden) BOOST_TEST(!has_token(h, c.table.name));
    else BOOST_TEST(h.find("   " + std::string(c.table.name) + " ") != std::string::npos, c.table.name);
  }
  for (const auto& f : flags_of(kGlobalTable)) BOOST_TEST(has_token(h, dashed(f.name)), f.name);
  BOOST_TEST(h.find(kGlobalTable.summary) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_fuzzed_specs_are_the_tables) {
  BOOST_TEST(exec_flag_specs().size() == kExecTable.flags.size() + 1);
  BOOST_TEST(create_flag_specs().size() == kCreateTable.flags.size() + 1);
  for (const auto& s : exec_flag_specs()) BOOST_TEST(table_lists(kExecTable, s.names[0]));
}

BOOST_AUTO_TEST_CASE(completion_names_every_command_and_flag) {
  std::string s = bash_completion();
  BOOST_TEST(s.find("complete -F _sharness_runtime sharness-runtime") != std::string::npos);
  for (const auto& c : commands()) {
    if (c.table.hidden) continue;
    BOOST_TEST(has_token(s, c.table.name), c.table.name);
    for (const auto& f : flags_of(c.table)) {
      BOOST_TEST(has_token(s, "--" + std::string(f.name)), c.table.name << " --" << f.name);
      // A flag with a value: the script knows what the value completes to.
      bool knows = s.find("\"" + std::string(c.table.name) + " --" + f.name + "\"") != std::string::npos;
      BOOST_TEST((knows || !f.value), c.table.name << " --" << f.name);
    }
  }
}

BOOST_AUTO_TEST_CASE(man_pages_escape_roff) {
  std::string m = man_page(kExecTable);
  BOOST_TEST(m.starts_with(".\\\""));
  BOOST_TEST(m.find(".TH SHARNESS\\-RUNTIME\\-EXEC 8") != std::string::npos);
  BOOST_TEST(m.find("sharness\\-runtime\\-exec \\- run a new process") != std::string::npos);
  // No line of text starts with a control character it did not mean.
  std::istringstream in(m);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && (line[0] == '.' || line[0] == '\''))
      BOOST_TEST((line.starts_with(".TH") || line == ".nh" || line == ".ad l" || line.starts_with(".SH") || line.starts_with(".TP") ||
                  line.starts_with(".B") || line.starts_with(".I") || line.starts_with(".PP") ||
                  line.starts_with(".\\\"")), line);
}
