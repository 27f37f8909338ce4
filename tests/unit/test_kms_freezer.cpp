#define BOOST_TEST_MODULE kms_freezer
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "kms/freezer.hpp"

using namespace sh;

namespace {

// A child spinning on a shared counter, in its own cgroup; freeze and thaw it through
// kms::Freezer, and see the counter stop and go again. As root only (cgroup writes).
void freeze_and_thaw(const cgroups::Layout& layout, const std::string& tag) {
  auto* counter = static_cast<std::atomic<uint64_t>*>(
      ::mmap(nullptr, sizeof(std::atomic<uint64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  BOOST_REQUIRE(counter != MAP_FAILED);
  new (counter) std::atomic<uint64_t>(0);
  cgroups::Cgroup cg(layout, "/sharness-kms-unit-" + std::to_string(::getpid()) + "-" + tag);
  auto made = cg.create(nullptr);
  BOOST_REQUIRE_MESSAGE(made, (made ? "" : made.error().what()));
  pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    for (;;) counter->fetch_add(1, std::memory_order_relaxed);
  }
  auto run = [&]() -> Result<void> {
    TRYV(cg.add_pid(child));
    auto fz = TRY(kms::Freezer::open(cg));
    BOOST_TEST_MESSAGE(tag << ": " << fz.path());
    TRYV(fz.set(true));
    uint64_t a = counter->load();
    ::usleep(50000);
    uint64_t b = counter->load();
    BOOST_TEST(a == b);  // frozen: not one more increment
    TRYV(fz.set(false));
    for (int i = 0; i < 200 && counter->load() == b; ++i) ::usleep(10000);
    BOOST_TEST(counter->load() != b);  // thawed: it runs again
    return {};
  };
  auto r = run();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  (void)cg.destroy();
  ::munmap(counter, sizeof(std::atomic<uint64_t>));
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(freezer_of_this_host) {
  if (::geteuid() != 0) {
    BOOST_TEST_MESSAGE("not root: skipped");
    return;
  }
  auto l = cgroups::detect_layout();
  BOOST_REQUIRE(l);
  freeze_and_thaw(*l, "host");
}

// The cgroup2 path (cgroup.freeze + cgroup.events), also on a hybrid host: its unified
// hierarchy carries the core freezer without any controller.
BOOST_AUTO_TEST_CASE(freezer_v2) {
  if (::geteuid() != 0) {
    BOOST_TEST_MESSAGE("not root: skipped");
    return;
  }
  auto l = cgroups::detect_layout();
  BOOST_REQUIRE(l);
  if (l->unified_mount.empty()) {
    BOOST_TEST_MESSAGE("no cgroup2 mount: skipped");
    return;
  }
  cgroups::Layout v2;
  v2.mode = cgroups::Mode::v2;
  v2.unified_mount = l->unified_mount;
  freeze_and_thaw(v2, "v2");
}
