// CRIU's own interface, as runc and libcriu use it: `criu swrk FD` is started as our child with one
// end of a SOCK_SEQPACKET socketpair, takes one request (a protobuf criu_req, criu_rpc.proto) and
// answers with notifications (the action scripts, which we answer) and then one response. Not a
// re-implementation of anything CRIU does: this file only says what to do and reads the answer.
//
// Why RPC and not libcriu: Debian 12 has no libcriu-dev (libcriu is itself a client of this same
// RPC), and libprotobuf-c has a static archive, so the static runtime speaks it directly and needs
// no dynamically linked helper.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace sh::criu {

enum class Request { dump, pre_dump, restore };

// criu_opts, in our terms (criu.cpp writes the message). Fds are ours and stay open.
struct Options {
  int images_dir_fd = -1;
  int work_dir_fd = -1;       // logs; -1: the images directory
  pid_t pid = 0;              // dump: the tree's root
  std::string root;           // restore: the container's root, a mount point
  std::string parent_img;     // dump: the previous pre-dump, relative to the images directory
  std::string log_file;       // in the work directory
  std::string freeze_cgroup;  // dump: freeze through this cgroup's freezer instead of ptrace
  bool leave_running = false, tcp_established = false, ext_unix_sk = false, shell_job = false,
       file_locks = false, track_mem = false, auto_dedup = false, rst_sibling = false;
  std::optional<int> manage_cgroups_mode;  // criu_cg_mode's number (cgroup_mode() below)
  std::vector<std::string> cgroup_roots;   // restore: the root of the tree's cgroups, every controller
  std::vector<std::string> external;       // "mnt[KEY]:VAL", "net[INODE]:KEY"
  std::vector<std::pair<std::string, int>> inherit_fds;  // restore: key -> our fd
  uint32_t empty_ns = 0;                   // CLONE_NEW* bits whose contents CRIU leaves alone
  // Called with CRIU's pid and these options before the request is sent. restore: puts CRIU into
  // the container's cgroup (a systemd scope is made with it) and names that cgroup in the options.
  std::function<Result<void>(pid_t, Options&)> on_spawn;
};

// --manage-cgroups-mode's words, as runc takes them: soft, full, strict, ignore.
Result<int> cgroup_mode(const std::string& word);

// An action-script notification ("setup-namespaces", "post-restore", "network-lock", ...), with the
// pid CRIU names (0 if none). An error answers it as failed, and CRIU gives up.
using Notify = std::function<Result<void>(const std::string& script, pid_t pid)>;

struct Answer {
  pid_t restored_pid = 0;  // restore: the tree's root, in our pid namespace
};

// Run one request through `criu swrk`. `criu` is a path or a name looked up in PATH. Errors
// carry CRIU's own message and the last error lines of its log in the work directory.
Result<Answer> call(const std::string& criu, Request type, const Options& o, const Notify& notify);

// "4.1.1", by the VERSION request (CRIU 3.0+); an error names the binary when it does not run.
Result<std::string> version(const std::string& criu);

}  // namespace sh::criu
