// ps: the container's processes. json: the host pids of its cgroup, as the containerd shim
// reads them. table: the host's ps(1) output (header and the container's lines only).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "base/file.hpp"
#include "base/json.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/cgroup_reads.hpp"

namespace sh::cli {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Run ps(1) with ps_args and return its standard output.
Result<std::string> run_ps(const std::vector<std::string>& ps_args) {
  const char* exe = ::access("/bin/ps", X_OK) == 0 ? "/bin/ps" : "/usr/bin/ps";
  std::vector<char*> argv{const_cast<char*>("ps")};
  for (const auto& a : ps_args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) < 0) return sys_error("pipe for ps");
  Fd rd(fds[0]), wr(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork ps");
  if (pid == 0) {
    if (::dup2(wr.get(), STDOUT_FILENO) < 0) ::_exit(127);
    ::execv(exe, argv.data());
    ::_exit(127);
  }
  wr.reset();
  auto out = read_fd(rd.get(), "output of " + std::string(exe));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return sys_error("wait for ps");
  TRYV(out);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fail(std::string(exe) + " failed (" +
                (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : "killed") + ")");
  return std::move(*out);
}

// Keep the header and the lines whose PID column (found from the header) is in pids.
Result<std::string> filter_table(const std::string& text, const std::vector<pid_t>& pids) {
  std::istringstream in(text);
  std::string header;
  if (!std::getline(in, header)) return fail("ps printed nothing");
  auto cols = words(header);
  auto it = std::find(cols.begin(), cols.end(), "PID");
  if (it == cols.end()) return fail("ps output has no PID column: \"" + header + "\"");
  size_t col = size_t(it - cols.begin());
  std::string out = header + "\n";
  for (std::string line; std::getline(in, line);) {
    auto f = words(line);
    if (f.size() <= col) continue;
    char* end = nullptr;
    long p = std::strtol(f[col].c_str(), &end, 10);
    if (*end == '\0' && std::find(pids.begin(), pids.end(), pid_t(p)) != pids.end()) out += line + "\n";
  }
  return out;
}

constexpr std::array kArgs{
    Arg{.name = "<container-id>", .help = "the container", .completes = Completes::container},
    Arg{.name = "[ps options...]", .help = "options for ps(1) (default: -ef), in table format"}};
constexpr std::array kFlags{Flag{.name = "format", .alias = "f", .value = "FORMAT",
                                 .help = "table (ps(1)'s lines of the container) or json (its host pids)",
                                 .completes = Completes::choices, .choices = "table json"}};

}  // namespace

const CommandTable kPsTable{
    .name = "ps",
    .summary = "show the processes running in a container",
    .args = kArgs,
    .flags = kFlags,
    .flags_end_at_positional = true,
};

Result<int> cmd_ps(const lifecycle::Globals& g, const Args& args, size_t from) {
  // Everything after the id belongs to ps(1) (runc: `ps <id> [ps options]`, or after --).
  auto p = TRY(parse(kPsTable, args, from));
  if (p.positional.empty()) return fail("ps: requires the container id");
  std::string id = p.positional[0];
  std::vector<std::string> ps_args(p.positional.begin() + 1, p.positional.end());
  if (!ps_args.empty() && ps_args.front() == "--") ps_args.erase(ps_args.begin());
  std::string format = p.get("format", "table");
  if (format != "table" && format != "json") return fail("invalid format option \"" + format + "\"");

  auto pids = TRY(lifecycle::pids(g, id));
  if (format == "json") {
    json::Writer w;
    w.begin_array();
    for (pid_t pid : pids) w.integer(pid);
    w.end_array();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }
  if (ps_args.empty()) ps_args = {"-ef"};
  std::string table = TRY(filter_table(TRY(run_ps(ps_args)), pids));
  std::fputs(table.c_str(), stdout);
  return 0;
}

}  // namespace sh::cli
