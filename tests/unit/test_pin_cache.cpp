// The pin cache: its line format round-trips and refuses anything malformed, and a digest is
// found again only for the same file, unchanged; a changed file is hashed anew. With a faked
// clock: a file written in the tick of its hashing (as on a coarse-ctime kernel) is neither
// kept nor handed to init, and an entry claiming such a hash is not believed.
#define BOOST_TEST_MODULE pin_cache
#include <boost/test/unit_test.hpp>

#include "tests/unit/temp_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include <filesystem>
#include <fstream>

#include "base/sha256.hpp"
#include "runtime/lifecycle/pin_cache.hpp"

using namespace sh;
using namespace sh::lifecycle;
namespace fs = std::filesystem;

namespace {

const std::string kSha(64, 'a');

// The faked wall clock hash_pins reads.
struct timespec g_now{};
struct timespec fake_clock() { return g_now; }
struct timespec plus_ms(struct timespec t, long ms) {
  int64_t n = int64_t(t.tv_sec) * 1000000000 + t.tv_nsec + int64_t(ms) * 1000000;
  return {time_t(n / 1000000000), long(n % 1000000000)};
}
struct timespec ctime_of(const fs::path& p) {
  struct stat st;
  BOOST_REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_ctim;
}

struct Temp : sh::test::TempDir {
  const fs::path& dir = path;
  Temp() : TempDir("sharness-pincache") {
    fs::create_directories(dir / "rootfs/bin");
    fs::create_directories(dir / "state");
    std::ofstream(dir / "rootfs/bin/tool") << "first content";
  }
  // At `later_ms` after the file's last change (by default long after: it has settled).
  std::vector<exec_allowlist::Hashed> hash(long later_ms = 10000) {
    g_now = plus_ms(ctime_of(dir / "rootfs/bin/tool"), later_ms);
    std::vector<policy::Pin> pins{{"/bin/tool", kSha}};
    return hash_pins((dir / "state").string(), (dir / "rootfs").string(), pins, fake_clock);
  }
  fs::path entry() const {
    struct stat st;
    BOOST_REQUIRE(::stat((dir / "rootfs/bin/tool").c_str(), &st) == 0);
    char name[64];
    std::snprintf(name, sizeof name, "%lx-%lx", (unsigned long)st.st_dev, (unsigned long)st.st_ino);
    return dir / "state/.cache/pins" / name;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(line_round_trips) {
  exec_allowlist::Hashed h;
  h.size = 1982256;
  h.mtime = {1795981275, 598407749};
  h.ctime = {1795981275, 601640990};
  h.sha256 = std::string(64, 'f');
  struct timespec at{1795981290, 5};
  std::string line = pin_cache_line(h, at);
  BOOST_TEST(line == "1982256 1795981275.598407749 1795981275.601640990 1795981290.5 " + h.sha256 + "\n");
  exec_allowlist::Hashed back;
  struct timespec back_at{};
  BOOST_REQUIRE(parse_pin_cache_line(line, back, back_at));
  BOOST_TEST(back_at.tv_sec == at.tv_sec);
  BOOST_TEST(back_at.tv_nsec == at.tv_nsec);
  BOOST_TEST(back.size == h.size);
  BOOST_TEST(back.mtime.tv_nsec == h.mtime.tv_nsec);
  BOOST_TEST(back.ctime.tv_sec == h.ctime.tv_sec);
  BOOST_TEST(back.sha256 == h.sha256);
}

BOOST_AUTO_TEST_CASE(malformed_lines_are_refused) {
  exec_allowlist::Hashed h;
  struct timespec at{};
  const std::string sha(64, '0');
  for (std::string bad : {std::string(""), "1 2.3 4.5 6.7 " + sha, "1 2.3 4.5 6.7 " + sha + "\nextra",
                          "-1 2.3 4.5 6.7 " + sha + "\n", "1 2.1000000000 4.5 6.7 " + sha + "\n",
                          "1 2.3 4.5 6.-7 " + sha + "\n", "1 2.3 4.5 6.7 " + sha.substr(1) + "\n",
                          "1 2.3 4.5 6.7 " + std::string(64, 'G') + "\n",
                          "1 2.3 4.5 " + sha + "\n"})  // the format before the hash time was kept
    BOOST_TEST(!parse_pin_cache_line(bad, h, at), bad);
}

BOOST_AUTO_TEST_CASE(digest_is_reused_only_for_the_unchanged_file) {
  Temp t;
  auto first = t.hash();
  BOOST_REQUIRE_EQUAL(first.size(), 1u);
  BOOST_TEST(first[0].sha256 == sha256_hex("first content"));
  struct stat st;
  BOOST_REQUIRE(::stat((t.dir / "rootfs/bin/tool").c_str(), &st) == 0);
  BOOST_TEST(exec_allowlist::same_object(st, first[0]));
  // tmpfs or ext4 (/tmp here): the entry is kept, and found again.
  BOOST_TEST(!fs::is_empty(t.dir / "state/.cache/pins"));
  auto again = t.hash();
  BOOST_REQUIRE_EQUAL(again.size(), 1u);
  BOOST_TEST(again[0].sha256 == first[0].sha256);
  // Same size, new bytes: ctime moved, so it is hashed again.
  std::ofstream(t.dir / "rootfs/bin/tool", std::ios::in | std::ios::out) << "FIRST";
  auto changed = t.hash();
  BOOST_REQUIRE_EQUAL(changed.size(), 1u);
  BOOST_TEST(changed[0].sha256 == sha256_hex("FIRST content"));
}

BOOST_AUTO_TEST_CASE(a_pin_that_is_not_a_regular_file_is_left_to_init) {
  Temp t;
  fs::remove(t.dir / "rootfs/bin/tool");
  fs::create_symlink("/etc/passwd", t.dir / "rootfs/bin/tool");
  BOOST_TEST(t.hash().empty());
  fs::remove(t.dir / "rootfs/bin/tool");
  BOOST_REQUIRE(::mkfifo((t.dir / "rootfs/bin/tool").c_str(), 0600) == 0);
  BOOST_TEST(t.hash().empty());
}

// The settle rule itself: a second (two where the times have no nanoseconds) before hashing.
BOOST_AUTO_TEST_CASE(settle_rule) {
  exec_allowlist::Hashed h;
  h.mtime = {1000, 500};
  h.ctime = {1000, 700};
  BOOST_TEST(!settled(h, {1000, 800}));            // in the same tick
  BOOST_TEST(!settled(h, {1001, 700}));            // exactly one second: not before
  BOOST_TEST(settled(h, {1001, 701}));
  h.ctime = {1002, 0};                             // ctime newer than mtime counts too
  BOOST_TEST(!settled(h, {1002, 900000000}));
  h.mtime = {1000, 0};
  h.ctime = {1000, 0};                             // whole seconds: two
  BOOST_TEST(!settled(h, {1001, 500000000}));
  BOOST_TEST(!settled(h, {1002, 0}));
  BOOST_TEST(settled(h, {1002, 1}));
  BOOST_TEST(!settled(h, {0, 0}));                 // no clock: nothing is settled
}

// A coarse-ctime kernel: the hash happens in the tick of the last write, so a second write in
// that tick would leave (size, mtime, ctime) unchanged. Such a digest is neither kept nor
// handed to init; once the file has settled, it is kept and found again.
BOOST_AUTO_TEST_CASE(a_digest_from_the_tick_of_a_write_is_not_kept) {
  Temp t;
  BOOST_TEST(t.hash(1).empty());     // 1 ms after the write: left to init
  BOOST_TEST(!fs::exists(t.entry()));
  BOOST_TEST(t.hash(900).empty());   // still within the settle time
  BOOST_TEST(!fs::exists(t.entry()));
  auto later = t.hash();             // 10 s later: hashed and kept
  BOOST_REQUIRE_EQUAL(later.size(), 1u);
  BOOST_TEST(later[0].sha256 == sha256_hex("first content"));
  BOOST_TEST(fs::exists(t.entry()));
}

// The poisoned entry (what the cache held before: a digest of other bytes recorded in the tick
// of the last write, under the file's current attributes) is not believed: the file is
// hashed again and the true digest replaces it. Control: the same line with a hash time
// after the settle time is believed, so the refusal comes from the hash time alone.
BOOST_AUTO_TEST_CASE(an_entry_hashed_in_the_tick_of_a_write_is_not_believed) {
  Temp t;
  BOOST_REQUIRE_EQUAL(t.hash().size(), 1u);  // makes the cache directory
  struct stat st;
  BOOST_REQUIRE(::stat((t.dir / "rootfs/bin/tool").c_str(), &st) == 0);
  exec_allowlist::Hashed poisoned{st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim, kSha};
  auto write_entry = [&](long hashed_after_ms) {
    fs::remove(t.entry());
    int fd = ::open(t.entry().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    BOOST_REQUIRE(fd >= 0);
    std::string line = pin_cache_line(poisoned, plus_ms(st.st_ctim, hashed_after_ms));
    BOOST_REQUIRE(::write(fd, line.data(), line.size()) == ssize_t(line.size()));
    ::close(fd);
  };
  write_entry(2);
  auto got = t.hash();
  BOOST_REQUIRE_EQUAL(got.size(), 1u);
  BOOST_TEST(got[0].sha256 == sha256_hex("first content"));
  write_entry(5000);  // control
  got = t.hash();
  BOOST_REQUIRE_EQUAL(got.size(), 1u);
  BOOST_TEST(got[0].sha256 == kSha);
}

// Bounded: many pinned files (a client varying its rootfs) leave at most kPinCacheBounds
// entries, the newest kept.
BOOST_AUTO_TEST_CASE(the_cache_is_bounded) {
  Temp t;
  const size_t n = kPinCacheBounds.max_entries + 40;
  std::vector<policy::Pin> pins;
  for (size_t i = 0; i < n; ++i) {
    std::string name = "/bin/t" + std::to_string(i);
    std::ofstream(t.dir / ("rootfs" + name)) << "content " << i;
    pins.push_back({name, kSha});
  }
  g_now = plus_ms(ctime_of(t.dir / ("rootfs" + pins.back().path)), 10000);
  for (size_t i = 0; i < n; i += 64)  // over several creates, as clients would
    hash_pins((t.dir / "state").string(), (t.dir / "rootfs").string(),
              std::span<const policy::Pin>(pins).subspan(i, std::min<size_t>(64, n - i)), fake_clock);
  size_t count = 0;
  for (auto& e : fs::directory_iterator(t.dir / "state/.cache/pins")) count += e.is_regular_file();
  BOOST_TEST(count <= kPinCacheBounds.max_entries);
  BOOST_TEST(count >= kPinCacheBounds.max_entries - 64);
}
