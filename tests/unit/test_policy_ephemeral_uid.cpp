// Throwaway uids: unique among containers, never an account's or a running process's,
// claims released only by their holder, stale claims taken over.
#define BOOST_TEST_MODULE policy_ephemeral_uid
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "base/file.hpp"
#include "runtime/lifecycle/ephemeral_uid.hpp"

using namespace sh;
using namespace sh::lifecycle;
namespace fs = std::filesystem;

namespace {

struct TempRoot {
  std::string path;
  TempRoot() {
    char tmpl[] = "/tmp/sharness-uid-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempRoot() { fs::remove_all(path); }
  // The container's state directory, as the store creates it before allocate is called.
  void container(const std::string& id) const { fs::create_directories(path + "/" + id); }
};

// A uid range far from anything real, different per test run.
uint32_t base() { return 3000000000u + uint32_t(getpid()) * 16u % 100000000u; }

}  // namespace

BOOST_AUTO_TEST_CASE(allocates_within_the_range_and_claims_it) {
  TempRoot root;
  root.container("c1");
  auto uid = allocate_ephemeral_uid(root.path, base(), 4, "c1");
  BOOST_REQUIRE_MESSAGE(uid, (uid ? "" : uid.error().what()));
  BOOST_TEST(*uid >= base());
  BOOST_TEST(*uid < base() + 4);
  auto claim = read_file(ephemeral_uid_claim_path(root.path, *uid));
  BOOST_REQUIRE(claim);
  BOOST_TEST(*claim == "c1");
  struct stat st {};
  BOOST_REQUIRE(stat((root.path + "/.uids").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0700u);
}

BOOST_AUTO_TEST_CASE(never_the_same_uid_twice_and_a_full_range_fails) {
  TempRoot root;
  std::set<uint32_t> got;
  uint32_t of_a = 0;
  for (auto id : {"a", "b", "c"}) {
    root.container(id);
    auto uid = allocate_ephemeral_uid(root.path, base(), 3, id);
    BOOST_REQUIRE_MESSAGE(uid, (uid ? "" : uid.error().what()));
    got.insert(*uid);
    if (std::string(id) == "a") of_a = *uid;
  }
  BOOST_TEST(got.size() == 3u);
  root.container("d");
  auto full = allocate_ephemeral_uid(root.path, base(), 3, "d");
  BOOST_REQUIRE(!full);
  BOOST_TEST(full.error().err == EAGAIN);
  BOOST_TEST(full.error().msg.starts_with("no free ephemeral uid in "));
  // Releasing one makes room again.
  BOOST_REQUIRE(release_ephemeral_uid(root.path, of_a, "a"));
  auto again = allocate_ephemeral_uid(root.path, base(), 3, "d");
  BOOST_REQUIRE(again);
  BOOST_TEST(*again == of_a);
}

BOOST_AUTO_TEST_CASE(release_only_by_the_holder) {
  TempRoot root;
  root.container("mine");
  uint32_t uid = *allocate_ephemeral_uid(root.path, base(), 1, "mine");
  std::string claim = ephemeral_uid_claim_path(root.path, uid);
  BOOST_REQUIRE(release_ephemeral_uid(root.path, uid, "theirs"));
  BOOST_TEST(fs::exists(claim));
  BOOST_REQUIRE(release_ephemeral_uid(root.path, uid, "mine"));
  BOOST_TEST(!fs::exists(claim));
  BOOST_TEST(release_ephemeral_uid(root.path, uid, "mine").has_value());  // already gone: fine
}

BOOST_AUTO_TEST_CASE(accounts_are_skipped) {
  TempRoot root;
  root.container("c");
  // uid 0 (root) and 1 (daemon) are in /etc/passwd on every Debian system.
  auto r = allocate_ephemeral_uid(root.path, 0, 2, "c");
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().err == EAGAIN);
}

BOOST_AUTO_TEST_CASE(uids_of_running_processes_are_skipped) {
  TempRoot root;
  root.container("c");
  uint32_t busy = base() + 7;
  int ready[2];
  BOOST_REQUIRE(pipe(ready) == 0);
  pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    close(ready[0]);
    if (setresuid(busy, busy, busy) < 0) _exit(1);
    (void)!write(ready[1], "x", 1);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  BOOST_REQUIRE(read(ready[0], &c, 1) == 1);
  close(ready[0]);
  BOOST_TEST(uid_has_processes(busy));
  BOOST_TEST(!uid_has_processes(busy + 1));
  auto r = allocate_ephemeral_uid(root.path, busy, 1, "c");
  BOOST_TEST(!r.has_value());
  BOOST_TEST(!fs::exists(ephemeral_uid_claim_path(root.path, busy)));  // no claim left behind
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  auto after = allocate_ephemeral_uid(root.path, busy, 1, "c");
  BOOST_REQUIRE_MESSAGE(after, (after ? "" : after.error().what()));
  BOOST_TEST(*after == busy);
}

BOOST_AUTO_TEST_CASE(stale_claims_are_taken_over_live_ones_are_not) {
  TempRoot root;
  fs::create_directories(root.path + "/.uids");
  uint32_t uid = base();
  // Held by a container whose state directory is gone (a crash): stale.
  BOOST_REQUIRE(write_file(ephemeral_uid_claim_path(root.path, uid), "ghost", O_WRONLY | O_CREAT | O_TRUNC, 0600));
  root.container("new");
  auto r = allocate_ephemeral_uid(root.path, uid, 1, "new");
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  BOOST_TEST(*read_file(ephemeral_uid_claim_path(root.path, uid)) == "new");
  // Held by a container that still exists: not taken.
  root.container("other");
  auto live = allocate_ephemeral_uid(root.path, uid, 1, "other");
  BOOST_TEST(!live.has_value());
}

BOOST_AUTO_TEST_CASE(concurrent_creates_get_distinct_uids) {
  TempRoot root;
  constexpr int kProcs = 8;
  int p[2];
  BOOST_REQUIRE(pipe(p) == 0);
  for (int i = 0; i < kProcs; ++i) root.container("c" + std::to_string(i));
  for (int i = 0; i < kProcs; ++i) {
    if (fork() == 0) {
      auto uid = allocate_ephemeral_uid(root.path, base(), kProcs, "c" + std::to_string(i));
      uint32_t v = uid ? *uid : 0;
      (void)!write(p[1], &v, sizeof v);
      _exit(0);
    }
  }
  close(p[1]);
  std::set<uint32_t> got;
  uint32_t v;
  while (read(p[0], &v, sizeof v) == sizeof v) got.insert(v);
  close(p[0]);
  while (wait(nullptr) > 0) {
  }
  BOOST_TEST(got.size() == size_t(kProcs));
  BOOST_TEST(!got.contains(0u));
}

BOOST_AUTO_TEST_CASE(bad_arguments) {
  TempRoot root;
  BOOST_TEST(!allocate_ephemeral_uid(root.path, 4294967290u, 100, "c").has_value());
  BOOST_TEST(!allocate_ephemeral_uid(root.path, base(), 0, "c").has_value());
  BOOST_TEST(!allocate_ephemeral_uid(root.path, base(), 1, "a/b").has_value());
  BOOST_TEST(kEphemeralUidFirst == 2000000000u);
  BOOST_TEST(uint64_t(kEphemeralUidFirst) + kEphemeralUidCount < (1ull << 31));
}
