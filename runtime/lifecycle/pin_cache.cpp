#include "runtime/lifecycle/pin_cache.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>

#include "base/private_cache.hpp"
#include "base/log.hpp"
#include "runtime/linux/safe_path.hpp"

namespace sh::lifecycle {
namespace {

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif

bool cacheable_fs(int fd) {
  struct statfs fs;
  if (::fstatfs(fd, &fs) < 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case TMPFS_MAGIC:
      return true;
    default:
      return false;
  }
}

std::string entry_name(const struct stat& st) {
  char name[64];
  std::snprintf(name, sizeof name, "%" PRIx64 "-%" PRIx64, uint64_t(st.st_dev), uint64_t(st.st_ino));
  return name;
}

int64_t nanos(const struct timespec& t) { return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

std::optional<exec_allowlist::Hashed> cached(int dir, const std::string& name) {
  auto text = read_private(dir, name, 512);
  exec_allowlist::Hashed h;
  struct timespec at{};
  if (!text || !parse_pin_cache_line(*text, h, at) || !settled(h, at)) return std::nullopt;
  return h;
}

void store(int dir, const std::string& name, const exec_allowlist::Hashed& h, const struct timespec& at) {
  (void)write_private(dir, name, pin_cache_line(h, at));  // not kept: the next create hashes again
}

}  // namespace

bool settled(const exec_allowlist::Hashed& h, const struct timespec& hashed_at) {
  // A file system that keeps whole seconds rounds a write's time down by up to a second.
  bool coarse = h.mtime.tv_nsec == 0 && h.ctime.tv_nsec == 0;
  int64_t before = nanos(hashed_at) - (coarse ? kSettleCoarseNs : kSettleNs);
  return nanos(h.ctime) < before && nanos(h.mtime) < before;
}

struct timespec wall_clock() {
  struct timespec t{};
  if (::clock_gettime(CLOCK_REALTIME, &t) < 0) return {};  // time 0: nothing is settled
  return t;
}

std::string pin_cache_line(const exec_allowlist::Hashed& h, const struct timespec& at) {
  char buf[192];
  std::snprintf(buf, sizeof buf, "%" PRId64 " %" PRId64 ".%ld %" PRId64 ".%ld %" PRId64 ".%ld ", int64_t(h.size),
                int64_t(h.mtime.tv_sec), h.mtime.tv_nsec, int64_t(h.ctime.tv_sec), h.ctime.tv_nsec,
                int64_t(at.tv_sec), at.tv_nsec);
  return buf + h.sha256 + "\n";
}

bool parse_pin_cache_line(std::string_view line, exec_allowlist::Hashed& h, struct timespec& at) {
  if (line.empty() || line.back() != '\n') return false;  // a line written whole ends in one
  std::string s(line);
  int64_t size, ms, cs, as;
  long mns, cns, ans;
  char sha[65];
  int used = 0;
  if (std::sscanf(s.c_str(), "%" SCNd64 " %" SCNd64 ".%ld %" SCNd64 ".%ld %" SCNd64 ".%ld %64[0-9a-f]\n%n", &size, &ms,
                  &mns, &cs, &cns, &as, &ans, sha, &used) != 8 ||
      used != int(s.size()) || std::string_view(sha).size() != 64 || size < 0)
    return false;
  for (long n : {mns, cns, ans})
    if (n < 0 || n > 999999999) return false;
  h.size = off_t(size);
  h.mtime = {time_t(ms), mns};
  h.ctime = {time_t(cs), cns};
  at = {time_t(as), ans};
  h.sha256 = sha;
  return true;
}

std::vector<exec_allowlist::Hashed> hash_pins(const std::string& state_root, const std::string& rootfs,
                                              std::span<const policy::Pin> pins, WallClock clock) {
  std::vector<exec_allowlist::Hashed> out;
  // Read before anything is opened: every byte hashed is read after this instant.
  const struct timespec started = clock();
  bool stored = false;
  Fd root(::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return out;
  Fd dir;
  bool dir_tried = false;
  for (const auto& pin : pins) {
    // O_PATH first: a device or FIFO named like a pin is never opened for reading. Its stat and
    // file system are the lookup's; the file is opened for reading only to be hashed.
    auto path = rootfs::open_in_root(root.get(), pin.path, O_PATH, RESOLVE_NO_SYMLINKS);
    struct stat st;
    if (!path || ::fstat(path->get(), &st) < 0 || !S_ISREG(st.st_mode)) continue;
    exec_allowlist::Hashed h{st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim, {}};
    // Changed too recently: a write in the same tick would not show. Init hashes it.
    if (!settled(h, started)) {
      log::debug("pin cache: " + pin.path + " changed less than a settle time ago: left to init");
      continue;
    }
    bool keep = cacheable_fs(path->get());
    if (keep && !dir_tried) {
      if (auto d = open_private_cache(state_root, "pins")) dir = std::move(*d);
      dir_tried = true;
    }
    std::string name = entry_name(st);
    if (keep && dir) {
      // The name holds device and inode; the line holds what must not have changed since.
      if (auto c = cached(dir.get(), name)) {
        c->dev = h.dev;
        c->ino = h.ino;
        if (exec_allowlist::same_object(st, *c)) {
          out.push_back(std::move(*c));
          continue;
        }
      }
    }
    Fd f(::open(("/proc/self/fd/" + std::to_string(path->get())).c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    struct stat now;
    if (!f || ::fstat(f.get(), &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) continue;
    auto sha = exec_allowlist::sha256_fd(f.get(), "exec allowlist: " + pin.path);
    struct stat after;
    // Changed while we read it: leave it to init.
    if (!sha || ::fstat(f.get(), &after) < 0 || !exec_allowlist::same_object(after, {h.dev, h.ino, h.size, h.mtime, h.ctime, "x"}))
      continue;
    h.sha256 = std::move(*sha);
    if (keep && dir) {
      store(dir.get(), name, h, started);
      stored = true;
    }
    out.push_back(std::move(h));
  }
  if (stored) prune_private(dir.get(), kPinCacheBounds);
  return out;
}

}  // namespace sh::lifecycle
