#include "runtime/lifecycle/state_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "base/fault.hpp"
#include "base/file.hpp"
#include "base/json.hpp"

namespace sh::lifecycle {

namespace {
constexpr const char* kStateFile = "state.json";

Result<void> mkdir_p(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) == 0 || errno == EEXIST) return {};
  if (errno != ENOENT) return sys_error("mkdir " + path);
  auto slash = path.rfind('/');
  if (slash == 0 || slash == std::string::npos) return sys_error("mkdir " + path);
  TRYV(mkdir_p(path.substr(0, slash), 0755));
  if (::mkdir(path.c_str(), mode) < 0 && errno != EEXIST) return sys_error("mkdir " + path);
  return {};
}
}  // namespace

std::string default_state_root() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (::geteuid() != 0 && xdg && xdg[0] == '/') return std::string(xdg) + "/sharness";
  return "/run/sharness";
}

Result<void> validate_id(std::string_view id) {
  if (id.empty()) return fail("invalid container id: must not be empty");
  if (id.size() > 1024) return fail("invalid container id: longer than 1024 characters");
  if (id[0] == '.') return fail("invalid container id \"" + std::string(id) + "\": must not start with a dot");
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '+' ||
              c == '-' || c == '.';
    if (!ok) return fail("invalid container id \"" + std::string(id) + "\": only [A-Za-z0-9_+.-] allowed");
  }
  return {};
}

std::string record_to_json(const Record& r) {
  json::Writer w;
  w.begin_object().kv("id", r.id).kv("pid", (long long)r.pid).key("startTime").uinteger(r.start_time);
  w.kv("started", r.started).kv("bundle", r.bundle).kv("rootfs", r.rootfs).kv("created", r.created);
  w.kv("owner", r.owner).kv("cgroupPath", r.cgroup_path).key("ephemeralUid").uinteger(r.ephemeral_uid);
  w.kv("poststartHooks", r.poststart_hooks).kv("poststopHooks", r.poststop_hooks);
  if (r.floor) w.kv("floor", true);
  if (r.wall_clock_spent_ms) w.key("wallClockSpentMs").uinteger(r.wall_clock_spent_ms);
  if (!r.systemd_unit.empty()) w.kv("systemdUnit", r.systemd_unit).kv("systemdUser", r.systemd_user);
  w.key("annotations").begin_object();
  for (auto& [k, v] : r.annotations) w.kv(k, v);
  w.end_object().end_object();
  return w.str();
}

Result<Record> record_from_json(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  auto root = doc.root();
  TRYV(root.expect_object());
  Record r;
  TRYV(root.opt("id", r.id));
  std::optional<int64_t> pid;
  std::optional<uint64_t> st;
  TRYV(root.opt("pid", pid));
  TRYV(root.opt("startTime", st));
  r.pid = pid ? pid_t(*pid) : 0;
  r.start_time = st.value_or(0);
  TRYV(root.opt("started", r.started));
  TRYV(root.opt("bundle", r.bundle));
  TRYV(root.opt("rootfs", r.rootfs));
  TRYV(root.opt("created", r.created));
  TRYV(root.opt("owner", r.owner));
  TRYV(root.opt("cgroupPath", r.cgroup_path));
  std::optional<uint64_t> euid;
  TRYV(root.opt("ephemeralUid", euid));
  r.ephemeral_uid = uint32_t(euid.value_or(0));
  std::optional<bool> post_start, post_stop;
  TRYV(root.opt("poststartHooks", post_start));
  TRYV(root.opt("poststopHooks", post_stop));
  r.poststart_hooks = post_start.value_or(true);
  r.poststop_hooks = post_stop.value_or(true);
  TRYV(root.opt("floor", r.floor));
  std::optional<uint64_t> spent;
  TRYV(root.opt("wallClockSpentMs", spent));
  r.wall_clock_spent_ms = spent.value_or(0);
  TRYV(root.opt("systemdUnit", r.systemd_unit));
  TRYV(root.opt("systemdUser", r.systemd_user));
  if (auto a = root.get("annotations"); a && !a->is_null()) {
    TRYV(a->each_member([&](std::string_view k, const json::Value& v) -> Result<void> {
      r.annotations[std::string(k)] = TRY(v.as_string());
      return {};
    }));
  }
  return r;
}

Result<Record> ContainerDir::load() const {
  auto text = read_file_at(dirfd_.get(), kStateFile, 16u << 20);
  // Readers take no lock: a delete may have removed the record under them (or a create not
  // written it yet). Said as clients expect a missing container to be said.
  if (!text && text.error().err == ENOENT) return fail("container " + id_ + " does not exist");
  if (!text) return fail(Error(text.error()).context("container " + id_ + ": read state"));
  return record_from_json(*text, path_ + "/" + kStateFile);
}

Result<void> ContainerDir::save(const Record& r) const { return write_atomic(kStateFile, record_to_json(r)); }

Result<void> ContainerDir::write_atomic(const std::string& name, std::string_view data) const {
  return write_file_atomic_at(dirfd_.get(), name, data, 0600, path_ + "/" + name);
}

void ContainerDir::unlock() const { ::flock(dirfd_.get(), LOCK_UN); }

std::string ContainerDir::fd_path(const std::string& name) const {
  return "/proc/self/fd/" + std::to_string(dirfd_.get()) + "/" + name;
}

Result<void> ContainerDir::remove() {
  // Only files live here (state, config copy, socket): unlink them, then the directory.
  Fd dup(::openat(dirfd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dup) return sys_error("open " + path_);
  DIR* d = ::fdopendir(dup.release());
  if (!d) return sys_error("opendir " + path_);
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    if (::unlinkat(dirfd_.get(), e->d_name, 0) < 0 && errno != ENOENT) {
      int err = errno;
      ::closedir(d);
      return sys_error("remove " + path_ + "/" + std::string(n), err);
    }
  }
  ::closedir(d);
  fault::point("delete.files-removed");
  if (::rmdir(path_.c_str()) < 0 && errno != ENOENT) return sys_error("remove " + path_);
  return {};
}

Result<ContainerDir> Store::lock(std::string id, Fd dirfd, Lock mode) {
  while (mode != Lock::none && ::flock(dirfd.get(), mode == Lock::exclusive ? LOCK_EX : LOCK_SH) < 0)
    if (errno != EINTR) return sys_error("lock container " + id);
  // A concurrent delete may have removed the directory while we waited.
  struct stat st;
  if (::fstat(dirfd.get(), &st) < 0) return sys_error("stat container " + id);
  if (st.st_nlink == 0) return fail("container " + id + " does not exist");
  ContainerDir c;
  c.id_ = std::move(id);
  c.path_ = root_ + "/" + c.id_;
  c.dirfd_ = std::move(dirfd);
  return c;
}

Result<ContainerDir> Store::create(const std::string& id) {
  TRYV(validate_id(id));
  TRYV(mkdir_p(root_, 0700));
  std::string path = root_ + "/" + id;
  if (::mkdir(path.c_str(), 0700) < 0) {
    if (errno == EEXIST) return fail("container " + id + " already exists");
    return sys_error("create state directory " + path);
  }
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return sys_error("open " + path);
  return lock(id, std::move(fd), Lock::exclusive);
}

Result<ContainerDir> Store::open(const std::string& id, Lock mode) {
  TRYV(validate_id(id));
  std::string path = root_ + "/" + id;
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return fail("container " + id + " does not exist");
    return sys_error("open " + path);
  }
  return lock(id, std::move(fd), mode);
}

Result<std::vector<std::string>> Store::list() const {
  std::vector<std::string> ids;
  DIR* d = ::opendir(root_.c_str());
  if (!d) {
    if (errno == ENOENT) return ids;
    return sys_error("open " + root_);
  }
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.empty() || n[0] == '.' || e->d_type != DT_DIR) continue;  // .uids etc. are ours, not containers
    if (validate_id(n)) ids.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace sh::lifecycle
