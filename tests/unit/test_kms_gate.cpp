#define BOOST_TEST_MODULE kms_gate
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "kms/gate.hpp"

using namespace sh;

namespace {

// A stand-in worker in its own cgroup, over a SEQPACKET channel: "stay" is answered from
// inside the cgroup; "vanish" first leaves it (to `out`) and removes it, so that the gate's
// freeze that follows fails in the kernel (the cgroup's files answer ENODEV).
[[noreturn]] void worker(int chan, const cgroups::Cgroup& cg, const cgroups::Cgroup& out) {
  char buf[64];
  for (;;) {
    ssize_t n = ::read(chan, buf, sizeof buf);
    if (n <= 0) ::_exit(0);
    std::string req(buf, size_t(n));
    if (req == "vanish") {
      if (!out.add_pid(::getpid()) || !cg.destroy()) ::_exit(3);
    }
    if (::write(chan, "answer", 6) != 6) ::_exit(4);
  }
}

bool alive(pid_t pid) {
  int st = 0;
  return ::waitpid(pid, &st, WNOHANG) == 0;
}

void refreeze(const cgroups::Layout& layout, const std::string& tag) {
  std::string base = "/sharness-kms-unit-" + std::to_string(::getpid()) + "-gate-" + tag;
  cgroups::Cgroup cg(layout, base), out(layout, base + "-out");
  BOOST_REQUIRE(cg.create(nullptr));
  BOOST_REQUIRE(out.create(nullptr));
  int sp[2];
  BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
  pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    ::close(sp[0]);
    worker(sp[1], cg, out);
  }
  ::close(sp[1]);
  auto run = [&]() -> Result<void> {
    TRYV(cg.add_pid(child));
    auto fz = TRY(kms::Freezer::open(cg));
    TRYV(fz.set(true));
    kms::Config cfg;
    cfg.name = "unit";
    const tls::Peer caller{{"app"}, {}, {}};
    kms::Gate g{cfg, -1, sp[0], -1, 2, child, nullptr, caller, fz};
    // Control: answered, frozen again, alive.
    auto ok = kms::forward(g, "stay");
    BOOST_REQUIRE_MESSAGE(ok, (ok ? "" : ok.error().what()));
    BOOST_TEST(ok->response == "answer");
    BOOST_TEST(!g.worker_killed);
    BOOST_TEST(alive(child));
    // The freeze after the answer fails: the worker is killed, the answer dropped.
    auto bad = kms::forward(g, "vanish");
    BOOST_REQUIRE(!bad);
    BOOST_TEST_MESSAGE(tag << ": " << bad.error().what());
    BOOST_TEST(bad.error().what().find("freeze again failed, worker killed") != std::string::npos);
    BOOST_TEST(g.worker_killed);
    if (!g.worker_killed) ::kill(child, SIGKILL);  // a failed check must not hang the test
    int st = 0;
    BOOST_TEST(::waitpid(child, &st, 0) == child);
    BOOST_TEST((WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL), "worker status " << st);
    child = -1;
    return {};
  };
  auto r = run();
  if (child > 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
  ::close(sp[0]);
  (void)cg.destroy();
  (void)out.destroy();
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(gate_kills_a_worker_it_cannot_freeze_again) {
  if (::geteuid() != 0) {
    BOOST_TEST_MESSAGE("not root: skipped");
    return;
  }
  auto l = cgroups::detect_layout();
  BOOST_REQUIRE(l);
  refreeze(*l, "host");
  if (!l->unified_mount.empty() && l->mode != cgroups::Mode::v2) {
    cgroups::Layout v2;
    v2.mode = cgroups::Mode::v2;
    v2.unified_mount = l->unified_mount;
    refreeze(v2, "v2");
  }
}
