#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/exec.hpp"

namespace sh::cli {

const std::vector<FlagSpec>& exec_flag_specs() {
  static const std::vector<FlagSpec> specs = {
      {{"process", "p"}, true},        {{"detach", "d"}, false},      {{"tty", "t"}, false},
      {{"pid-file"}, true},            {{"console-socket"}, true},    {{"cwd"}, true},
      {{"env", "e"}, true, true},      {{"user", "u"}, true},         {{"additional-gids", "g"}, true, true},
      {{"cap", "c"}, true, true},      {{"no-new-privs"}, false},     {{"preserve-fds"}, true},
      {{"cgroup"}, true},              {{"ignore-paused"}, false},    {{"process-label"}, true},
      {{"apparmor"}, true},            {{"help", "h"}, false},
  };
  return specs;
}

Result<int> cmd_exec(const lifecycle::Globals& g, const Args& args, size_t from) {
  // Flags end at the container id: what follows is the command and its own flags.
  auto p = TRY(parse(exec_flag_specs(), args, from, true));
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
