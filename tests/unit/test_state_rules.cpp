#define BOOST_TEST_MODULE state_rules
#include <boost/test/unit_test.hpp>

#include "runtime/lifecycle/state_rules.hpp"

using namespace sh::lifecycle;
using S = Status;

namespace {

constexpr S kAll[] = {S::creating, S::created, S::running, S::paused, S::stopped};

// "" when the rule lets the operation go on, else its text.
std::string said(const sh::Result<void>& r) { return r ? "" : r.error().what(); }

}  // namespace

// Each rule over every status, with the exact texts clients and suites match
// (conformance/suites/concurrency.sh, shim_sequence.sh, ops.sh, exec.sh).
BOOST_AUTO_TEST_CASE(start_only_created) {
  for (S s : kAll) {
    std::string got = said(rules::can_start("c", s));
    if (s == S::created) BOOST_TEST(got == "");
    else BOOST_TEST(got == "cannot start container c: it is " + std::string(status_name(s)) + ", not created");
  }
}

BOOST_AUTO_TEST_CASE(exec_created_running_or_ignore_paused) {
  BOOST_TEST(said(rules::can_exec("c", S::created, false)) == "");
  BOOST_TEST(said(rules::can_exec("c", S::running, false)) == "");
  BOOST_TEST(said(rules::can_exec("c", S::paused, false)) == "cannot exec in a paused container c");
  BOOST_TEST(said(rules::can_exec("c", S::paused, true)) == "");
  for (bool ignore : {false, true}) {
    BOOST_TEST(said(rules::can_exec("c", S::stopped, ignore)) == "cannot exec in container c: it is stopped");
    BOOST_TEST(said(rules::can_exec("c", S::creating, ignore)) == "cannot exec in container c: it is creating");
  }
}

BOOST_AUTO_TEST_CASE(kill_needs_init_or_all_with_cgroup) {
  for (S s : kAll)
    for (bool all : {false, true})
      for (bool cgroup : {false, true}) {
        std::string got = said(rules::can_kill("c", s, all, cgroup));
        bool refused = s == S::creating || (s == S::stopped && !(all && cgroup));
        BOOST_TEST_CONTEXT(status_name(s) << " all=" << all << " cgroup=" << cgroup) {
          // containerd's shim ignores a kill error only when it says "container not running".
          if (refused)
            BOOST_TEST(got == "cannot kill container c: container not running (it is " + std::string(status_name(s)) + ")");
          else
            BOOST_TEST(got == "");
        }
      }
}

BOOST_AUTO_TEST_CASE(delete_stopped_created_or_force) {
  for (S s : kAll) BOOST_TEST(said(rules::can_delete("c", s, true)) == "", status_name(s));
  BOOST_TEST(said(rules::can_delete("c", S::created, false)) == "");
  BOOST_TEST(said(rules::can_delete("c", S::stopped, false)) == "");
  BOOST_TEST(said(rules::can_delete("c", S::running, false)) == "cannot delete container c that is not stopped: running");
  BOOST_TEST(said(rules::can_delete("c", S::paused, false)) == "cannot delete container c that is not stopped: paused");
  BOOST_TEST(said(rules::can_delete("c", S::creating, false)) == "cannot delete container c: it is being created");
}

BOOST_AUTO_TEST_CASE(pause_and_resume) {
  BOOST_TEST(said(rules::can_pause("c", S::running)) == "");
  BOOST_TEST(said(rules::can_pause("c", S::created)) == "container c is not running (it is created)");
  BOOST_TEST(said(rules::can_pause("c", S::paused)) == "container c is not running (it is paused)");
  BOOST_TEST(said(rules::can_pause("c", S::stopped)) == "container c is not running (it is stopped)");
  BOOST_TEST(said(rules::can_pause("c", S::creating)) == "container c is not running (it is being created)");
  BOOST_TEST(said(rules::can_resume("c", S::paused)) == "");
  BOOST_TEST(said(rules::can_resume("c", S::created)) == "container c is not paused (it is created)");
  BOOST_TEST(said(rules::can_resume("c", S::running)) == "container c is not paused (it is running)");
  BOOST_TEST(said(rules::can_resume("c", S::stopped)) == "container c is not running (it is stopped)");
  BOOST_TEST(said(rules::can_resume("c", S::creating)) == "container c is not running (it is being created)");
}

BOOST_AUTO_TEST_CASE(update_and_reads) {
  for (S s : kAll) {
    std::string want = s == S::stopped    ? "container c is not running (it is stopped)"
                       : s == S::creating ? "container c is not running (it is being created)"
                                          : "";
    BOOST_TEST(said(rules::has_processes("c", s)) == want, status_name(s));
  }
}
