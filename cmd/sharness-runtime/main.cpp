// sharness-runtime: global flags, dispatch to one command, one error sink. The commands and
// every flag are in the tables of runtime/cli/ (table.hpp).
#include <seccomp.h>
#include <unistd.h>
#include <yajl/yajl_version.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "base/log.hpp"
#include "edges/provision.hpp"
#include "egress/provision.hpp"
#include "kms/host/provision.hpp"
#include "runtime/cli/args.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "cmd/sharness-runtime/help.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace {

// What a policy may start beside a container, in the order create provisions them (the KMS's
// client certificate is the container's identity, which the edges make; the egress door last).
constexpr const sh::lifecycle::Sidecar* kSidecars[] = {&sh::edges::sidecar, &sh::kms::sidecar, &sh::egress::sidecar};

void print_version() {
  const struct scmp_version* v = seccomp_version();
  std::printf("sharness-runtime version %s\nspec: 1.3.0\nlibseccomp: %u.%u.%u\nyajl: %d\n", SHARNESS_VERSION,
              v->major, v->minor, v->micro, YAJL_VERSION);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  // Global flags end at the first non-flag word: the command.
  auto g = sh::cli::parse(sh::cli::kGlobalTable, args, 1);
  if (!g) {
    std::fprintf(stderr, "sharness-runtime: %s\n", g.error().what().c_str());
    return 1;
  }
  std::string fmt = g->get("log-format", "text");
  if (fmt != "text" && fmt != "json") {
    std::fprintf(stderr, "sharness-runtime: invalid log-format \"%s\"\n", fmt.c_str());
    return 1;
  }
  std::string log_path = g->get("log");
  if (!sh::log::configure(log_path.c_str(), fmt == "json", g->flag("debug"))) {
    std::fprintf(stderr, "sharness-runtime: open log %s: %s\n", log_path.c_str(), std::strerror(errno));
    return 1;
  }
  if (g->flag("version")) {
    print_version();
    return 0;
  }
  if (g->positional.empty() || g->flag("help")) {
    std::fputs(sh::cli::main_help().c_str(), stdout);
    return g->positional.empty() && !g->flag("help") ? 1 : 0;
  }
  sh::lifecycle::Globals globals;
  globals.root = g->get("root", sh::lifecycle::default_state_root());
  globals.systemd_cgroup = g->flag("systemd-cgroup");
  globals.rootless = g->get("rootless", "auto");
  if (globals.rootless != "auto" && globals.rootless != "true" && globals.rootless != "false") {
    std::fprintf(stderr, "sharness-runtime: invalid value \"%s\" for --rootless: auto, true or false\n",
                 globals.rootless.c_str());
    return 1;
  }
  globals.policy = g->get("policy");
  globals.config_path = g->get("config");
  globals.criu = g->get("criu", "criu");
  globals.sidecars = kSidecars;

  const std::string& name = g->positional[0];
  // Commands that put a process into a container run from a copy of the binary that the container
  // cannot write (CVE-2019-5736). Other commands never share a namespace with container code.
  if (name == "create" || name == "run" || name == "exec") {
    if (auto r = sh::sealed_exe::reexec(argv); !r) {
      sh::log::error(r.error().what());
      if (!log_path.empty()) std::fprintf(stderr, "sharness-runtime: %s\n", r.error().what().c_str());
      return 1;
    }
  }
  size_t from = size_t(argc) - g->positional.size() + 1;
  if (const sh::cli::CommandInfo* c = sh::cli::find_command(name)) {
    if (sh::cli::wants_help(c->table, args, from)) {
      std::fputs(sh::cli::help_text(c->table).c_str(), stdout);
      return 0;
    }
    auto r = c->fn(globals, args, from);
    if (r) return *r;
    std::string msg = r.error().what();
    sh::log::error(msg);
    // With a log file the caller reads the log; stderr still gets the message for humans.
    if (!log_path.empty()) std::fprintf(stderr, "sharness-runtime: %s\n", msg.c_str());
    return 1;
  }
  std::fprintf(stderr, "sharness-runtime: unknown command \"%s\"\n", name.c_str());
  sh::log::error("unknown command \"" + name + "\"");
  return 1;
}
