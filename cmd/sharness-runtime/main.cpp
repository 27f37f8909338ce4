// sharness-runtime: global flags, dispatch to one command, one error sink.
#include <seccomp.h>
#include <unistd.h>
#include <yajl/yajl_version.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "base/log.hpp"
#include "edges/provision.hpp"
#include "kms/host/provision.hpp"
#include "runtime/cli/args.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::cli {

const std::vector<CommandInfo>& commands() {
  static const std::vector<CommandInfo> k = {
      {"create", cmd_create, "create [--bundle DIR] [--pid-file F] [--console-socket S] <id>"},
      {"start", cmd_start, "start <id>"},
      {"run", cmd_run, "run [--bundle DIR] [--detach] [--keep] [--pid-file F] <id>"},
      {"state", cmd_state, "state <id>"},
      {"kill", cmd_kill, "kill [--all] <id> [signal]"},
      {"delete", cmd_delete, "delete [--force] <id>"},
      {"list", cmd_list, "list [--format table|json] [--quiet]"},
      {"spec", cmd_spec, "spec [--bundle DIR] [--rootless]"},
      {"exec", cmd_exec, "exec [--process FILE | <id> CMD...] [--detach] [--tty] [--pid-file F] ..."},
      {"ps", cmd_ps, "ps [--format table|json] <id> [ps options]"},
      {"pause", cmd_pause, "pause <id>"},
      {"resume", cmd_resume, "resume <id>"},
      {"update", cmd_update, "update [--resources FILE|-] [--memory N] [--pids-limit N] ... <id>"},
      {"events", cmd_events, "events [--stats] [--interval DUR] <id>"},
      {"features", cmd_features, "features"},
      {"policy", cmd_policy, "policy check|hash|map|apply|explain|pin ..."},
      {"hello", cmd_hello, "hello [--policy harsh]: try what hostile code would, under a policy, and report"},
      {"ca", cmd_ca, "ca init|show|rotate|issue|revoke [--dir DIR]: the certificate authority of edge mTLS"},
      {"kms", cmd_kms, "kms seal --kek FILE --out VAULT ID[=KEYFILE]...: seal master keys for sharness-kms"},
      {"checkpoint", cmd_checkpoint, "checkpoint <id> (not supported)"},
      {"restore", cmd_checkpoint, "restore <id> (not supported)"},
  };
  return k;
}

Result<std::string> one_id(const std::vector<std::string>& positional, const char* cmd) {
  if (positional.size() != 1)
    return fail(std::string(cmd) + ": requires exactly 1 argument, the container id (got " +
                std::to_string(positional.size()) + ")");
  return positional[0];
}

bool wants_help(const Args& args, size_t from) {
  for (size_t i = from; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == "--help" || args[i] == "-h") return true;
  }
  return false;
}

}  // namespace sh::cli

namespace {

// What a policy may start beside a container, in the order create provisions them (the KMS's
// client certificate is the container's identity, which the edges make).
constexpr const sh::lifecycle::Sidecar* kSidecars[] = {&sh::edges::sidecar, &sh::kms::sidecar};

void print_version() {
  const struct scmp_version* v = seccomp_version();
  std::printf("sharness-runtime version %s\nspec: 1.3.0\nlibseccomp: %u.%u.%u\nyajl: %d\n", SHARNESS_VERSION,
              v->major, v->minor, v->micro, YAJL_VERSION);
}

void print_help() {
  std::printf(
      "sharness-runtime: an OCI container runtime that holds hostile code in every bound Linux offers\n\n"
      "usage: sharness-runtime [global options] <command> [options] [arguments]\n\nglobal options:\n"
      "  --root DIR           state directory (default /run/sharness; $XDG_RUNTIME_DIR/sharness if not root)\n"
      "  --log FILE           log file (default stderr)\n"
      "  --log-format FORMAT  text or json\n"
      "  --debug              debug logging\n"
      "  --systemd-cgroup     systemd makes the cgroup, a scope unit (cgroupsPath is slice:prefix:name)\n"
      "  --rootless MODE      auto, true or false: whether a cgroup it may not write is only a warning\n"
      "  --policy NAME|PATH   the operator's policy: a floor every container gets\n"
      "  --config FILE        runtime config (default /etc/sharness/runtime.json)\n"
      "  --version, -v        print the version\n\ncommands:\n");
  for (auto& c : sh::cli::commands()) std::printf("  %s\n", c.usage);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  std::vector<sh::cli::FlagSpec> global = {
      {{"root"}, true},          {{"log"}, true},      {{"log-format"}, true}, {{"debug"}, false},
      {{"systemd-cgroup"}, false}, {{"rootless"}, true}, {{"criu"}, true},       {{"version", "v"}, false},
      {{"policy"}, true},        {{"config"}, true},
      {{"help", "h"}, false},
  };
  // Global flags end at the first non-flag word: the command.
  auto g = sh::cli::parse(global, args, 1, true);
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
    print_help();
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
  for (auto& c : sh::cli::commands()) {
    if (name != c.name) continue;
    if (sh::cli::wants_help(args, from) && c.fn != sh::cli::cmd_checkpoint) {
      std::printf("usage: sharness-runtime %s\n", c.usage);
      return 0;
    }
    auto r = c.fn(globals, args, from);
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
