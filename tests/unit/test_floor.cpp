// The floor held against exec and update (runtime/lifecycle/floor.hpp): request x floor ->
// ok (possibly tightened) or an error naming the bound and the floor's value. The floor is
// made as create makes it: the shipped harsh policy applied to a Docker-like config.
#define BOOST_TEST_MODULE floor
#include <boost/test/unit_test.hpp>
#include <sys/resource.h>

#include "runtime/lifecycle/floor.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/extension.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::lifecycle;

namespace {

constexpr int64_t MiB = 1 << 20;
constexpr uint32_t kEphemeral = 100007;

std::string repo() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/unit/"));
}

const std::vector<std::string> kDockerCaps = {
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW", "CAP_SETGID",
    "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL",
    "CAP_AUDIT_WRITE"};

// What Docker writes for `docker run` as root (and sends again, copied, with `docker exec`).
oci::Process docker_process() {
  oci::Process p;
  p.args = {"sh"};
  p.user.uid = 0;
  p.user.gid = 0;
  p.user.additional_gids = {0, 1, 2, 3, 4, 6, 10, 11, 20, 26, 27};
  p.capabilities.bounding = p.capabilities.effective = p.capabilities.permitted = kDockerCaps;
  p.rlimits = {oci::Rlimit{"RLIMIT_NOFILE", RLIMIT_NOFILE, 1024, 1024}};
  return p;
}

oci::Resources docker_resources() {
  oci::Resources r;
  r.memory.emplace().limit = 1024 * MiB;
  r.pids = oci::PidsResources{100};
  r.cpu.emplace().cpus = "0-3";
  return r;
}

// The floor create records for that config (or `process`) under --policy harsh; `realtime`:
// a harsh whose priority section allows real time (so init can get what the process asks).
Floor harsh_floor(const oci::Process& process = docker_process(), bool realtime = false) {
  auto p = policy::load_policy(repo() + "/policies/harsh.json");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  BOOST_REQUIRE(p->priority);
  p->priority->realtime = realtime;
  oci::Config c;
  c.process = process;
  c.linux.resources = docker_resources();
  const oci::Process asked = *c.process;
  const auto asked_res = c.linux.resources;
  policy::Extension ext;
  auto r = policy::apply_to_config(*p, c, ext, host::probe());
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  BOOST_REQUIRE(ext.ephemeral_uid);
  c.process->user.uid = c.process->user.gid = kEphemeral;  // what create claims
  return make_floor(ext, FloorIdentity{true, true}, c, asked, asked_res);
}

std::string exec_error(const Floor& f, oci::Process p, const ExecFlags& flags = {}) {
  auto r = hold_exec(f, p, flags);
  BOOST_REQUIRE_MESSAGE(!r, "expected exec to be refused");
  return r.error().what();
}

oci::Process exec_ok(const Floor& f, oci::Process p, const ExecFlags& flags = {}) {
  auto r = hold_exec(f, p, flags);
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  return p;
}

std::string update_error(const Floor& f, oci::Resources r) {
  auto h = hold_update(f, r);
  BOOST_REQUIRE_MESSAGE(!h, "expected update to be refused");
  return h.error().what();
}

oci::Resources update_ok(const Floor& f, oci::Resources r) {
  auto h = hold_update(f, r);
  BOOST_REQUIRE_MESSAGE(h, (h ? "" : h.error().what()));
  return r;
}

const oci::Rlimit* limit_of(const oci::Process& p, const std::string& type) {
  for (auto& r : p.rlimits)
    if (r.type == type) return &r;
  return nullptr;
}

// The exec process `exec ID CMD` builds: the saved (tightened) process, plus CLI flags.
oci::Process saved_process(const Floor& f) {
  oci::Process p = f.applied;
  p.args = {"sh"};
  return p;
}

}  // namespace

// ---- exec -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(cli_user_root_is_refused) {
  Floor f = harsh_floor();
  oci::Process p = saved_process(f);
  p.user.uid = p.user.gid = 0;
  BOOST_TEST(exec_error(f, p, ExecFlags{.user = true, .additional_gids = false, .caps = {}}) ==
             "exec: user 0:0 is not the floor's user (harsh: 100007:100007)");
  // Even 0 as the config had it at create: an explicit --user is a request, not a repeat.
  p.user.additional_gids = f.asked.user.additional_gids;
  BOOST_TEST(exec_error(f, p, ExecFlags{.user = true, .additional_gids = false, .caps = {}}).starts_with("exec: user 0:0 is not the floor's user"));
}

BOOST_AUTO_TEST_CASE(cli_cap_beyond_the_floor_is_refused) {
  Floor f = harsh_floor();
  oci::Process p = saved_process(f);
  for (auto* set : {&p.capabilities.bounding, &p.capabilities.effective, &p.capabilities.permitted})
    (*set)->push_back("CAP_SYS_ADMIN");
  BOOST_TEST(exec_error(f, p, ExecFlags{.user = false, .additional_gids = false, .caps = {"CAP_SYS_ADMIN"}}) ==
             "exec: capability CAP_SYS_ADMIN is not in the floor's set (harsh: none)");
  // Also one the config had at create: --cap is explicit.
  BOOST_TEST(exec_error(f, p, ExecFlags{.user = false, .additional_gids = false, .caps = {"cap_chown"}}) ==
             "exec: capability CAP_CHOWN is not in the floor's set (harsh: none)");
}

BOOST_AUTO_TEST_CASE(ordinary_exec_is_unchanged) {
  Floor f = harsh_floor();
  oci::Process p = exec_ok(f, saved_process(f));
  BOOST_TEST(p.user.uid == kEphemeral);
  BOOST_TEST(p.no_new_privileges);
  BOOST_TEST(p.capabilities.bounding->empty());
  BOOST_REQUIRE(limit_of(p, "RLIMIT_AS"));
  BOOST_TEST(limit_of(p, "RLIMIT_AS")->hard == uint64_t(128 * MiB));
}

BOOST_AUTO_TEST_CASE(client_repeating_its_create_time_process_gets_what_create_gave) {
  // docker exec, ctr task exec, podman exec: the process is the container's spec as the client
  // wrote it (uid 0, Docker's 14 capabilities, no RLIMIT_AS, no no_new_privs).
  Floor f = harsh_floor();
  oci::Process p = exec_ok(f, docker_process());
  BOOST_TEST(p.user.uid == kEphemeral);
  BOOST_TEST(p.user.gid == kEphemeral);
  BOOST_TEST(p.user.additional_gids.empty());
  for (auto* set : {&p.capabilities.bounding, &p.capabilities.effective, &p.capabilities.permitted})
    BOOST_TEST((*set)->empty());
  BOOST_TEST(p.no_new_privileges);
  BOOST_REQUIRE(limit_of(p, "RLIMIT_AS"));
  BOOST_TEST(limit_of(p, "RLIMIT_AS")->hard == uint64_t(128 * MiB));
  BOOST_REQUIRE(limit_of(p, "RLIMIT_NPROC"));
  BOOST_TEST(limit_of(p, "RLIMIT_NPROC")->hard == 4u);
}

BOOST_AUTO_TEST_CASE(process_file_beyond_the_floor_is_refused) {
  Floor f = harsh_floor();
  oci::Process p = docker_process();
  p.capabilities.effective->push_back("CAP_SYS_ADMIN");  // docker exec --privileged: all of them
  p.capabilities.permitted->push_back("CAP_SYS_ADMIN");
  BOOST_TEST(exec_error(f, p) == "exec: capability CAP_SYS_ADMIN is not in the floor's set (harsh: none)");

  p = docker_process();
  p.user.uid = 1234;  // neither the floor's user nor the client's create-time one
  BOOST_TEST(exec_error(f, p) == "exec: user 1234:0 is not the floor's user (harsh: 100007:100007)");

  p = saved_process(f);
  p.user.additional_gids = {0};
  BOOST_TEST(exec_error(f, p) == "exec: additional gid 0 is not in the floor's (harsh: none)");

  p = saved_process(f);
  p.rlimits = {oci::Rlimit{"RLIMIT_AS", RLIMIT_AS, RLIM_INFINITY, RLIM_INFINITY}};
  BOOST_TEST(exec_error(f, p) == "exec: rlimit RLIMIT_AS unlimited is above the floor's (harsh: 134217728)");
  p.rlimits = {oci::Rlimit{"RLIMIT_NPROC", RLIMIT_NPROC, 1000, 1000}};
  BOOST_TEST(exec_error(f, p) == "exec: rlimit RLIMIT_NPROC 1000 is above the floor's (harsh: 4)");
  // One the config set at create (harsh itself does not set RLIMIT_NOFILE).
  p.rlimits = {oci::Rlimit{"RLIMIT_NOFILE", RLIMIT_NOFILE, 1048576, 1048576}};
  BOOST_TEST(exec_error(f, p) == "exec: rlimit RLIMIT_NOFILE 1048576 is above the floor's (harsh: 1024)");
}

BOOST_AUTO_TEST_CASE(no_new_privileges_is_forced_and_lower_rlimits_kept) {
  Floor f = harsh_floor();
  oci::Process p = saved_process(f);
  p.no_new_privileges = false;
  p.rlimits = {oci::Rlimit{"RLIMIT_AS", RLIMIT_AS, 64 * MiB, 32 * MiB}};
  p = exec_ok(f, p);
  BOOST_TEST(p.no_new_privileges);
  BOOST_TEST(limit_of(p, "RLIMIT_AS")->hard == uint64_t(64 * MiB));
  BOOST_TEST(limit_of(p, "RLIMIT_AS")->soft == uint64_t(32 * MiB));
  BOOST_TEST(limit_of(p, "RLIMIT_NOFILE")->hard == 1024u);  // absent in the request: the floor's
}

BOOST_AUTO_TEST_CASE(absent_bounding_set_becomes_the_floors) {
  Floor f = harsh_floor();
  oci::Process p = saved_process(f);
  p.capabilities = {};
  p = exec_ok(f, p);
  BOOST_REQUIRE(p.capabilities.bounding);
  BOOST_TEST(p.capabilities.bounding->empty());
}

BOOST_AUTO_TEST_CASE(a_floor_that_leaves_user_and_caps_free) {
  // baseline: no uid, Docker's capabilities. exec -u 0 is as in runc; CAP_SYS_ADMIN is not.
  auto pol = policy::load_policy(repo() + "/policies/baseline.json");
  BOOST_REQUIRE(pol);
  oci::Config c;
  c.process = docker_process();
  policy::Extension ext;
  BOOST_REQUIRE(policy::apply_to_config(*pol, c, ext, host::probe()));
  Floor f = make_floor(ext, FloorIdentity{}, c, docker_process(), std::nullopt);
  oci::Process p = docker_process();
  p.user.uid = 1234;
  p.capabilities.effective = std::vector<std::string>{"CAP_KILL"};
  p.capabilities.permitted = std::vector<std::string>{"CAP_KILL"};
  p = exec_ok(f, p, ExecFlags{.user = true, .additional_gids = false, .caps = {"CAP_KILL"}});
  BOOST_TEST(p.user.uid == 1234u);
  BOOST_TEST(exec_error(f, docker_process(), ExecFlags{.user = false, .additional_gids = false, .caps = {"CAP_SYS_ADMIN"}}).starts_with(
      "exec: capability CAP_SYS_ADMIN is not in the floor's set (baseline: CAP_"));
}

// oomScoreAdj, scheduler, ioPriority: applied with the runtime's privileges, so only tightened.

namespace {

oci::Process with_oom(int adj) {
  oci::Process p = docker_process();
  p.oom_score_adj = adj;
  return p;
}

oci::Scheduler sched(std::string policy, std::optional<int32_t> nice, std::optional<int32_t> priority = {}) {
  oci::Scheduler s;
  s.policy = std::move(policy);
  s.nice = nice;
  s.priority = priority;
  return s;
}

oci::Process with_sched(const oci::Scheduler& s) {
  oci::Process p = docker_process();
  p.scheduler = s;
  return p;
}

oci::Process with_io(std::string cls, int prio) {
  oci::Process p = docker_process();
  p.io_priority = oci::IoPriority{std::move(cls), prio};
  return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(oom_score_adj_below_the_floor_is_refused) {
  Floor f = harsh_floor();  // the config set none: the bound is 0
  BOOST_TEST(exec_error(f, with_oom(-1000)) == "exec: oomScoreAdj -1000 is below the floor's (harsh: 0 (not set at create))");
  BOOST_TEST(exec_error(f, with_oom(-1)).starts_with("exec: oomScoreAdj -1 is below the floor's"));
  BOOST_TEST(*exec_ok(f, with_oom(0)).oom_score_adj == 0);
  BOOST_TEST(*exec_ok(f, with_oom(1000)).oom_score_adj == 1000);
  BOOST_TEST(!exec_ok(f, docker_process()).oom_score_adj);  // left out: the runtime's own, as init's

  Floor g = harsh_floor(with_oom(300));
  BOOST_TEST(*g.applied.oom_score_adj == 300);
  BOOST_TEST(exec_error(g, with_oom(299)) == "exec: oomScoreAdj 299 is below the floor's (harsh: 300)");
  BOOST_TEST(*exec_ok(g, with_oom(300)).oom_score_adj == 300);
  BOOST_TEST(*exec_ok(g, with_oom(500)).oom_score_adj == 500);
  BOOST_TEST(*exec_ok(g, docker_process()).oom_score_adj == 300);  // left out: init's, not the runtime's
}

BOOST_AUTO_TEST_CASE(oom_score_adj_repeating_the_clients_own_gets_the_floors) {
  Floor f = harsh_floor(with_oom(-500));
  f.applied.oom_score_adj = 0;  // as if create had tightened it
  BOOST_TEST(*exec_ok(f, with_oom(-500)).oom_score_adj == 0);
  BOOST_TEST(exec_error(f, with_oom(-501)).starts_with("exec: oomScoreAdj -501 is below the floor's (harsh: 0)"));
}

BOOST_AUTO_TEST_CASE(real_time_scheduler_is_refused_unless_the_floors) {
  Floor f = harsh_floor();
  BOOST_TEST(exec_error(f, with_sched(sched("SCHED_FIFO", {}, 1))) ==
             "exec: scheduler SCHED_FIFO priority 1 is not the floor's (harsh: SCHED_OTHER nice 0 (not set at create))");
  BOOST_TEST(exec_error(f, with_sched(sched("SCHED_RR", {}, 99))).starts_with("exec: scheduler SCHED_RR priority 99 is not the floor's"));
  auto dl = sched("SCHED_DEADLINE", {});
  dl.runtime = 10000000;
  dl.deadline = dl.period = 30000000;
  BOOST_TEST(exec_error(f, with_sched(dl)).starts_with("exec: scheduler SCHED_DEADLINE priority 0 is not the floor's"));
  BOOST_TEST(exec_error(f, with_sched(sched("SCHED_ISO", {}))).starts_with("exec: scheduler SCHED_ISO"));

  // harsh itself gives init no real time: the floor is the fair class create put in its place
  BOOST_TEST(harsh_floor(with_sched(sched("SCHED_FIFO", {}, 1))).applied.scheduler->policy == "SCHED_OTHER");
  Floor g = harsh_floor(with_sched(sched("SCHED_FIFO", {}, 1)), true);
  BOOST_TEST(exec_ok(g, with_sched(sched("SCHED_FIFO", {}, 1))).scheduler->policy == "SCHED_FIFO");
  BOOST_TEST(exec_error(g, with_sched(sched("SCHED_FIFO", {}, 2))) ==
             "exec: scheduler SCHED_FIFO priority 2 is not the floor's (harsh: SCHED_FIFO priority 1)");
  BOOST_TEST(exec_error(g, with_sched(sched("SCHED_RR", {}, 1))).starts_with("exec: scheduler SCHED_RR priority 1 is not"));
  BOOST_TEST(exec_ok(g, with_sched(sched("SCHED_OTHER", 0))).scheduler->policy == "SCHED_OTHER");
  BOOST_TEST(!exec_ok(g, docker_process()).scheduler);  // left out: the runtime's own, below FIFO
}

BOOST_AUTO_TEST_CASE(nice_below_the_floor_is_refused) {
  Floor f = harsh_floor();
  BOOST_TEST(exec_error(f, with_sched(sched("SCHED_OTHER", -5))) ==
             "exec: scheduler nice -5 is below the floor's (harsh: SCHED_OTHER nice 0 (not set at create))");
  BOOST_TEST(exec_error(f, with_sched(sched("SCHED_BATCH", -1))).starts_with("exec: scheduler nice -1 is below"));
  for (const char* pol : {"SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE"}) {
    BOOST_TEST(exec_ok(f, with_sched(sched(pol, {}))).scheduler->policy == pol);
    BOOST_TEST(*exec_ok(f, with_sched(sched(pol, 19))).scheduler->nice == 19);
  }

  Floor g = harsh_floor(with_sched(sched("SCHED_BATCH", 5)));
  BOOST_TEST(exec_error(g, with_sched(sched("SCHED_OTHER", 4))) ==
             "exec: scheduler nice 4 is below the floor's (harsh: SCHED_BATCH nice 5)");
  BOOST_TEST(*exec_ok(g, with_sched(sched("SCHED_OTHER", 5))).scheduler->nice == 5);
  BOOST_TEST(exec_ok(g, with_sched(sched("SCHED_IDLE", 10))).scheduler->policy == "SCHED_IDLE");

  BOOST_TEST(*exec_ok(g, docker_process()).scheduler->nice == 5);  // left out: init's, not the runtime's
  BOOST_TEST(!exec_ok(f, docker_process()).scheduler);

  Floor idle = harsh_floor(with_sched(sched("SCHED_IDLE", {})));  // idle stays idle
  BOOST_TEST(exec_error(idle, with_sched(sched("SCHED_OTHER", 19))) ==
             "exec: scheduler SCHED_OTHER nice 19 is not the floor's (harsh: SCHED_IDLE nice 0)");
  BOOST_TEST(exec_error(idle, with_sched(sched("SCHED_BATCH", {}))).starts_with("exec: scheduler SCHED_BATCH nice 0 is not"));
  BOOST_TEST(exec_ok(idle, with_sched(sched("SCHED_IDLE", {}))).scheduler->policy == "SCHED_IDLE");
}

BOOST_AUTO_TEST_CASE(scheduler_repeating_the_clients_own_gets_the_floors) {
  Floor f = harsh_floor(with_sched(sched("SCHED_FIFO", {}, 1)));
  f.applied.scheduler.reset();  // as if create had dropped it
  BOOST_TEST(!exec_ok(f, with_sched(sched("SCHED_FIFO", {}, 1))).scheduler);
  BOOST_TEST(exec_error(f, with_sched(sched("SCHED_FIFO", {}, 2))).starts_with("exec: scheduler SCHED_FIFO priority 2 is not"));
  Floor g = harsh_floor(with_sched(sched("SCHED_OTHER", -10)));
  g.applied.scheduler = sched("SCHED_OTHER", 0);
  BOOST_TEST(*exec_ok(g, with_sched(sched("SCHED_OTHER", -10))).scheduler->nice == 0);
  BOOST_TEST(exec_error(g, with_sched(sched("SCHED_OTHER", -11))).starts_with("exec: scheduler nice -11 is below"));
}

BOOST_AUTO_TEST_CASE(io_priority_above_the_floor_is_refused) {
  Floor f = harsh_floor();  // none set: best-effort 4, a nice-0 process's
  BOOST_TEST(exec_error(f, with_io("IOPRIO_CLASS_RT", 7)) ==
             "exec: ioPriority IOPRIO_CLASS_RT 7 is above the floor's (harsh: IOPRIO_CLASS_BE 4 (not set at create))");
  BOOST_TEST(exec_error(f, with_io("IOPRIO_CLASS_BE", 3)).starts_with("exec: ioPriority IOPRIO_CLASS_BE 3 is above"));
  BOOST_TEST(exec_ok(f, with_io("IOPRIO_CLASS_BE", 4)).io_priority->priority == 4);
  BOOST_TEST(exec_ok(f, with_io("IOPRIO_CLASS_BE", 7)).io_priority->priority == 7);
  BOOST_TEST(exec_ok(f, with_io("IOPRIO_CLASS_IDLE", 0)).io_priority->io_class == "IOPRIO_CLASS_IDLE");

  BOOST_TEST(harsh_floor(with_io("IOPRIO_CLASS_RT", 4)).applied.io_priority->io_class == "IOPRIO_CLASS_BE");
  Floor rt = harsh_floor(with_io("IOPRIO_CLASS_RT", 4), true);
  BOOST_TEST(exec_ok(rt, with_io("IOPRIO_CLASS_RT", 4)).io_priority->io_class == "IOPRIO_CLASS_RT");
  BOOST_TEST(exec_error(rt, with_io("IOPRIO_CLASS_RT", 3)) ==
             "exec: ioPriority IOPRIO_CLASS_RT 3 is above the floor's (harsh: IOPRIO_CLASS_RT 4)");
  BOOST_TEST(exec_ok(rt, with_io("IOPRIO_CLASS_BE", 0)).io_priority->io_class == "IOPRIO_CLASS_BE");
  BOOST_TEST(!exec_ok(rt, docker_process()).io_priority);  // left out: the runtime's own, below RT

  Floor idle = harsh_floor(with_io("IOPRIO_CLASS_IDLE", 0));
  BOOST_TEST(exec_error(idle, with_io("IOPRIO_CLASS_BE", 7)).starts_with("exec: ioPriority IOPRIO_CLASS_BE 7 is above the floor's (harsh: IOPRIO_CLASS_IDLE 0)"));
  BOOST_TEST(exec_ok(idle, with_io("IOPRIO_CLASS_IDLE", 0)).io_priority->io_class == "IOPRIO_CLASS_IDLE");
  BOOST_TEST(exec_ok(idle, docker_process()).io_priority->io_class == "IOPRIO_CLASS_IDLE");  // left out: init's
  BOOST_TEST(!exec_ok(f, docker_process()).io_priority);
}

BOOST_AUTO_TEST_CASE(io_priority_repeating_the_clients_own_gets_the_floors) {
  Floor f = harsh_floor(with_io("IOPRIO_CLASS_RT", 0));
  f.applied.io_priority = oci::IoPriority{"IOPRIO_CLASS_BE", 2};
  auto p = exec_ok(f, with_io("IOPRIO_CLASS_RT", 0));
  BOOST_TEST(p.io_priority->io_class == "IOPRIO_CLASS_BE");
  BOOST_TEST(p.io_priority->priority == 2);
  BOOST_TEST(exec_error(f, with_io("IOPRIO_CLASS_RT", 1)).starts_with("exec: ioPriority IOPRIO_CLASS_RT 1 is above"));
}

// ---- update -----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(update_above_the_floor_is_refused) {
  Floor f = harsh_floor();
  oci::Resources r;
  r.pids = oci::PidsResources{1000};
  BOOST_TEST(update_error(f, r) == "update: pids limit 1000 is above the floor's (harsh: 4)");
  r.pids = oci::PidsResources{-1};
  BOOST_TEST(update_error(f, r) == "update: pids limit unlimited is above the floor's (harsh: 4)");
  r = {};
  r.memory.emplace().limit = 8192 * MiB;
  BOOST_TEST(update_error(f, r) ==
             "update: memory limit 8589934592 (8 GiB) is above the floor's (harsh: 134217728 (128 MiB))");
  r.memory->limit = -1;
  BOOST_TEST(update_error(f, r).starts_with("update: memory limit unlimited is above the floor's"));
  r = {};
  r.cpu.emplace().quota = 100000;
  BOOST_TEST(update_error(f, r) ==
             "update: CPU quota 100000 per 100000 us, 1.00 CPUs is above the floor's (harsh: 50000 per 100000 us, "
             "0.50 CPUs)");
  r.cpu->quota.reset();
  r.cpu->period = 10000;  // the period alone: 50000 per 10000 is 5 CPUs
  BOOST_TEST(update_error(f, r).starts_with("update: CPU quota 50000 per 10000 us, 5.00 CPUs is above"));
  r.cpu = oci::CpuResources{};
  r.cpu->quota = -1;
  BOOST_TEST(update_error(f, r).starts_with("update: CPU quota unlimited is above the floor's"));
  r.cpu = oci::CpuResources{};
  r.cpu->cpus = "0-7";
  BOOST_TEST(update_error(f, r) == "update: cpuset cpus 0-7 is not within the floor's (harsh: 0-3)");
  r = {};
  r.unified["pids.max"] = "1000";
  BOOST_TEST(update_error(f, r).starts_with("update: linux.resources.unified[\"pids.max\"] = \"1000\" is refused"));
}

BOOST_AUTO_TEST_CASE(lowering_is_allowed_and_halves_are_completed) {
  Floor f = harsh_floor();
  oci::Resources r;
  r.pids = oci::PidsResources{2};
  r.memory.emplace().limit = 64 * MiB;
  r.cpu.emplace().quota = 25000;
  r.cpu->cpus = "1,3";
  r = update_ok(f, r);
  BOOST_TEST(r.pids->limit == 2);
  BOOST_TEST(*r.memory->limit == 64 * MiB);
  BOOST_TEST(*r.cpu->quota == 25000);
  BOOST_TEST(*r.cpu->period == 100000u);  // written with the quota: the ratio checked is the one set
  // Nothing given for a field: unchanged, whatever the floor.
  oci::Resources none;
  none.pids = oci::PidsResources{0};
  BOOST_TEST(update_ok(f, none).pids->limit == 0);
}

BOOST_AUTO_TEST_CASE(client_repeating_its_create_time_resources_gets_the_floor) {
  // docker update --cpus 1 sends the container's memory again (1g at create, 128 MiB under harsh).
  Floor f = harsh_floor();
  oci::Resources r;
  r.memory.emplace().limit = 1024 * MiB;
  r.pids = oci::PidsResources{100};
  r = update_ok(f, r);
  BOOST_TEST(*r.memory->limit == 128 * MiB);
  BOOST_TEST(r.pids->limit == 4);
}

BOOST_AUTO_TEST_CASE(floor_round_trips_through_its_file) {
  Floor f = harsh_floor();
  auto back = parse_floor(floor_to_json(f), "floor.json");
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST(back->policy_id == "harsh");
  BOOST_TEST(back->policy_hash == f.policy_hash);
  BOOST_TEST(back->fixes_uid);
  BOOST_TEST(back->applied.user.uid == kEphemeral);
  BOOST_TEST(back->applied.no_new_privileges);
  BOOST_TEST(back->applied.capabilities.bounding->empty());
  BOOST_TEST(back->asked.capabilities.bounding->size() == kDockerCaps.size());
  BOOST_TEST(back->applied_resources.pids->limit == 4);
  BOOST_TEST(*back->asked_resources.memory->limit == 1024 * MiB);
  // The process attributes init got come back too: without them exec would be held to 0.
  oci::Process attrs = with_oom(300);
  attrs.scheduler = sched("SCHED_BATCH", 5);
  attrs.io_priority = oci::IoPriority{"IOPRIO_CLASS_BE", 6};
  auto held = parse_floor(floor_to_json(harsh_floor(attrs)), "floor.json");
  BOOST_REQUIRE_MESSAGE(held, (held ? "" : held.error().what()));
  BOOST_REQUIRE(held->applied.oom_score_adj && held->applied.scheduler && held->applied.io_priority);
  BOOST_REQUIRE(held->asked.oom_score_adj);
  BOOST_TEST(*held->applied.oom_score_adj == 300);
  BOOST_TEST(held->applied.scheduler->policy == "SCHED_BATCH");
  BOOST_TEST(*held->applied.scheduler->nice == 5);
  BOOST_TEST(held->applied.io_priority->io_class == "IOPRIO_CLASS_BE");
  BOOST_TEST(held->applied.io_priority->priority == 6);
  BOOST_TEST(*held->asked.oom_score_adj == 300);
  // A set absent in memory comes back empty (absent inside a capabilities object is empty, as
  // runc reads it); from then on the file round-trips exactly.
  BOOST_TEST(back->applied.capabilities.inheritable->empty());
  auto again = parse_floor(floor_to_json(*back), "floor.json");
  BOOST_REQUIRE(again);
  BOOST_TEST(floor_to_json(*again) == floor_to_json(*back));
  // Strict: a floor file with something else in it is an error, not ignored.
  auto bad = parse_floor(R"({"policy": {"id": "x", "hash": "y"}, "fixesUid": false, "fixesGid": false,
      "applied": {"process": {}}, "asked": {"process": {}}, "extra": 1})", "floor.json");
  BOOST_TEST(!bad);
  BOOST_TEST(!parse_floor(R"({"policy": {"id": "x", "hash": "y"}, "fixesUid": false, "fixesGid": false,
      "applied": {"process": {}}})", "floor.json"));
}

BOOST_AUTO_TEST_CASE(cpu_lists) {
  auto l = parse_cpu_list("0-2,5,7-8", "cpus");
  BOOST_REQUIRE(l);
  BOOST_TEST(*l == (std::vector<unsigned>{0, 1, 2, 5, 7, 8}));
  for (const char* bad : {"a", "1-", "3-1", "1,", ",1", "70000", "1--2"}) BOOST_TEST(!parse_cpu_list(bad, "cpus"), bad);
}
