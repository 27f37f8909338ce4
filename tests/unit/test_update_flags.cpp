#define BOOST_TEST_MODULE update_flags
#include <boost/test/unit_test.hpp>

#include "runtime/lifecycle/cgroup_reads.hpp"
#include "runtime/lifecycle/update.hpp"

using namespace sh;
using namespace std::chrono_literals;

namespace {

constexpr int64_t MiB = 1 << 20;

oci::Resources must(std::optional<oci::Resources> json, const std::map<std::string, std::string>& flags) {
  auto r = lifecycle::update_resources(std::move(json), flags);
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  return std::move(*r);
}

std::string error_of(std::optional<oci::Resources> json, const std::map<std::string, std::string>& flags) {
  auto r = lifecycle::update_resources(std::move(json), flags);
  BOOST_REQUIRE_MESSAGE(!r, "expected an error");
  return r.error().what();
}

int64_t mem(const std::string& v) {
  auto r = lifecycle::parse_memory_size("memory", v);
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  return *r;
}

oci::Resources doc_of(const std::string& text) {
  auto r = oci::parse_resources_json(text, "test.json");
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
  return std::move(*r);
}

}  // namespace

BOOST_AUTO_TEST_CASE(memory_suffixes) {
  BOOST_TEST(mem("1048576") == MiB);
  BOOST_TEST(mem("256m") == 256 * MiB);
  BOOST_TEST(mem("256M") == 256 * MiB);
  BOOST_TEST(mem("256mb") == 256 * MiB);
  BOOST_TEST(mem("256MiB") == 256 * MiB);
  BOOST_TEST(mem("256 m") == 256 * MiB);
  BOOST_TEST(mem("4k") == 4096);
  BOOST_TEST(mem("1g") == 1024 * MiB);
  BOOST_TEST(mem("1.5g") == 1536 * MiB);
  BOOST_TEST(mem("2t") == (int64_t(2) << 40));
  BOOST_TEST(mem("100b") == 100);
  BOOST_TEST(mem("0") == 0);
  BOOST_TEST(mem("-1") == -1);
}

BOOST_AUTO_TEST_CASE(memory_bad_values_name_the_flag) {
  for (const char* bad : {"", "m", "12x", "-2", "1.g", ".5g", "1..2m", "1e6", "10 ", "9999999999999999999999", "8192p"}) {
    auto r = lifecycle::parse_memory_size("memory-swap", bad);
    BOOST_TEST(!r, bad);
    if (!r) BOOST_TEST(r.error().what().find("--memory-swap") != std::string::npos, r.error().what());
  }
}

BOOST_AUTO_TEST_CASE(flags_fill_every_field) {
  auto r = must(std::nullopt, {{"memory", "64m"},
                               {"memory-reservation", "32m"},
                               {"memory-swap", "-1"},
                               {"kernel-memory", "1m"},
                               {"kernel-memory-tcp", "2m"},
                               {"cpu-share", "512"},
                               {"cpu-period", "100000"},
                               {"cpu-quota", "50000"},
                               {"cpu-rt-period", "1000000"},
                               {"cpu-rt-runtime", "950000"},
                               {"cpuset-cpus", "0-1,3"},
                               {"cpuset-mems", "0"},
                               {"pids-limit", "10"},
                               {"blkio-weight", "300"}});
  BOOST_REQUIRE(r.memory);
  BOOST_TEST(*r.memory->limit == 64 * MiB);
  BOOST_TEST(*r.memory->reservation == 32 * MiB);
  BOOST_TEST(*r.memory->swap == -1);
  BOOST_TEST(*r.memory->kernel == MiB);
  BOOST_TEST(*r.memory->kernel_tcp == 2 * MiB);
  BOOST_REQUIRE(r.cpu);
  BOOST_TEST(*r.cpu->shares == 512u);
  BOOST_TEST(*r.cpu->period == 100000u);
  BOOST_TEST(*r.cpu->quota == 50000);
  BOOST_TEST(*r.cpu->realtime_period == 1000000u);
  BOOST_TEST(*r.cpu->realtime_runtime == 950000);
  BOOST_TEST(*r.cpu->cpus == "0-1,3");
  BOOST_TEST(*r.cpu->mems == "0");
  BOOST_REQUIRE(r.pids);
  BOOST_TEST(r.pids->limit == 10);
  BOOST_REQUIRE(r.block_io);
  BOOST_TEST(*r.block_io->weight == 300);
}

BOOST_AUTO_TEST_CASE(no_flags_no_change) {
  auto r = must(std::nullopt, {});
  BOOST_TEST(!r.memory);
  BOOST_TEST(!r.cpu);
  BOOST_TEST(!r.pids);
  BOOST_TEST(!r.block_io);
  // an empty value is a flag not given (runc)
  BOOST_TEST(!must(std::nullopt, {{"memory", ""}}).memory);
}

BOOST_AUTO_TEST_CASE(unlimited_and_unchanged) {
  BOOST_TEST(*must(std::nullopt, {{"memory", "-1"}}).memory->limit == -1);
  BOOST_TEST(must(std::nullopt, {{"pids-limit", "-1"}}).pids->limit == -1);
  BOOST_TEST(must(std::nullopt, {{"pids-limit", "-5"}}).pids->limit == -1);
  // runc: 0 leaves the pids limit and the blkio weight as they are
  BOOST_TEST(!must(std::nullopt, {{"pids-limit", "0"}}).pids);
  BOOST_TEST(!must(doc_of(R"({"pids": {"limit": 0}})"), {}).pids);
  auto r = must(std::nullopt, {{"blkio-weight", "0"}});
  BOOST_TEST(!(r.block_io && r.block_io->weight));
  BOOST_TEST(*must(std::nullopt, {{"cpu-quota", "-1"}}).cpu->quota == -1);
}

BOOST_AUTO_TEST_CASE(flags_override_json_field_by_field) {
  auto doc = doc_of(R"({"memory": {"limit": 1000000, "reservation": 500000}, "cpu": {"shares": 100}, "pids": {"limit": 7}})");
  auto r = must(doc, {{"memory", "2m"}, {"pids-limit", "9"}});
  BOOST_TEST(*r.memory->limit == 2 * MiB);         // the flag wins
  BOOST_TEST(*r.memory->reservation == 500000);    // the document's other fields stay
  BOOST_TEST(*r.cpu->shares == 100u);
  BOOST_TEST(r.pids->limit == 9);
  // without flags, the document as is
  auto plain = must(doc, {});
  BOOST_TEST(*plain.memory->limit == 1000000);
  BOOST_TEST(plain.pids->limit == 7);
}

BOOST_AUTO_TEST_CASE(device_rules_never_updated) {
  auto r = must(doc_of(R"({"devices": [{"allow": false, "access": "rwm"}], "memory": {"limit": 1048576}})"), {});
  BOOST_TEST(r.devices.empty());
  BOOST_TEST(*r.memory->limit == MiB);
}

BOOST_AUTO_TEST_CASE(bad_values_name_the_flag) {
  struct Case {
    const char* flag;
    const char* value;
  } cases[] = {
      {"memory", "lots"},    {"cpu-share", "-3"},   {"cpu-share", "1.5"},   {"cpu-period", "x"},
      {"cpu-quota", "-2"},   {"cpu-rt-runtime", "1e3"}, {"cpuset-cpus", "0-"}, {"cpuset-cpus", "a"},
      {"cpuset-mems", "0,,1"}, {"pids-limit", "ten"}, {"blkio-weight", "5"},  {"blkio-weight", "1001"},
      {"memory-reservation", "1q"},
  };
  for (const auto& c : cases) {
    std::string e = error_of(std::nullopt, {{c.flag, c.value}});
    BOOST_TEST(e.find(std::string("--") + c.flag) != std::string::npos, e);
    BOOST_TEST(e.find(c.value) != std::string::npos, e);
  }
}

BOOST_AUTO_TEST_CASE(intel_rdt_refused) {
  for (const char* f : {"l3-cache-schema", "mem-bw-schema"}) {
    std::string e = error_of(std::nullopt, {{f, "L3:0=ff"}});
    BOOST_TEST(e.find("Intel RDT") != std::string::npos, e);
    BOOST_TEST(e.find(f) != std::string::npos, e);
  }
}

BOOST_AUTO_TEST_CASE(every_declared_flag_is_understood) {
  for (const auto& names : lifecycle::update_flags()) {
    auto r = lifecycle::update_resources(std::nullopt, {{names.front(), "1"}});
    if (names.front() == "l3-cache-schema" || names.front() == "mem-bw-schema") continue;
    if (names.front() == "blkio-weight") continue;  // 1 is below its range
    BOOST_TEST(bool(r), names.front() + ": " + (r ? "" : r.error().what()));
  }
}

BOOST_AUTO_TEST_CASE(durations) {
  auto d = [](const std::string& v) {
    auto r = lifecycle::parse_duration("interval", v);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().what()));
    return *r;
  };
  BOOST_TEST(d("5s").count() == std::chrono::nanoseconds(5s).count());
  BOOST_TEST(d("500ms").count() == std::chrono::nanoseconds(500ms).count());
  BOOST_TEST(d("200ms").count() == std::chrono::nanoseconds(200ms).count());
  BOOST_TEST(d("1m").count() == std::chrono::nanoseconds(60s).count());
  BOOST_TEST(d("1m30s").count() == std::chrono::nanoseconds(90s).count());
  BOOST_TEST(d("1.5h").count() == std::chrono::nanoseconds(5400s).count());
  BOOST_TEST(d("10us").count() == 10000);
  BOOST_TEST(d("10\xc2\xb5s").count() == 10000);
  BOOST_TEST(d("7ns").count() == 7);
  for (const char* bad : {"", "5", "0s", "0", "-1s", "5x", "s", "1..5s", "ms5"}) {
    auto r = lifecycle::parse_duration("interval", bad);
    BOOST_TEST(!r, bad);
    if (!r) BOOST_TEST(r.error().what().find("--interval") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(event_documents) {
  cgroups::Cgroup::Stats s;
  s.memory_usage = 100;
  s.memory_limit = 200;
  s.memory_max_usage = 150;
  s.pids_current = 3;
  s.pids_limit = 10;
  s.cpu_usage_ns = 12345;
  BOOST_TEST(lifecycle::stats_event_json("c1", s) ==
             R"({"type":"stats","id":"c1","data":{"cpu":{"usage":{"total":12345}},)"
             R"("memory":{"usage":{"usage":100,"limit":200,"max":150},"raw":{}},"pids":{"current":3,"limit":10}}})");
  BOOST_TEST(lifecycle::oom_event_json("c\"1") == R"({"type":"oom","id":"c\"1"})");
}
