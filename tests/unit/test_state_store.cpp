#define BOOST_TEST_MODULE state_store
#include <boost/test/unit_test.hpp>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/state_store.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/proc_info.hpp"

using namespace sh::lifecycle;

BOOST_AUTO_TEST_CASE(ids) {
  BOOST_TEST(bool(validate_id("abc-1.2_x+y")));
  for (auto bad : {"", ".", "..", "a/b", "../x", "a b", "a\nb", "é"}) BOOST_TEST(!validate_id(bad), bad);
  BOOST_TEST(!validate_id(std::string(1025, 'a')));
}

BOOST_AUTO_TEST_CASE(record_round_trip) {
  Record r;
  r.id = "c1";
  r.pid = 1234;
  r.start_time = 18446744073709551615ull;
  r.started = true;
  r.bundle = "/b";
  r.rootfs = "/b/rootfs";
  r.created = "2026-01-01T00:00:00Z";
  r.owner = "root";
  r.cgroup_path = "/sharness/c1";
  r.annotations = {{"a", "1"}, {"b\"q", "x\ny"}};
  auto back = record_from_json(record_to_json(r), "state.json");
  BOOST_REQUIRE(back);
  BOOST_TEST(back->id == r.id);
  BOOST_TEST(back->pid == r.pid);
  BOOST_TEST(back->start_time == r.start_time);
  BOOST_TEST(back->started);
  BOOST_TEST(back->cgroup_path == r.cgroup_path);
  BOOST_TEST((back->annotations == r.annotations));
  BOOST_TEST(!record_from_json("{\"pid\":\"x\"}", "state.json"));
}

BOOST_AUTO_TEST_CASE(record_hook_flags) {
  Record r;
  r.id = "c1";
  r.poststart_hooks = false;
  r.poststop_hooks = true;
  auto back = record_from_json(record_to_json(r), "state.json");
  BOOST_REQUIRE(back);
  BOOST_TEST(!back->poststart_hooks);
  BOOST_TEST(back->poststop_hooks);
  r.poststart_hooks = true;
  r.poststop_hooks = false;
  back = record_from_json(record_to_json(r), "state.json");
  BOOST_REQUIRE(back);
  BOOST_TEST(back->poststart_hooks);
  BOOST_TEST(!back->poststop_hooks);
  // A state written before the flags existed: start and delete must still read the config.
  auto old = record_from_json(R"({"id":"c0","pid":12,"startTime":5,"started":false,"bundle":"/b"})", "state.json");
  BOOST_REQUIRE(old);
  BOOST_TEST(old->poststart_hooks);
  BOOST_TEST(old->poststop_hooks);
  BOOST_TEST(!record_from_json(R"({"id":"c0","poststartHooks":"no"})", "state.json"));
}

BOOST_AUTO_TEST_CASE(record_systemd_unit) {
  Record r;
  r.id = "c2";
  auto back = record_from_json(record_to_json(r), "state.json");
  BOOST_REQUIRE(back);
  BOOST_TEST(back->systemd_unit.empty());  // the cgroupfs driver: no unit to stop on delete
  BOOST_TEST(record_to_json(r).find("systemdUnit") == std::string::npos);
  r.systemd_unit = "sharness-c2.scope";
  r.systemd_user = true;
  back = record_from_json(record_to_json(r), "state.json");
  BOOST_REQUIRE(back);
  BOOST_TEST(back->systemd_unit == "sharness-c2.scope");
  BOOST_TEST(back->systemd_user);
}

BOOST_AUTO_TEST_CASE(store_create_open_remove) {
  std::string root = std::filesystem::temp_directory_path() / ("sharness-unit-store-" + std::to_string(getpid()));
  Store s(root + "/deep/root");
  {
    auto d = s.create("one");
    BOOST_REQUIRE_MESSAGE(d, (d ? "" : d.error().what()));
    Record r;
    r.id = "one";
    BOOST_REQUIRE(d->save(r));
    auto dup = s.create("one");
    BOOST_REQUIRE(!dup);
    BOOST_TEST(dup.error().what().find("already exists") != std::string::npos);
  }
  auto ids = s.list();
  BOOST_REQUIRE(ids);
  BOOST_TEST((*ids == std::vector<std::string>{"one"}));
  auto d = s.open("one");
  BOOST_REQUIRE(d);
  BOOST_TEST(d->load()->id == "one");
  BOOST_REQUIRE(d->remove());
  auto gone = s.open("one");
  BOOST_REQUIRE(!gone);
  BOOST_TEST(gone.error().what() == "container one does not exist");
  std::filesystem::remove_all(root);
}

BOOST_AUTO_TEST_CASE(proc_stat_parsing) {
  auto s = sh::proc::parse_stat("42 (a b) c)) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1 2");
  BOOST_REQUIRE(s);
  BOOST_TEST(s->comm == "a b) c)");
  BOOST_TEST(s->state == 'S');
  BOOST_TEST(s->start_time == 987654u);
  BOOST_TEST(!sh::proc::parse_stat("garbage"));
}

// The state machine's inputs come from the kernel: a live process, a zombie, a recycled pid.
BOOST_AUTO_TEST_CASE(status_follows_the_process) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  auto st = sh::proc::stat(child);
  BOOST_REQUIRE(st);
  Record r;
  r.id = "x";
  r.pid = child;
  r.start_time = st->start_time;
  BOOST_TEST(status_name(status_of(r)) == std::string("running"));  // comm is not our init's
  r.start_time += 1;                                                   // a recycled pid
  BOOST_TEST(status_name(status_of(r)) == std::string("stopped"));
  r.start_time -= 1;
  kill(child, SIGKILL);
  siginfo_t si;
  waitid(P_PID, child, &si, WEXITED | WNOWAIT);  // a zombie
  BOOST_TEST(status_name(status_of(r)) == std::string("stopped"));
  waitpid(child, nullptr, 0);
  BOOST_TEST(status_name(status_of(r)) == std::string("stopped"));
  r.pid = 0;
  BOOST_TEST(status_name(status_of(r)) == std::string("creating"));
}

BOOST_AUTO_TEST_CASE(namespace_names_and_maps) {
  BOOST_TEST(sh::ns::clone_flag("network") == CLONE_NEWNET);
  BOOST_TEST(sh::ns::clone_flag("time") == CLONE_NEWTIME);
  BOOST_TEST(sh::ns::clone_flag("bogus") == 0);
  BOOST_TEST(std::string(sh::ns::proc_name("mount")) == "mnt");
  std::vector<sh::oci::IdMapping> m = {{0, 100000, 65536}, {65536, 1000, 1}};
  BOOST_TEST(sh::ns::format_id_map(m) == "0 100000 65536\n65536 1000 1\n");
}
