#include "cmd/sharness-runtime/cmd_create.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/lifecycle/checkpoint.hpp"

namespace sh::cli {
namespace {

// The CRIU flags checkpoint and restore share, as runc has them.
constexpr std::array kCriuFlags{
    Flag{.name = "image-path", .value = "DIR",
         .help = "the checkpoint's images (default: ./checkpoint); 0700, it holds the container's memory",
         .completes = Completes::directory},
    Flag{.name = "work-path", .value = "DIR", .help = "CRIU's logs (default: the image path)",
         .completes = Completes::directory},
    Flag{.name = "tcp-established", .help = "allow open TCP connections"},
    Flag{.name = "ext-unix-sk", .help = "allow external unix sockets"},
    Flag{.name = "shell-job", .help = "allow a shell job (a session and terminal from outside)"},
    Flag{.name = "file-locks", .help = "handle file locks"},
    Flag{.name = "manage-cgroups-mode", .value = "MODE",
         .help = "how CRIU handles cgroups: soft, full, strict or ignore", .completes = Completes::choices,
         .choices = "soft full strict ignore"},
    Flag{.name = "empty-ns", .value = "TYPE", .help = "a namespace whose contents CRIU leaves alone (network)",
         .repeatable = true},
    Flag{.name = "auto-dedup", .help = "free the image's pages already in a parent image"},
};
constexpr auto kCheckpointFlags = join_flags(
    kCriuFlags,
    std::array{Flag{.name = "parent-path", .value = "DIR", .help = "a previous --pre-dump, relative to the image path",
                    .completes = Completes::directory},
               Flag{.name = "leave-running", .help = "leave the container running after the checkpoint"},
               Flag{.name = "pre-dump", .help = "dump memory only, leaving the container running"}});
constexpr auto kRestoreFlags = join_flags(
    kCriuFlags,
    std::array{Flag{.name = "bundle", .alias = "b", .value = "DIR",
                    .help = "path to the bundle directory (default: the current directory)",
                    .completes = Completes::directory},
               Flag{.name = "detach", .alias = "d", .help = "return once the container runs, leaving it running"},
               Flag{.name = "pid-file", .value = "FILE", .help = "write the restored init's pid to FILE",
                    .completes = Completes::file},
               Flag{.name = "console-socket", .value = "SOCKET",
                    .help = "accepted as runc's; a container with a terminal is not checkpointed",
                    .completes = Completes::file},
               Flag{.name = "no-subreaper", .help = "do not become the subreaper of the restored processes"},
               Flag{.name = "no-pivot", .help = "accepted as runc's (CRIU makes the root)"}});
constexpr std::array kRestoreArgs{
    Arg{.name = "<container-id>", .help = "a name for the restored container, unique in --root"}};

lifecycle::CriuFlags criu_flags(const Parsed& p) {
  lifecycle::CriuFlags f;
  f.image_path = p.get("image-path", "checkpoint");
  f.work_path = p.get("work-path");
  f.manage_cgroups_mode = p.get("manage-cgroups-mode");
  f.empty_ns = p.all("empty-ns");
  f.tcp_established = p.flag("tcp-established");
  f.ext_unix_sk = p.flag("ext-unix-sk");
  f.shell_job = p.flag("shell-job");
  f.file_locks = p.flag("file-locks");
  f.auto_dedup = p.flag("auto-dedup");
  return f;
}

}  // namespace

const CommandTable kCheckpointTable{
    .name = "checkpoint",
    .summary = "checkpoint a running container with CRIU",
    .args = kIdArg,
    .flags = kCheckpointFlags,
    .description = "Dumps the container's processes with CRIU into the image path (made 0700: the images hold\n"
                   "the container's memory, its secrets included). Unless --leave-running or --pre-dump, the\n"
                   "container is gone afterwards. A container holding a bound CRIU cannot carry (a Landlock\n"
                   "domain, a policy's sidecars) is refused, naming the bound (docs/checkpoint.md).",
};
const CommandTable kRestoreTable{
    .name = "restore",
    .summary = "restore a container from a checkpoint",
    .args = kRestoreArgs,
    .flags = kRestoreFlags,
    .description = "Makes the container from the bundle as create does (the operator's policy, which must be the\n"
                   "checkpoint's, its cgroup and limits, its throwaway uid, its watchdog with the time it had\n"
                   "left) and restores its processes from the image path with CRIU. Without --detach, waits\n"
                   "for the container and exits with its status, then deletes it.",
};

Result<int> cmd_checkpoint(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kCheckpointTable, args, from));
  lifecycle::CheckpointOptions o;
  o.id = TRY(one_id(p.positional, "checkpoint"));
  o.criu = criu_flags(p);
  o.parent_path = p.get("parent-path");
  o.leave_running = p.flag("leave-running");
  o.pre_dump = p.flag("pre-dump");
  TRYV(lifecycle::checkpoint(g, o));
  return 0;
}

Result<int> cmd_restore(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kRestoreTable, args, from));
  lifecycle::RestoreOptions o;
  o.create.id = TRY(one_id(p.positional, "restore"));
  o.create.bundle = p.get("bundle");
  o.create.pid_file = p.get("pid-file");
  o.create.console_socket = p.get("console-socket");
  o.criu = criu_flags(p);
  o.detach = p.flag("detach");
  o.no_subreaper = p.flag("no-subreaper");
  return lifecycle::restore(g, o);
}

}  // namespace sh::cli
