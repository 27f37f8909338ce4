// The container's cgroup: directories in every hierarchy, resources, membership, freezer,
// teardown. v1- and v2-specific translation lives in cgroups_v1.cpp / cgroups_v2.cpp; the
// layout and cgroupsPath logic in cgroups_layout.cpp.
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>

#include "base/file.hpp"
#include "base/log.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/cgroups_impl.hpp"

namespace sh::cgroups {
namespace detail {
// Hierarchy roots opened and verified in this process, by mount point (see root_of), with the
// device and inode each fd was opened on.
struct Root {
  Dir dir;
  dev_t dev = 0;
  ino_t ino = 0;
};
std::map<std::string, Root, std::less<>> g_roots;
namespace {

bool g_any_fs = false;

// One level down, refusing symlinks (O_DIRECTORY|O_NOFOLLOW fails on them).
Result<Dir> open_child(const Dir& parent, const std::string& name) {
  std::string path = parent.path + "/" + name;
  int fd = ::openat(parent.fd.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return sys_error("open " + path);
  return Dir{std::move(path), Fd(fd), parent.v2};
}

// v1 cpuset refuses tasks while cpuset.cpus/mems are empty, and new directories start
// empty: inherit the parent's values.
Result<void> populate_cpuset(const Dir& parent, const Dir& child) {
  for (const char* f : {"cpuset.cpus", "cpuset.mems"}) {
    if (!TRY(child.read_trimmed(f)).empty()) continue;
    TRYV(child.write(f, TRY(parent.read_trimmed(f))));
  }
  return {};
}

// A copy of a kept directory's fd (O_CLOEXEC), for a caller that owns what it gets.
Result<Dir> dup_dir(const Dir& d) {
  int fd = ::fcntl(d.fd.get(), F_DUPFD_CLOEXEC, 3);
  if (fd < 0) return sys_error("dup fd of " + d.path);
  return Dir{d.path, Fd(fd), d.v2};
}

Result<Dir> make_dir_once(const Hierarchy& h, const std::vector<std::string>& comps,
                          std::vector<std::string>& created, Dir* parent_out) {
  const Dir* cur = TRY(root_of(h.mount, h.v2));
  Dir owned, prev;
  for (size_t i = 0; i < comps.size(); ++i) {
    std::string path = cur->path + "/" + comps[i];
    const bool made = ::mkdirat(cur->fd.get(), comps[i].c_str(), 0755) == 0;
    if (made)
      created.push_back(join(comps, i + 1));
    else if (errno != EEXIST)
      return sys_error("mkdir " + path);
    Dir next = TRY(open_child(*cur, comps[i]));
    if (h.cpuset_v1) {
      TRYV(populate_cpuset(*cur, next));
      // A parent made here hands its cpus and mems to each new child itself (clone_children,
      // at mkdir): a write of cpuset.cpus instead checks the value against every sibling and
      // rebuilds the scheduler domains, 0.11 against 0.03 ms per container with 500 siblings
      // (bench/results/profile.md). Best effort: populate_cpuset fills a child left empty.
      // The kernel passes the flag down; the container's own directory gets it cleared, as
      // runc and crun leave it.
      if (made) (void)next.write("cgroup.clone_children", i + 1 < comps.size() ? "1" : "0");
    }
    if (owned.fd) prev = std::move(owned);  // the leaf's parent, once there is a next level
    owned = std::move(next);
    cur = &owned;
  }
  if (comps.empty()) return dup_dir(*cur);
  if (parent_out) *parent_out = comps.size() == 1 ? TRY(dup_dir(*TRY(root_of(h.mount, h.v2)))) : std::move(prev);
  return owned;
}

bool has_word(std::string_view text, std::string_view word) {
  size_t pos = 0;
  while ((pos = text.find(word, pos)) != std::string_view::npos) {
    bool start = pos == 0 || text[pos - 1] == ' ' || text[pos - 1] == '\n';
    size_t end = pos + word.size();
    bool stop = end == text.size() || text[end] == ' ' || text[end] == '\n';
    if (start && stop) return true;
    pos = end;
  }
  return false;
}

}  // namespace

void allow_any_fs_for_tests(bool allow) {
  g_any_fs = allow;
  g_roots.clear();  // a root kept under one rule is not trusted under the other
}

// Open a hierarchy's mount point and check it really is cgroupfs (a path from mountinfo
// could have been over-mounted since), once per process: later operations go through the
// verified O_PATH fd, which an over-mount cannot redirect either.
Result<const Dir*> root_of(const std::string& mount, bool v2) {
  if (auto it = g_roots.find(mount); it != g_roots.end()) {
    // A daemon that closes every fd it inherits (the KMS, hooks) leaves a stale number here,
    // maybe reused by something else: check it still is the directory we verified, and if not
    // forget it without closing it (the number is someone else's now).
    struct stat st;
    const Root& r = it->second;
    if (r.dir.v2 == v2 && ::fstat(r.dir.fd.get(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == r.dev &&
        st.st_ino == r.ino)
      return &r.dir;
    (void)it->second.dir.fd.release();
    g_roots.erase(it);
  }
  int fd = ::open(mount.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return sys_error("open " + mount);
  Root r{Dir{mount, Fd(fd), v2}};
  if (!g_any_fs) {
    struct statfs st;
    if (::fstatfs(fd, &st) < 0) return sys_error("statfs " + mount);
    if (st.f_type != (v2 ? CGROUP2_SUPER_MAGIC : CGROUP_SUPER_MAGIC))
      return fail(mount + ": not a " + (v2 ? "cgroup2" : "cgroup") + " filesystem");
  }
  struct stat st;
  if (::fstat(fd, &st) < 0) return sys_error("stat " + mount);
  r.dev = st.st_dev;
  r.ino = st.st_ino;
  auto [it, fresh] = g_roots.insert_or_assign(mount, std::move(r));
  return &it->second.dir;
}


// ---- Dir ---------------------------------------------------------------------------------
Result<void> Dir::write(std::string_view file, std::string_view value) const {
  std::string p = file_path(file);
  int fd = ::openat(this->fd.get(), std::string(file).c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return sys_error("open " + p);
  Fd f(fd);
  return write_all(fd, value, p);
}

Result<std::string> Dir::read(std::string_view file) const {
  std::string p = file_path(file);
  int fd = ::openat(this->fd.get(), std::string(file).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return sys_error("open " + p);
  Fd f(fd);
  return read_fd(fd, p, 1u << 20);
}

Result<std::string> Dir::read_trimmed(std::string_view file) const {
  std::string s = TRY(read(file));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool Dir::has(std::string_view file) const {
  struct stat st;
  return ::fstatat(fd.get(), std::string(file).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

// ---- hierarchies and directories ---------------------------------------------------------
std::vector<Hierarchy> hierarchies(const Layout& l) {
  if (l.mode == Mode::v2) return {Hierarchy{l.unified_mount, true, false}};
  std::vector<Hierarchy> out;
  for (const auto& [ctrl, mount] : l.v1_mounts) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Hierarchy& h) { return h.mount == mount; });
    if (it == out.end()) it = out.insert(out.end(), Hierarchy{mount, false, false});
    if (ctrl == "cpuset") it->cpuset_v1 = true;
  }
  if (l.mode == Mode::hybrid && !l.unified_mount.empty()) out.push_back(Hierarchy{l.unified_mount, true, false});
  return out;
}

std::optional<Hierarchy> hierarchy_for(const Layout& l, std::string_view v1_name, std::string_view v2_name) {
  if (l.mode != Mode::v2 && !v1_name.empty()) {
    auto it = l.v1_mounts.find(std::string(v1_name));
    if (it != l.v1_mounts.end()) return Hierarchy{it->second, false, v1_name == "cpuset"};
  }
  if (l.mode != Mode::v1 && !v2_name.empty() && !l.unified_mount.empty() &&
      std::find(l.v2_controllers.begin(), l.v2_controllers.end(), v2_name) != l.v2_controllers.end())
    return Hierarchy{l.unified_mount, true, false};
  return std::nullopt;
}

std::string join(const std::vector<std::string>& comps, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += "/" + comps[i];
  return out;
}

Result<std::vector<std::string>> components(std::string_view rel) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t pos = rel.find('/', start);
    if (pos == std::string_view::npos) pos = rel.size();
    std::string_view c = rel.substr(start, pos - start);
    if (c == "..") return fail("cgroup path " + std::string(rel) + ": \"..\" is not allowed");
    if (!c.empty() && c != ".") out.emplace_back(c);
    start = pos + 1;
  }
  return out;
}

Result<Dir> open_dir(const std::string& mount, std::string_view rel, bool v2) {
  auto comps = TRY(components(rel));
  const Dir* root = TRY(root_of(mount, v2));
  if (comps.empty()) return dup_dir(*root);
  Dir cur = TRY(open_child(*root, comps[0]));
  for (size_t i = 1; i < comps.size(); ++i) cur = TRY(open_child(cur, comps[i]));
  return cur;
}

Result<Dir> make_dir(const Hierarchy& h, std::string_view rel, std::vector<std::string>& created, Dir* parent) {
  auto comps = TRY(components(rel));
  // Another runtime deleting its sibling may rmdir a shared empty parent between our
  // mkdir and the next level's: start over a few times.
  for (int attempt = 0;; ++attempt) {
    auto d = make_dir_once(h, comps, created, parent);
    if (d || d.error().err != ENOENT || attempt == 4) return d;
  }
}

Result<void> remove_child(const Dir& parent, const std::string& name) {
  if (::unlinkat(parent.fd.get(), name.c_str(), AT_REMOVEDIR) < 0 && errno != ENOENT)
    return sys_error("rmdir " + parent.path + "/" + name);
  return {};
}

Result<void> remove_dir(const std::string& mount, std::string_view rel, bool v2) {
  auto comps = TRY(components(rel));
  if (comps.empty()) return fail("refusing to remove the root of " + mount);
  auto parent = open_dir(mount, join(comps, comps.size() - 1), v2);
  if (!parent) {
    if (parent.error().err == ENOENT) return {};
    return fail(std::move(parent.error()));
  }
  return remove_child(*parent, comps.back());
}

Result<void> write_pair(const Dir& d, std::string_view fa, const std::string& va, std::string_view fb,
                        const std::string& vb) {
  auto in_order = [&](std::string_view f1, const std::string& x1, std::string_view f2,
                      const std::string& x2) -> Result<void> {
    TRYV(d.write(f1, x1));
    return d.write(f2, x2);
  };
  auto r = in_order(fa, va, fb, vb);
  if (r || r.error().err != EINVAL) return r;
  return in_order(fb, vb, fa, va);
}

std::optional<uint64_t> parse_u64(std::string_view s, uint64_t max_value) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  if (s == "max") return max_value;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> keyed_value(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ' ')
      return parse_u64(line.substr(key.size() + 1));
    pos = end + 1;
  }
  return std::nullopt;
}

// ---- Dirs --------------------------------------------------------------------------------
Result<const Dir*> Dirs::open(const Hierarchy& h) {
  auto it = open_.find(h.mount);
  if (it == open_.end()) it = open_.emplace(h.mount, TRY(open_dir(h.mount, rel_, h.v2))).first;
  return &it->second;
}

Result<const Dir*> Dirs::find(std::string_view v1_name, std::string_view v2_name, bool enable) {
  auto h = hierarchy_for(layout_, v1_name, v2_name);
  if (!h) return nullptr;
  if (h->v2 && enable) TRYV(enable_v2(v2_name));
  return open(*h);
}

Result<const Dir*> Dirs::need(std::string_view v1_name, std::string_view v2_name, std::string_view what) {
  const Dir* d = TRY(find(v1_name, v2_name, true));
  if (!d) {
    std::string name(layout_.mode == Mode::v2 ? v2_name : v1_name);
    return fail(std::string(what) + ": no " + name + " cgroup controller on this host (cgroup " +
                mode_name(layout_.mode) + ")");
  }
  return d;
}

Result<const Dir*> Dirs::unified() {
  if (layout_.unified_mount.empty()) return nullptr;
  return open(Hierarchy{layout_.unified_mount, true, false});
}

Result<void> Dirs::enable_v2(std::string_view controller) {
  if (enabled_.contains(controller)) return {};
  if (std::find(layout_.v2_controllers.begin(), layout_.v2_controllers.end(), controller) ==
      layout_.v2_controllers.end())
    return fail("cgroup2 controller " + std::string(controller) + " is not available in " + layout_.unified_mount);
  auto comps = TRY(components(rel_));
  const Dir* cur = TRY(root_of(layout_.unified_mount, true));
  Dir owned;
  // Every ancestor of the container (root included, leaf excluded) must delegate it.
  for (size_t i = 0; i < comps.size(); ++i) {
    std::string sc = TRY(cur->read("cgroup.subtree_control"));
    if (!has_word(sc, controller)) TRYV(cur->write("cgroup.subtree_control", "+" + std::string(controller)));
    if (i + 1 == comps.size()) break;
    Dir next = TRY(open_child(*cur, comps[i]));
    owned = std::move(next);
    cur = &owned;
  }
  enabled_.emplace(controller);
  return {};
}

// ---- controllers with the same files on v1 and v2 ----------------------------------------
Result<void> cpuset(const Dir& d, const oci::CpuResources& c) {
  if (c.cpus && !c.cpus->empty()) TRYV(d.write("cpuset.cpus", *c.cpus));
  if (c.mems && !c.mems->empty()) TRYV(d.write("cpuset.mems", *c.mems));
  return {};
}

Result<void> pids(const Dir& d, const oci::PidsResources& p) {
  return d.write("pids.max", p.limit > 0 ? std::to_string(p.limit) : "max");
}

Result<void> hugetlb(const Dir& d, const std::vector<oci::HugepageLimit>& limits) {
  const std::string suffix = d.v2 ? "max" : "limit_in_bytes";
  for (const auto& l : limits) {
    bool ok = !l.page_size.empty() &&
              std::all_of(l.page_size.begin(), l.page_size.end(), [](char c) { return isalnum((unsigned char)c); });
    if (!ok) return fail("linux.resources.hugepageLimits: invalid page size \"" + l.page_size + "\"");
    std::string file = "hugetlb." + l.page_size + "." + suffix;
    if (!d.has(file))
      return fail("linux.resources.hugepageLimits: page size " + l.page_size + " is not supported here (no " +
                  d.file_path(file) + ")");
    TRYV(d.write(file, std::to_string(l.limit)));
    // Reservations count too since 5.7: cap them the same, or a reservation escapes the limit.
    std::string rsvd = "hugetlb." + l.page_size + ".rsvd." + suffix;
    if (d.has(rsvd)) TRYV(d.write(rsvd, std::to_string(l.limit)));
  }
  return {};
}

}  // namespace detail

// ---- applying resources -------------------------------------------------------------------
namespace {
using namespace detail;

bool any(const oci::MemoryResources& m) {
  return m.limit || m.reservation || m.swap || m.kernel || m.kernel_tcp || m.swappiness || m.disable_oom_killer;
}
bool any_cpu(const oci::CpuResources& c) {
  return c.shares || c.quota || c.burst || c.period || c.realtime_runtime || c.realtime_period || c.idle;
}
bool any_cpuset(const oci::CpuResources& c) { return (c.cpus && !c.cpus->empty()) || (c.mems && !c.mems->empty()); }
bool any(const oci::BlockIoResources& b) {
  return b.weight || b.leaf_weight || !b.weight_device.empty() || !b.throttle_read_bps.empty() ||
         !b.throttle_write_bps.empty() || !b.throttle_read_iops.empty() || !b.throttle_write_iops.empty();
}

// What can be refused before anything is created.
Result<void> precheck(const Layout& l, const oci::Resources& r) {
  if (!r.unified.empty()) {
    if (l.mode != Mode::v2) return fail("linux.resources.unified: requires cgroup v2");
    for (const auto& [k, v] : r.unified) TRYV(v2::check_unified_key(k));
  }
  if (!r.rdma_keys.empty()) return fail("linux.resources.rdma: not supported");
  return {};
}

Result<void> apply_network(Dirs& dirs, const oci::NetworkResources& n) {
  if (n.class_id) {
    const Dir* d = TRY(dirs.find("net_cls", ""));
    if (d)
      TRYV(d->write("net_cls.classid", std::to_string(*n.class_id)));
    else
      log::warn("linux.resources.network.classID: no net_cls cgroup controller on this host: not applied");
  }
  if (!n.priorities.empty()) {
    const Dir* d = TRY(dirs.find("net_prio", ""));
    if (!d) {
      log::warn("linux.resources.network.priorities: no net_prio cgroup controller on this host: not applied");
      return {};
    }
    for (const auto& [ifname, prio] : n.priorities) {
      if (ifname.empty() || ifname.find_first_of(" \n\t/") != std::string::npos)
        return fail("linux.resources.network.priorities: invalid interface name \"" + ifname + "\"");
      TRYV(d->write("net_prio.ifpriomap", ifname + " " + std::to_string(prio)));
    }
  }
  return {};
}

Result<void> apply(Dirs& dirs, const Layout& l, const oci::Resources& r, bool updating) {
  TRYV(precheck(l, r));
  if (r.memory && any(*r.memory)) {
    const Dir* d = TRY(dirs.need("memory", "memory", "linux.resources.memory"));
    TRYV(d->v2 ? v2::memory(*d, *r.memory, updating) : v1::memory(*d, *r.memory, updating));
  }
  if (r.cpu && any_cpu(*r.cpu)) {
    const Dir* d = TRY(dirs.need("cpu", "cpu", "linux.resources.cpu"));
    TRYV(d->v2 ? v2::cpu(*d, *r.cpu) : v1::cpu(*d, *r.cpu));
  }
  if (r.cpu && any_cpuset(*r.cpu)) {
    const Dir* d = TRY(dirs.need("cpuset", "cpuset", "linux.resources.cpu.cpus/mems"));
    TRYV(cpuset(*d, *r.cpu));
  }
  if (r.pids) TRYV(pids(*TRY(dirs.need("pids", "pids", "linux.resources.pids")), *r.pids));
  if (r.block_io && any(*r.block_io)) {
    const Dir* d = TRY(dirs.need("blkio", "io", "linux.resources.blockIO"));
    TRYV(d->v2 ? v2::io(*d, *r.block_io) : v1::blkio(*d, *r.block_io));
  }
  if (!r.hugepage_limits.empty())
    TRYV(hugetlb(*TRY(dirs.need("hugetlb", "hugetlb", "linux.resources.hugepageLimits")), r.hugepage_limits));
  if (r.network) TRYV(apply_network(dirs, *r.network));
  if (!r.devices.empty()) {
    const Dir* d = TRY(dirs.find("devices", ""));
    if (d)
      TRYV(v1::devices(*d, r.devices));
    else if (l.mode == Mode::v2)
      TRYV(v2::devices(*TRY(dirs.unified()), r.devices));
    else
      log::warn("linux.resources.devices: no devices cgroup controller on this host: device rules not enforced");
  }
  if (!r.unified.empty()) TRYV(v2::unified(dirs, r.unified));
  return {};
}

// Every public operation refuses the root: destroy() there would kill the host.
Result<void> check_path(const std::string& path) {
  auto comps = TRY(components(path));
  if (comps.empty()) return fail("cgroup path \"" + path + "\": refusing to use a hierarchy root");
  return {};
}

// Where the freezer is: the v1 freezer hierarchy, else the core freezer of cgroup2.
std::optional<Hierarchy> freezer_hierarchy(const Layout& l) {
  if (auto h = hierarchy_for(l, "freezer", "")) return h;
  if (l.unified_mount.empty()) return std::nullopt;
  return Hierarchy{l.unified_mount, true, false};
}

Result<Dir> freezer_dir(const Layout& l, const std::string& path) {
  auto h = freezer_hierarchy(l);
  if (!h) return fail("no freezer: neither a v1 freezer hierarchy nor cgroup2");
  return open_dir(h->mount, path, h->v2);
}

Result<std::vector<pid_t>> read_procs(const Dir& d) {
  std::string text = TRY(d.read("cgroup.procs"));
  std::vector<pid_t> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (auto v = parse_u64(std::string_view(text).substr(pos, end - pos)); v && *v > 0) out.push_back(pid_t(*v));
    pos = end + 1;
  }
  return out;
}

// The cgroups a container made below its own (a nested runtime, systemd inside, or a
// cgroup namespace with a writable cgroupfs), deepest first, each with its name and parent.
// The container controls this tree: symlinks are never followed and the depth is bounded.
struct Below {
  Dir dir;
  size_t parent;  // index in the list, or npos for the container's own directory
  std::string name;
};
constexpr size_t kTop = std::string::npos;
constexpr int kMaxDepth = 32;

Result<void> walk_below(const Dir& d, size_t self, int depth, std::deque<Below>& out) {
  Fd rd(::openat(d.fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!rd) return errno == ENOENT ? Result<void>() : sys_error("open " + d.path);
  DIR* ds = ::fdopendir(rd.get());
  if (!ds) return sys_error("read " + d.path);
  (void)rd.release();
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(ds))
    if (e->d_type == DT_DIR && std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  ::closedir(ds);
  for (auto& n : names) {
    if (depth >= kMaxDepth) return fail("cgroup " + d.path + ": nested deeper than " + std::to_string(kMaxDepth));
    auto child = open_child(d, n);
    if (!child) {
      if (child.error().err == ENOENT) continue;  // gone meanwhile
      return fail(std::move(child.error()));
    }
    size_t at = out.size();
    out.push_back(Below{std::move(*child), self, n});
    TRYV(walk_below(out[at].dir, at, depth + 1, out));
  }
  return {};
}

// Every cgroup below `d`, parents before children (a deque: references stay valid as it grows).
Result<std::deque<Below>> tree_of(const Dir& d) {
  std::deque<Below> out;
  TRYV(walk_below(d, kTop, 0, out));
  return out;
}

// The processes in `d` and in every cgroup below it.
Result<std::vector<pid_t>> procs_below(const Dir& d) {
  std::vector<pid_t> all = TRY(read_procs(d));
  for (const auto& b : TRY(tree_of(d))) {
    auto p = read_procs(b.dir);
    if (!p) {
      if (p.error().err == ENOENT) continue;
      return fail(std::move(p.error()));
    }
    all.insert(all.end(), p->begin(), p->end());
  }
  return all;
}

// rmdir every cgroup below `d`, deepest first (EBUSY for a moment after the last task exits).
Result<void> remove_below(const Dir& d) {
  auto tree = TRY(tree_of(d));
  for (auto it = tree.rbegin(); it != tree.rend(); ++it) {
    const Dir& parent = it->parent == kTop ? d : tree[it->parent].dir;
    Result<void> r;
    auto gone = [&]() -> Result<bool> {
      r = remove_child(parent, it->name);
      return r || r.error().err != EBUSY;
    };
    TRYV(wait_until(gone, 2000));
    TRYV(r);
  }
  return {};
}

// Thaw (a frozen task cannot die), cgroup.kill where there is one (it takes the cgroups below
// too), then SIGKILL what is listed until every hierarchy's cgroup.procs, and those of the
// cgroups below, are empty.
Result<void> kill_all(const std::vector<const Dir*>& dirs, const std::string& path) {
  for (const Dir* dp : dirs) {
    const Dir& d = *dp;
    if (!d.v2 && d.has("freezer.state")) (void)d.write("freezer.state", "THAWED");
    if (d.v2 && d.has("cgroup.freeze")) (void)d.write("cgroup.freeze", "0");
    if (d.v2 && d.has("cgroup.kill")) (void)d.write("cgroup.kill", "1");
  }
  auto empty_now = [&]() -> Result<bool> {
    std::vector<pid_t> all;
    for (const Dir* d : dirs) {
      auto p = procs_below(*d);
      if (!p) {
        if (p.error().err == ENOENT) continue;
        return fail(std::move(p.error()));
      }
      all.insert(all.end(), p->begin(), p->end());
    }
    for (pid_t p : all) ::kill(p, SIGKILL);
    return all.empty();
  };
  if (!TRY(wait_until(empty_now, 2000)))
    return std::unexpected(Error{EBUSY, "kill processes of cgroup " + path + ": still populated after 2s"});
  return {};
}

// rmdir the container's directory in one hierarchy (EBUSY for a moment after the last task
// exits is normal). Its parents stay, empty or not, as with runc and crun: they may be a
// client's (a Kubernetes pod's cgroup carries the pod's limits, and a container created
// later under a re-made parent would escape them).
Result<void> remove_leaf(const Hierarchy& h, const std::string& path, const Dir* parent) {
  Result<void> leaf;
  std::string name;
  if (parent) name = TRY(components(path)).back();
  auto gone = [&]() -> Result<bool> {
    leaf = parent ? remove_child(*parent, name) : remove_dir(h.mount, path, h.v2);
    return leaf || leaf.error().err != EBUSY;
  };
  TRYV(wait_until(gone, 2000));
  return leaf;
}

// The container's directory in a hierarchy: kept from create or an earlier call, else opened
// now (from the verified root, O_NOFOLLOW at each level) and kept.
Result<const Dir*> leaf_in(Kept& kept, const Hierarchy& h, const std::string& path) {
  auto it = kept.leaves.find(h.mount);
  if (it == kept.leaves.end()) it = kept.leaves.emplace(h.mount, TRY(open_dir(h.mount, path, h.v2))).first;
  return &it->second;
}

}  // namespace

// ---- Cgroup -------------------------------------------------------------------------------
void close_kept_roots() { detail::g_roots.clear(); }

std::vector<int> kept_root_fds() {
  std::vector<int> out;
  for (const auto& [m, r] : detail::g_roots) out.push_back(r.dir.fd.get());
  return out;
}

Cgroup::Cgroup() : kept_(std::make_shared<Kept>()) {}
Cgroup::Cgroup(Layout layout, std::string rel_path)
    : layout_(std::move(layout)), path_(std::move(rel_path)), kept_(std::make_shared<Kept>()) {}

std::vector<int> Cgroup::kept_fds() const {
  std::vector<int> out = kept_root_fds();
  for (auto* m : {&kept_->leaves, &kept_->parents})
    for (const auto& [mount, d] : *m) out.push_back(d.fd.get());
  return out;
}

Result<void> Cgroup::create(const oci::Resources* res) {
  TRYV(check_path(path_));
  if (res) TRYV(precheck(layout_, *res));
  std::vector<std::pair<std::string, std::string>> created;  // (mount, rel), creation order
  auto r = [&]() -> Result<void> {
    Dirs dirs(layout_, path_, &kept_->leaves);
    auto comps = TRY(components(path_));
    const std::string leaf = join(comps, comps.size());
    for (const auto& h : hierarchies(layout_)) {
      std::vector<std::string> made;
      Dir parent;
      auto d = make_dir(h, path_, made, &parent);
      // Before `made` is moved from: a leaf this create made is empty, nothing to read.
      const bool leaf_created = !made.empty() && made.back() == leaf;
      for (auto& m : made) created.emplace_back(h.mount, std::move(m));
      if (!d) return fail(std::move(d.error()));
      // A leftover directory may hold another container's processes; destroy() would kill them.
      if (!leaf_created && !TRY(read_procs(*d)).empty())
        return fail("cgroup " + d->path + " already exists and holds processes");
      kept_->leaves.insert_or_assign(h.mount, std::move(*d));
      kept_->parents.insert_or_assign(h.mount, std::move(parent));
    }
    if (layout_.mode == Mode::v2) {
      // Delegate the usual controllers now, so stats and later updates find their files.
      for (const char* c : {"cpu", "cpuset", "io", "memory", "pids", "hugetlb"}) {
        if (std::find(layout_.v2_controllers.begin(), layout_.v2_controllers.end(), c) == layout_.v2_controllers.end())
          continue;
        if (auto e = dirs.enable_v2(c); !e) log::debug("cgroup: " + e.error().what());
      }
    }
    if (res) TRYV(apply(dirs, layout_, *res, false));
    return {};
  }();
  if (!r) {
    *kept_ = Kept{};
    for (auto it = created.rbegin(); it != created.rend(); ++it)
      if (auto e = remove_dir(it->first, it->second, it->first == layout_.unified_mount); !e)
        log::warn("cgroup cleanup: " + e.error().what());
  }
  return r;
}

Result<void> Cgroup::adopt(const oci::Resources* res) {
  TRYV(check_path(path_));
  if (res) TRYV(precheck(layout_, *res));
  auto comps = TRY(components(path_));
  for (const auto& h : hierarchies(layout_)) {
    TRYV(leaf_in(*kept_, h, path_));
    kept_->parents.insert_or_assign(h.mount, TRY(open_dir(h.mount, join(comps, comps.size() - 1), h.v2)));
  }
  if (!res) return {};
  Dirs dirs(layout_, path_, &kept_->leaves);
  return apply(dirs, layout_, *res, false);
}

Result<void> Cgroup::add_pid(pid_t pid, bool except_v1) const {
  TRYV(check_path(path_));
  for (const auto& h : hierarchies(layout_)) {
    if (except_v1 && !h.v2) continue;
    const Dir* d = TRY(leaf_in(*kept_, h, path_));
    TRYV(d->write("cgroup.procs", std::to_string(pid)));
  }
  return {};
}

Result<std::vector<TasksFile>> Cgroup::open_v1_tasks() const {
  TRYV(check_path(path_));
  std::vector<TasksFile> out;
  for (const auto& h : hierarchies(layout_)) {
    if (h.v2) continue;
    const Dir* d = TRY(leaf_in(*kept_, h, path_));
    std::string p = d->file_path("tasks");
    int fd = ::openat(d->fd.get(), "tasks", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return sys_error("open " + p);
    out.push_back(TasksFile{std::move(p), Fd(fd)});
  }
  return out;
}

Result<void> join_self(const std::vector<TasksFile>& files) {
  for (const auto& f : files)
    if (::write(f.fd.get(), "0", 1) != 1) return sys_error("join cgroup: write 0 to " + f.path);
  return {};
}

Result<void> Cgroup::update(const oci::Resources& res) const {
  TRYV(check_path(path_));
  Dirs dirs(layout_, path_, &kept_->leaves);
  return apply(dirs, layout_, res, true);
}

Result<void> Cgroup::freeze(bool frozen) const {
  TRYV(check_path(path_));
  Dir d = TRY(freezer_dir(layout_, path_));
  return d.v2 ? v2::freeze(d, frozen) : v1::freeze(d, frozen);
}

Result<bool> Cgroup::is_frozen() const {
  TRYV(check_path(path_));
  Dir d = TRY(freezer_dir(layout_, path_));
  return d.v2 ? v2::is_frozen(d) : v1::is_frozen(d);
}

Result<std::vector<pid_t>> Cgroup::pids() const {
  TRYV(check_path(path_));
  std::vector<Hierarchy> order;
  for (auto c : {"pids", "memory"})
    if (auto h = hierarchy_for(layout_, c, c)) order.push_back(*h);
  if (!layout_.unified_mount.empty()) order.push_back(Hierarchy{layout_.unified_mount, true, false});
  for (auto& h : hierarchies(layout_)) order.push_back(h);
  std::optional<Error> first;
  for (const auto& h : order) {
    auto d = open_dir(h.mount, path_, h.v2);
    if (d) return procs_below(*d);
    if (!first) first = std::move(d.error());
  }
  if (first) return fail(std::move(*first));
  return fail("cgroup " + path_ + ": no hierarchy");
}

Result<void> Cgroup::signal_all(int sig) const {
  TRYV(check_path(path_));
  if (sig == SIGKILL && layout_.mode == Mode::v2) {
    const Dir* d = TRY(leaf_in(*kept_, Hierarchy{layout_.unified_mount, true, false}, path_));
    if (d->has("cgroup.kill")) return d->write("cgroup.kill", "1");
  }
  for (pid_t p : TRY(pids()))
    if (::kill(p, sig) < 0 && errno != ESRCH) return sys_error("kill pid " + std::to_string(p));
  return {};
}

Result<void> Cgroup::destroy() const {
  TRYV(check_path(path_));
  std::string name = TRY(components(path_)).back();
  // Mostly the container is gone already (init exited, and its pid namespace with it): the
  // kernel's own check removes an empty directory at once (rmdir is EBUSY while a process or
  // a child cgroup is in it), without opening it or reading its cgroup.procs. A hierarchy
  // where that fails gets the whole treatment below: thaw, kill, wait, rmdir.
  std::vector<Hierarchy> hs;
  for (auto& h : hierarchies(layout_)) {
    auto p = kept_->parents.find(h.mount);
    auto r = p == kept_->parents.end() ? remove_dir(h.mount, path_, h.v2) : remove_child(p->second, name);
    if (r) {
      kept_->leaves.erase(h.mount);
      kept_->parents.erase(h.mount);
    } else {
      hs.push_back(std::move(h));
    }
  }
  std::vector<const Dir*> dirs;
  for (const auto& h : hs) {
    auto d = leaf_in(*kept_, h, path_);
    if (d)
      dirs.push_back(*d);
    else if (d.error().err != ENOENT)
      return fail(std::move(d.error()).context("destroy cgroup"));
  }
  if (!dirs.empty()) TRYVC("destroy cgroup", kill_all(dirs, path_));
  for (const Dir* d : dirs) TRYVC("destroy cgroup", remove_below(*d));
  dirs.clear();
  kept_->leaves.clear();  // an rmdir'd directory is never used again
  std::optional<Error> first;
  for (const auto& h : hs) {
    auto p = kept_->parents.find(h.mount);
    if (auto r = remove_leaf(h, path_, p == kept_->parents.end() ? nullptr : &p->second); !r && !first)
      first = std::move(r.error());
  }
  kept_->parents.clear();
  if (first) return fail(std::move(*first).context("destroy cgroup"));
  return {};
}

std::string Cgroup::freezer_path() const {
  auto h = freezer_hierarchy(layout_);
  return h ? h->mount + path_ : "";
}

std::string Cgroup::dir_for(const std::string& controller) const {
  if (controller.empty()) return layout_.unified_mount.empty() ? "" : layout_.unified_mount + path_;
  auto h = hierarchy_for(layout_, controller, controller == "blkio" ? "io" : controller);
  return h ? h->mount + path_ : "";
}

Result<int> Cgroup::open_v2_dir() const {
  if (layout_.mode != Mode::v2) return -1;
  TRYV(check_path(path_));
  Dir d = TRY(open_dir(layout_.unified_mount, path_, true));
  return d.fd.release();
}

Result<Cgroup::Stats> Cgroup::stats() const {
  TRYV(check_path(path_));
  Stats s;
  Dirs dirs(layout_, path_, &kept_->leaves);
  auto num = [](const Dir& d, const char* f, uint64_t max_value = UINT64_MAX) -> uint64_t {
    auto t = d.read(f);
    return t ? parse_u64(*t, max_value).value_or(0) : 0;
  };
  if (const Dir* d = TRY(dirs.find("memory", "memory"))) {
    if (d->v2) {
      s.memory_usage = num(*d, "memory.current");
      s.memory_limit = num(*d, "memory.max");
      s.memory_max_usage = num(*d, "memory.peak");
      if (auto ev = d->read("memory.events")) s.oom_kills = keyed_value(*ev, "oom_kill").value_or(0);
    } else {
      s.memory_usage = num(*d, "memory.usage_in_bytes");
      s.memory_limit = num(*d, "memory.limit_in_bytes");
      s.memory_max_usage = num(*d, "memory.max_usage_in_bytes");
      if (auto oc = d->read("memory.oom_control")) s.oom_kills = keyed_value(*oc, "oom_kill").value_or(0);
    }
  }
  if (const Dir* d = TRY(dirs.find("pids", "pids"))) {
    s.pids_current = num(*d, "pids.current");
    s.pids_limit = num(*d, "pids.max", 0);  // 0: unlimited, as runc reports it
    if (auto t = d->read("pids.peak")) s.pids_peak = parse_u64(*t, UINT64_MAX).value_or(0);
  }
  if (const Dir* d = TRY(dirs.find("cpuacct", ""))) {
    s.cpu_usage_ns = num(*d, "cpuacct.usage");
  } else if (const Dir* u = TRY(dirs.unified())) {
    // cpu.stat is a core file on cgroup2: present even without the cpu controller.
    if (auto st = u->read("cpu.stat")) s.cpu_usage_ns = keyed_value(*st, "usage_usec").value_or(0) * 1000;
  }
  return s;
}

}  // namespace sh::cgroups
