// `policy learn` (docs/learn.md): what a recording run saw (a Trace, filled by
// runtime/linux/syscall_recorder), and the policy it becomes. Pure: the folding of files into
// the rules a reviewer would write is unit-tested here; the recording is the kernel's part.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "spec-mapping/policy.hpp"

namespace sh::policy {

// What one run did, from its first execve to the exit of its last process.
struct Trace {
  std::set<std::string> syscalls;          // names, as libseccomp spells them
  std::map<std::string, uint64_t> files;   // canonical path of a non-directory -> Landlock fs rights used on it
  std::map<std::string, uint64_t> dirs;    // canonical path of a directory -> rights used on it or its entries
  std::set<std::string> created;           // what the run made (O_CREAT, mkdir, mknod, link, symlink, rename)
  std::set<std::string> execs;             // canonical paths executed, interpreters included
  std::set<uint16_t> bind, connect;        // TCP ports
  bool forked = false;                     // a clone, fork or vfork that made a process (not a thread)
  int64_t peak_tasks = 0;                  // the pids cgroup's peak (tasks, as pids.limit counts them)
};

// The sections `policy learn` writes; the others come from --from.
// The floor of the recording run: `from` (or an empty policy) without them, with the read-only root
// and pid namespace that the learned exec section implies (the run is recorded under every other
// bound, as it will run).
Policy recording_floor(const Policy& from);

// The learned policy: `from`'s other sections (or none), and from the trace: syscalls.allow
// (without the five every policy allows), files folded (fold_files), exec pinned with `sha256`
// (path -> digest, one for every trace.execs entry), ports, pids (fork false, or the peak).
struct LearnInput {
  const Policy* from = nullptr;  // nullptr: only the learned sections
  std::string id;                // the new policy's id
  std::string description;
  const Trace* trace = nullptr;
  const std::map<std::string, std::string>* sha256 = nullptr;
};
Result<Policy> learned_policy(const LearnInput& in);

// The file rules a reviewer would write for what the trace touched (docs/learn.md "Folding"):
//  - what the run created itself is granted on the nearest directory it did not create (a rule
//    names a path that exists when the container is created; temporary names differ each run);
//  - anything under /proc is one rule on /proc (pids and fds differ between runs);
//  - a pinned file read or executed needs no rule (the pin grants read_file and execute);
//  - outside /, /etc and /dev (secrets and devices stay named one by one), a file folds into the
//    nearest directory above it that the run listed, or else into its directory when the run
//    touched two or more files there;
//  - a rule whose rights an ancestor's rule already grants is dropped.
std::vector<FileRule> fold_files(const Trace& t);

}  // namespace sh::policy
