// The pin cache: its line format round-trips and refuses anything malformed, and a digest is
// found again only for the same file, unchanged; a changed file is hashed anew.
#define BOOST_TEST_MODULE pin_cache
#include <boost/test/unit_test.hpp>

#include "tests/unit/temp_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/sha256.hpp"
#include "runtime/lifecycle/pin_cache.hpp"

using namespace sh;
using namespace sh::lifecycle;
namespace fs = std::filesystem;

namespace {

const std::string kSha(64, 'a');

struct Temp : sh::test::TempDir {
  const fs::path& dir = path;
  Temp() : TempDir("sharness-pincache") {
    fs::create_directories(dir / "rootfs/bin");
    fs::create_directories(dir / "state");
    std::ofstream(dir / "rootfs/bin/tool") << "first content";
  }
  std::vector<exec_allowlist::Hashed> hash() {
    std::vector<policy::Pin> pins{{"/bin/tool", kSha}};
    return hash_pins((dir / "state").string(), (dir / "rootfs").string(), pins);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(line_round_trips) {
  exec_allowlist::Hashed h;
  h.size = 1982256;
  h.mtime = {1795981275, 598407749};
  h.ctime = {1795981275, 601640990};
  h.sha256 = std::string(64, 'f');
  std::string line = pin_cache_line(h);
  BOOST_TEST(line == "1982256 1795981275.598407749 1795981275.601640990 " + h.sha256 + "\n");
  exec_allowlist::Hashed back;
  BOOST_REQUIRE(parse_pin_cache_line(line, back));
  BOOST_TEST(back.size == h.size);
  BOOST_TEST(back.mtime.tv_nsec == h.mtime.tv_nsec);
  BOOST_TEST(back.ctime.tv_sec == h.ctime.tv_sec);
  BOOST_TEST(back.sha256 == h.sha256);
}

BOOST_AUTO_TEST_CASE(malformed_lines_are_refused) {
  exec_allowlist::Hashed h;
  const std::string sha(64, '0');
  for (std::string bad : {std::string(""), "1 2.3 4.5 " + sha, "1 2.3 4.5 " + sha + "\nextra",
                          "-1 2.3 4.5 " + sha + "\n", "1 2.1000000000 4.5 " + sha + "\n",
                          "1 2.3 4.5 " + sha.substr(1) + "\n", "1 2.3 4.5 " + std::string(64, 'G') + "\n"})
    BOOST_TEST(!parse_pin_cache_line(bad, h), bad);
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
