// The `priority` section: parse, compose (only tightens), the loud half (a client's looser
// priority named), and what it does to a config's oomScoreAdj, scheduler and ioPriority.
#define BOOST_TEST_MODULE policy_priority
#include <boost/test/unit_test.hpp>

#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/no_looser.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;
using namespace sh::policy;

namespace {

Result<Policy> try_parse(const std::string& body) {
  return parse_policy(R"({"version": 1, "id": "p")" + (body.empty() ? "" : ", " + body) + "}");
}

Policy parse(const std::string& body) {
  auto p = try_parse(body);
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

oci::Config config(const std::string& process_extra) {
  auto c = oci::parse_config(R"({"ociVersion": "1.2.0", "root": {"path": "rootfs"},
    "process": {"args": ["sh"], "cwd": "/", "user": {"uid": 0, "gid": 0})" + process_extra + "}}");
  BOOST_REQUIRE_MESSAGE(c, (c ? "" : c.error().what()));
  return *c;
}

// What the policy makes of the config, and the changes it says it made.
std::pair<oci::Process, std::vector<std::string>> applied(const Policy& p, const std::string& process_extra) {
  oci::Config c = config(process_extra);
  Extension ext;
  auto r = apply_to_config(p, c, ext, host::probe());
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  std::vector<std::string> held;
  for (const auto& b : ext.bounds)
    if (b.note == kConfigHeld) held.push_back(b.mechanism);
  return {*c.process, held};
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_empty_section_holds_everything_at_the_kernels_defaults) {
  auto p = parse(R"("priority": {})");
  BOOST_REQUIRE(p.priority);
  BOOST_TEST(p.priority->oom_score_adj_min == 0);
  BOOST_TEST(p.priority->nice_min == 0);
  BOOST_TEST(!p.priority->realtime);
  BOOST_TEST(!parse("").priority);  // absent: no constraint
}

BOOST_AUTO_TEST_CASE(bad_values_name_their_path) {
  auto bad = [](const std::string& body, const std::string& what) {
    auto p = try_parse(body);
    BOOST_REQUIRE(!p);
    BOOST_TEST_MESSAGE(p.error().what());
    BOOST_TEST(std::string(p.error().what()).find(what) != std::string::npos);
  };
  bad(R"("priority": {"oomScoreAdjMin": -1001})", "priority.oomScoreAdjMin");
  bad(R"("priority": {"niceMin": 20})", "priority.niceMin");
  bad(R"("priority": {"realtime": "yes"})", "priority.realtime");
  bad(R"("priority": {"nice": 0})", "priority.nice");
}

BOOST_AUTO_TEST_CASE(it_round_trips_through_the_writer) {
  auto p = parse(R"("priority": {"oomScoreAdjMin": -500, "niceMin": 5, "realtime": true})");
  auto again = parse_policy(policy_to_json(p));
  BOOST_REQUIRE(again);
  BOOST_TEST((again->priority == p.priority));
}

BOOST_AUTO_TEST_CASE(composition_keeps_the_higher_minimum_and_real_time_only_if_both_allow) {
  auto floor = parse(R"("priority": {"oomScoreAdjMin": 0, "niceMin": -5, "realtime": true})");
  auto client = parse(R"("priority": {"oomScoreAdjMin": -900, "niceMin": 10, "realtime": false})");
  auto r = intersect(floor, client);
  BOOST_REQUIRE(r.priority);
  BOOST_TEST(r.priority->oom_score_adj_min == 0);
  BOOST_TEST(r.priority->nice_min == 10);
  BOOST_TEST(!r.priority->realtime);
  // Absent on one side: the other's.
  BOOST_TEST((intersect(floor, parse("")).priority == floor.priority));
  BOOST_TEST((intersect(parse(""), client).priority == client.priority));
}

BOOST_AUTO_TEST_CASE(a_client_priority_looser_than_the_floor_is_named) {
  auto floor = parse(R"("priority": {"oomScoreAdjMin": 0, "niceMin": 0, "realtime": false})");
  auto client = parse(R"("priority": {"oomScoreAdjMin": -997, "niceMin": -10, "realtime": true})");
  std::vector<std::string> sections;
  for (const auto& l : looser_sections(&floor, client, {})) sections.push_back(l.section);
  BOOST_TEST((sections == std::vector<std::string>{"priority.oomScoreAdjMin", "priority.niceMin", "priority.realtime"}));
  BOOST_TEST(looser_sections(&floor, parse(R"("priority": {"oomScoreAdjMin": 500})"), {}).empty());
}

BOOST_AUTO_TEST_CASE(a_configs_oom_score_adj_below_the_floor_is_raised_and_said) {
  auto p = parse(R"("priority": {})");
  auto [proc, held] = applied(p, R"(, "oomScoreAdj": -997)");
  BOOST_TEST((proc.oom_score_adj == std::optional<int>(0)));
  BOOST_REQUIRE(held.size() == 1u);
  BOOST_TEST(held[0] == "the config's oomScoreAdj -997 raised to the policy's 0");
  // Above the minimum (killed sooner): kept, nothing said.
  auto [kept, none] = applied(p, R"(, "oomScoreAdj": 500)");
  BOOST_TEST((kept.oom_score_adj == std::optional<int>(500)));
  BOOST_TEST(none.empty());
}

BOOST_AUTO_TEST_CASE(real_time_scheduling_becomes_the_fair_class_and_nice_is_raised) {
  auto p = parse(R"("priority": {"niceMin": 0})");
  auto [fifo, held] = applied(p, R"(, "scheduler": {"policy": "SCHED_FIFO", "priority": 50, "nice": -5})");
  BOOST_REQUIRE(fifo.scheduler);
  BOOST_TEST(fifo.scheduler->policy == "SCHED_OTHER");
  BOOST_TEST(!fifo.scheduler->priority);
  BOOST_TEST((fifo.scheduler->nice == std::optional<int32_t>(0)));
  BOOST_TEST(held.size() == 2u);
  auto [batch, _] = applied(p, R"(, "scheduler": {"policy": "SCHED_BATCH", "nice": 7})");
  BOOST_TEST(batch.scheduler->policy == "SCHED_BATCH");
  BOOST_TEST((batch.scheduler->nice == std::optional<int32_t>(7)));
  // Allowed real time is kept as asked.
  auto [rt, none] = applied(parse(R"("priority": {"realtime": true, "niceMin": -20})"),
                            R"(, "scheduler": {"policy": "SCHED_RR", "priority": 10})");
  BOOST_TEST(rt.scheduler->policy == "SCHED_RR");
  BOOST_TEST(none.empty());
}

BOOST_AUTO_TEST_CASE(the_real_time_io_class_becomes_best_effort_at_the_same_level) {
  auto [proc, held] = applied(parse(R"("priority": {})"), R"(, "ioPriority": {"class": "IOPRIO_CLASS_RT", "priority": 2})");
  BOOST_REQUIRE(proc.io_priority);
  BOOST_TEST(proc.io_priority->io_class == "IOPRIO_CLASS_BE");
  BOOST_TEST(proc.io_priority->priority == 2);
  BOOST_TEST(held.size() == 1u);
}

BOOST_AUTO_TEST_CASE(without_the_section_the_config_is_untouched) {
  auto [proc, held] = applied(parse(R"("memory": {"limit": "64MiB"})"),
                              R"(, "oomScoreAdj": -997, "scheduler": {"policy": "SCHED_FIFO", "priority": 1})");
  BOOST_TEST((proc.oom_score_adj == std::optional<int>(-997)));
  BOOST_TEST(proc.scheduler->policy == "SCHED_FIFO");
  BOOST_TEST(held.empty());
}
