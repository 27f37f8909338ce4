#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/exec.hpp"

namespace sh::cli {

namespace {
constexpr std::array kArgs{
    Arg{.name = "<container-id>", .help = "the container", .completes = Completes::container},
    Arg{.name = "[command [args...]]", .help = "the command to run, unless --process gives a process.json"}};
constexpr std::array kFlags{
    Flag{.name = "process", .alias = "p", .value = "FILE", .help = "the process to run, as a process.json (not with a command)",
         .completes = Completes::file},
    Flag{.name = "detach", .alias = "d", .help = "return once the process runs, leaving it running"},
    Flag{.name = "tty", .alias = "t", .help = "give the process a pseudoterminal"},
    Flag{.name = "pid-file", .value = "FILE", .help = "write the process's pid to FILE", .completes = Completes::file},
    Flag{.name = "console-socket", .value = "SOCKET",
         .help = "AF_UNIX socket that receives the master end of the pseudoterminal", .completes = Completes::file},
    Flag{.name = "cwd", .value = "DIR", .help = "working directory inside the container"},
    Flag{.name = "env", .alias = "e", .value = "NAME=VALUE", .help = "set an environment variable (repeatable)",
         .repeatable = true},
    Flag{.name = "user", .alias = "u", .value = "UID[:GID]", .help = "the user and group to run as"},
    Flag{.name = "additional-gids", .alias = "g", .value = "GID[,GID...]",
         .help = "supplementary groups (repeatable, comma-separated)", .repeatable = true},
    Flag{.name = "cap", .alias = "c", .value = "CAP",
         .help = "add a capability, within what the container and the policy allow (repeatable)", .repeatable = true},
    Flag{.name = "no-new-privs", .help = "set no_new_privs for the process"},
    Flag{.name = "preserve-fds", .value = "N", .help = "pass N more file descriptors to the process (after stdio)"},
    Flag{.name = "cgroup", .value = "[CONTROLLER:]PATH", .help = "run in this existing sub-cgroup of the container"},
    Flag{.name = "ignore-paused", .help = "run even in a paused container"},
    Flag{.name = "process-label", .value = "LABEL", .help = "SELinux label: refused (SELinux is not supported)"},
    Flag{.name = "apparmor", .value = "PROFILE", .help = "the AppArmor profile of the process (refused if none is loaded)"},
};
}  // namespace

const CommandTable kExecTable{
    .name = "exec",
    .summary = "run a new process inside a running container",
    .args = kArgs,
    .flags = kFlags,
    .description = "Runs a process in the container's namespaces, cgroup and bounds. Flags end at the container\n"
                   "id: what follows is the command and its own arguments. The process can never gain more than\n"
                   "the container's init has, whatever the flags or the process.json ask.",
    .flags_end_at_positional = true,
};

const std::vector<FlagSpec>& exec_flag_specs() {
  static const std::vector<FlagSpec> specs = flag_specs(kExecTable);
  return specs;
}

Result<int> cmd_exec(const lifecycle::Globals& g, const Args& args, size_t from) {
  // Flags end at the container id: what follows is the command and its own flags.
  auto p = TRY(parse(kExecTable, args, from));
  if (p.positional.empty()) return fail("exec: requires the container id");
  if (!p.get("process-label").empty())
    return fail("exec --process-label: SELinux labels are not supported by this runtime (refused, not ignored)");
  lifecycle::ExecOptions o;
  o.id = p.positional[0];
  o.args.assign(p.positional.begin() + 1, p.positional.end());
  o.process_file = p.get("process");
  o.apparmor = p.get("apparmor");  // applied or refused by the launch plan
  if (!o.process_file.empty() && !o.args.empty()) return fail("exec: --process and a command cannot be combined");
  o.detach = p.flag("detach");
  o.tty = p.flag("tty");
  o.pid_file = p.get("pid-file");
  o.console_socket = p.get("console-socket");
  o.cwd = p.get("cwd");
  o.env = p.all("env");
  o.user = p.get("user");
  for (auto& list : p.all("additional-gids")) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) o.additional_gids.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  o.caps = p.all("cap");
  o.no_new_privs = p.flag("no-new-privs");
  if (p.has("preserve-fds")) o.preserve_fds = TRY(to_unsigned("preserve-fds", p.get("preserve-fds")));
  o.cgroup = p.get("cgroup");
  o.ignore_paused = p.flag("ignore-paused");
  return lifecycle::exec(g, o);
}

}  // namespace sh::cli
