// The state store under --root: one 0700 directory per container holding state.json
// (written atomically), a copy of the bundle's config.json, the start socket, and, for a
// container created under a policy, its floor (floor.json, lifecycle/floor.hpp), and once its
// wall clock ran out, the watchdog's record (watchdog-fired.json, lifecycle/watchdog_record.hpp).
// A flock on the directory serialises commands on one id.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::lifecycle {

// What the runtime remembers about a container between commands.
struct Record {
  std::string id;
  pid_t pid = 0;
  uint64_t start_time = 0;  // of the init process, pins the pid
  bool started = false;     // `start` released the barrier
  std::string bundle;
  std::string rootfs;
  std::string created;      // RFC 3339
  std::string owner;
  std::string cgroup_path;  // relative to each hierarchy root
  // --systemd-cgroup: the transient scope systemd made for the container (empty: none, the
  // cgroup is ours), and whether it is the user's manager's (a rootless caller's) or the system's.
  std::string systemd_unit;
  bool systemd_user = false;
  std::map<std::string, std::string> annotations;
  uint32_t ephemeral_uid = 0;  // claimed for this container (0: none), released on delete
  // Of a policy's wall clock, what the container used before this init started: a restored
  // container's earlier lives (the watchdog was re-armed with the rest).
  uint64_t wall_clock_spent_ms = 0;
  // Created under a policy: floor.json (lifecycle/floor.hpp) holds exec and update, and
  // must be there.
  bool floor = false;
  // Whether the saved config has poststart/poststop hooks: start and delete parse it only
  // then. A state written by an older binary lacks them: true, i.e. "load it and see".
  bool poststart_hooks = true;
  bool poststop_hooks = true;
};

std::string record_to_json(const Record& r);
Result<Record> record_from_json(std::string_view text, const std::string& origin);

// The default --root, as runc picks its own: $XDG_RUNTIME_DIR/sharness for a caller whose euid is
// not 0 (when XDG_RUNTIME_DIR is set), else /run/sharness.
std::string default_state_root();

// Container ids: [A-Za-z0-9_+.-], 1..1024 chars, not "." or "..".
Result<void> validate_id(std::string_view id);

class ContainerDir {
 public:
  const std::string& id() const { return id_; }
  const std::string& path() const { return path_; }
  std::string root() const { return path_.substr(0, path_.size() - id_.size() - 1); }
  int fd() const { return dirfd_.get(); }
  Result<Record> load() const;
  Result<void> save(const Record& r) const;
  // Atomically replace `name` in this directory (through the directory's fd).
  Result<void> write_atomic(const std::string& name, std::string_view data) const;
  // Path usable for bind/connect of a unix socket in this dir regardless of its length.
  std::string fd_path(const std::string& name) const;
  // Drop the flock early (a long-running command must not block the others).
  void unlock() const;
  // Remove every file and the directory itself.
  Result<void> remove();

 private:
  friend class Store;
  std::string id_, path_;
  Fd dirfd_;  // holds the flock
};

enum class Lock { none, shared, exclusive };

class Store {
 public:
  explicit Store(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }
  // A new container directory, locked; fails if the id exists.
  Result<ContainerDir> create(const std::string& id);
  // An existing one; "container X does not exist" otherwise. Readers (state, list) take
  // no lock so that a hook may query the container its create is still holding.
  Result<ContainerDir> open(const std::string& id, Lock lock = Lock::exclusive);
  // Container ids present (sorted).
  Result<std::vector<std::string>> list() const;

 private:
  Result<ContainerDir> lock(std::string id, Fd dirfd, Lock mode);
  std::string root_;
};

}  // namespace sh::lifecycle
