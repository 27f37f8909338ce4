#define BOOST_TEST_MODULE systemd_props
#include <boost/test/unit_test.hpp>

#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/systemd_props.hpp"

namespace sd = sh::systemd;
using sh::oci::DeviceRule;

namespace {

const sd::Value* find(const sd::Properties& ps, const std::string& name) {
  for (const auto& p : ps)
    if (p.name == name) return &p.value;
  return nullptr;
}

uint64_t u64(const sd::Properties& ps, const std::string& name) {
  const sd::Value* v = find(ps, name);
  BOOST_REQUIRE_MESSAGE(v, name + " missing");
  return std::get<uint64_t>(*v);
}

DeviceRule rule(bool allow, std::string type, std::optional<int64_t> major, std::optional<int64_t> minor,
                std::string access) {
  return DeviceRule{allow, std::move(type), major, minor, std::move(access)};
}

const char* kProcDevices =
    "Character devices:\n  1 mem\n  4 tty\n  5 /dev/tty\n136 pts\n\nBlock devices:\n  7 loop\n  8 sd\n";

}  // namespace

BOOST_AUTO_TEST_CASE(unit_from_cgroups_path_with_runc_defaults) {
  auto u = sd::unit_for(std::string("system.slice:sharness:abc"), "abc", false);
  BOOST_REQUIRE(u);
  BOOST_TEST(u->name == "sharness-abc.scope");
  BOOST_TEST(u->slice == "system.slice");
  // Empty parts: the slice defaults as runc's (user.slice for a rootless caller).
  BOOST_TEST(sd::unit_for(std::string(":pre:x"), "x", false)->slice == "system.slice");
  BOOST_TEST(sd::unit_for(std::string(":pre:x"), "x", true)->slice == "user.slice");
  BOOST_TEST(sd::unit_for(std::string("a-b.slice::x"), "x", false)->name == "x.scope");
  // No cgroupsPath: <slice>:sharness:<id>.
  auto d = sd::unit_for(std::nullopt, "c1", false);
  BOOST_TEST(d->name == "sharness-c1.scope");
  BOOST_TEST(d->slice == "system.slice");
}

BOOST_AUTO_TEST_CASE(unit_refuses_what_systemd_would_not_take) {
  for (const char* bad : {"system.slice:x", "/a/b", "sys:p:n", "system.slice:p:", "a--b.slice:p:n", "-a.slice:p:n",
                          "a/b.slice:p:n", "system.slice:p:n/x", "system.slice:p:k8s.slice", "system.slice:p q:n"}) {
    auto u = sd::unit_for(std::string(bad), "n", false);
    BOOST_TEST(!u, bad);
    if (!u) BOOST_TEST(u.error().what().find("linux.cgroupsPath") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(scope_properties_put_init_in_a_delegated_scope) {
  auto ps = sd::scope_properties({"sharness-a.scope", "system.slice"}, 4242, "a");
  BOOST_TEST(std::get<std::string>(*find(ps, "Slice")) == "system.slice");
  BOOST_TEST(std::get<bool>(*find(ps, "Delegate")));
  BOOST_TEST((std::get<std::vector<uint32_t>>(*find(ps, "PIDs")) == std::vector<uint32_t>{4242}));
  BOOST_TEST(std::get<bool>(*find(ps, "TasksAccounting")));
  BOOST_TEST(!std::get<bool>(*find(ps, "DefaultDependencies")));
}

BOOST_AUTO_TEST_CASE(memory_pids_cpu_become_properties) {
  sh::oci::Resources r;
  r.memory.emplace();
  r.memory->limit = 64 << 20;
  r.memory->reservation = 32 << 20;
  r.memory->swap = 96 << 20;  // memory+swap
  r.pids = sh::oci::PidsResources{42};
  r.cpu.emplace();
  r.cpu->shares = 1024;
  r.cpu->quota = 50000;
  r.cpu->period = 100000;
  auto ps = sd::resource_properties(r);
  BOOST_REQUIRE(ps);
  BOOST_TEST(u64(*ps, "MemoryMax") == uint64_t(64 << 20));
  BOOST_TEST(u64(*ps, "MemoryLow") == uint64_t(32 << 20));
  BOOST_TEST(u64(*ps, "MemorySwapMax") == uint64_t(32 << 20));  // swap alone, as v2 has it
  BOOST_TEST(u64(*ps, "TasksMax") == 42u);
  BOOST_TEST(u64(*ps, "CPUWeight") == sh::cgroups::shares_to_weight(1024));
  BOOST_TEST(u64(*ps, "CPUWeight") == 39u);  // runc's conversion of the default shares
  BOOST_TEST(u64(*ps, "CPUQuotaPerSecUSec") == 500000u);
  BOOST_TEST(u64(*ps, "CPUQuotaPeriodUSec") == 100000u);
}

BOOST_AUTO_TEST_CASE(unlimited_values_are_infinity_and_zero_is_unset) {
  sh::oci::Resources r;
  r.memory.emplace();
  r.memory->limit = -1;
  r.memory->swap = -1;
  r.pids = sh::oci::PidsResources{0};
  r.cpu.emplace();
  r.cpu->quota = -1;
  r.cpu->shares = 0;
  auto ps = sd::resource_properties(r);
  BOOST_REQUIRE(ps);
  BOOST_TEST(u64(*ps, "MemoryMax") == sd::kInfinity);
  BOOST_TEST(u64(*ps, "MemorySwapMax") == sd::kInfinity);
  BOOST_TEST(u64(*ps, "TasksMax") == sd::kInfinity);
  BOOST_TEST(u64(*ps, "CPUQuotaPerSecUSec") == sd::kInfinity);
  BOOST_TEST(!find(*ps, "CPUWeight"));
  BOOST_TEST(!find(*ps, "MemoryLow"));
  // A period alone leaves the quota as it is.
  sh::oci::Resources p;
  p.cpu.emplace();
  p.cpu->period = 50000;
  auto pp = sd::resource_properties(p);
  BOOST_TEST(u64(*pp, "CPUQuotaPeriodUSec") == 50000u);
  BOOST_TEST(!find(*pp, "CPUQuotaPerSecUSec"));
}

BOOST_AUTO_TEST_CASE(swap_below_memory_is_refused) {
  sh::oci::Resources r;
  r.memory.emplace();
  r.memory->limit = 100;
  r.memory->swap = 50;
  auto ps = sd::resource_properties(r);
  BOOST_REQUIRE(!ps);
  BOOST_TEST(ps.error().what().find("linux.resources.memory.swap") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(quota_rounds_up_to_whole_percent) {
  BOOST_TEST(sd::quota_per_sec(50000, 100000) == 500000u);
  BOOST_TEST(sd::quota_per_sec(12345, 100000) == 130000u);  // 123450 -> 130000
  BOOST_TEST(sd::quota_per_sec(1000, 0) == 10000u);         // default period
  BOOST_TEST(sd::quota_per_sec(-1, 100000) == sd::kInfinity);
  BOOST_TEST(sd::quota_per_sec(200000, 100000) == 2000000u);  // two CPUs
}

BOOST_AUTO_TEST_CASE(cpuset_lists_become_little_endian_masks) {
  BOOST_TEST((*sd::cpuset_mask("0", "x") == std::vector<uint8_t>{0x01}));
  BOOST_TEST((*sd::cpuset_mask("0-3,5", "x") == std::vector<uint8_t>{0x2f}));
  BOOST_TEST((*sd::cpuset_mask("8", "x") == std::vector<uint8_t>{0x00, 0x01}));
  BOOST_TEST((*sd::cpuset_mask(" 1,9-10 ", "x") == std::vector<uint8_t>{0x02, 0x06}));
  for (const char* bad : {"", "a", "3-1", "1,,2", "-1", "1-", "99999"}) {
    auto m = sd::cpuset_mask(bad, "linux.resources.cpu.cpus");
    BOOST_TEST(!m, bad);
    if (!m) BOOST_TEST(m.error().what().find("linux.resources.cpu.cpus") != std::string::npos);
  }
  sh::oci::Resources r;
  r.cpu.emplace();
  r.cpu->cpus = "0-1";
  r.cpu->mems = "0";
  auto ps = sd::resource_properties(r);
  BOOST_TEST((std::get<std::vector<uint8_t>>(*find(*ps, "AllowedCPUs")) == std::vector<uint8_t>{0x03}));
  BOOST_TEST((std::get<std::vector<uint8_t>>(*find(*ps, "AllowedMemoryNodes")) == std::vector<uint8_t>{0x01}));
}

BOOST_AUTO_TEST_CASE(runtime_device_list_becomes_strict_allow_list) {
  std::vector<sh::oci::Device> created;
  auto rules = sh::cgroups::container_device_rules({}, created, false);
  auto ps = sd::device_properties(rules, kProcDevices);
  BOOST_REQUIRE(ps);
  BOOST_TEST(std::get<std::string>(*find(*ps, "DevicePolicy")) == "strict");
  auto allow = std::get<sd::DeviceAllow>(*find(*ps, "DeviceAllow"));
  auto has = [&](const std::string& node, const std::string& access) {
    for (auto& [n, a] : allow)
      if (n == node) return a == access;
    return false;
  };
  BOOST_TEST(has("char-*", "m"));
  BOOST_TEST(has("block-*", "m"));
  BOOST_TEST(has("/dev/char/1:3", "rwm"));  // /dev/null
  BOOST_TEST(has("char-pts", "rwm"));       // 136:*
  for (auto& [n, a] : allow) BOOST_TEST(n != "/dev/char/10:200");  // no tun, as container_device_rules
}

BOOST_AUTO_TEST_CASE(device_denies_take_exact_access_or_are_refused) {
  // An allowed node's access taken back by an exact deny.
  auto ps = sd::device_properties({rule(false, "a", {}, {}, "rwm"), rule(true, "c", 1, 3, "rwm"),
                                   rule(false, "c", 1, 3, "w")},
                                  kProcDevices);
  BOOST_REQUIRE(ps);
  auto allow = std::get<sd::DeviceAllow>(*find(*ps, "DeviceAllow"));
  BOOST_REQUIRE_EQUAL(allow.size(), 1u);
  BOOST_TEST(allow[0].second == "rm");
  // Part of a wildcard taken back: not an allow list, refused rather than over-allowed.
  auto part = sd::device_properties({rule(false, "a", {}, {}, "rwm"), rule(true, "c", {}, {}, "m"),
                                     rule(false, "c", 5, 1, "m")},
                                    kProcDevices);
  BOOST_REQUIRE(!part);
  BOOST_TEST(part.error().what().find("linux.resources.devices: deny c 5:1 m") != std::string::npos);
  // A deny of something never allowed changes nothing.
  auto none = sd::device_properties({rule(false, "a", {}, {}, "rwm"), rule(true, "c", 1, 3, "rwm"),
                                     rule(false, "b", 8, 0, "rwm")},
                                    kProcDevices);
  BOOST_REQUIRE(none);
  BOOST_TEST(std::get<sd::DeviceAllow>(*find(*none, "DeviceAllow")).size() == 1u);
  // Allow-all (privileged): no restriction; a deny after it is refused.
  auto all = sd::device_properties({rule(false, "a", {}, {}, "rwm"), rule(true, "a", {}, {}, "rwm")}, kProcDevices);
  BOOST_TEST(std::get<std::string>(*find(*all, "DevicePolicy")) == "auto");
  BOOST_TEST(std::get<sd::DeviceAllow>(*find(*all, "DeviceAllow")).empty());
  BOOST_TEST(!sd::device_properties({rule(true, "a", {}, {}, "rwm"), rule(false, "c", 1, 3, "rwm")}, kProcDevices));
  // A whole major by its /proc/devices name; an unregistered major has nothing to allow.
  auto maj = sd::device_properties({rule(false, "a", {}, {}, "rwm"), rule(true, "b", 8, {}, "rw"),
                                    rule(true, "c", 250, {}, "rw")},
                                   kProcDevices);
  auto ma = std::get<sd::DeviceAllow>(*find(*maj, "DeviceAllow"));
  BOOST_REQUIRE_EQUAL(ma.size(), 1u);
  BOOST_TEST(ma[0].first == "block-sd");
  BOOST_TEST(!sd::device_properties({rule(true, "c", {}, 3, "rwm")}, kProcDevices));
  BOOST_TEST(!sd::device_properties({rule(true, "c", 1, 3, "rwx")}, kProcDevices));
}

BOOST_AUTO_TEST_CASE(unified_keys_with_a_property_map_to_it) {
  sh::oci::Resources r;
  r.memory.emplace();
  r.memory->limit = 1000;
  r.unified = {{"memory.high", "4096"}, {"memory.max", "max"}, {"pids.max", "7"}, {"cpu.max", "25000 50000"},
               {"cpu.weight", "300"}, {"io.max", "8:0 rbps=1"}};
  auto ps = sd::resource_properties(r);
  BOOST_REQUIRE(ps);
  BOOST_TEST(u64(*ps, "MemoryHigh") == 4096u);
  BOOST_TEST(u64(*ps, "MemoryMax") == sd::kInfinity);  // the unified key wins, as the file write does
  BOOST_TEST(u64(*ps, "TasksMax") == 7u);
  BOOST_TEST(u64(*ps, "CPUQuotaPerSecUSec") == 500000u);
  BOOST_TEST(u64(*ps, "CPUQuotaPeriodUSec") == 50000u);
  BOOST_TEST(u64(*ps, "CPUWeight") == 300u);
  BOOST_TEST(!find(*ps, "io.max"));  // written to the file only
  sh::oci::Resources bad;
  bad.unified = {{"memory.high", "lots"}};
  auto b = sd::resource_properties(bad);
  BOOST_REQUIRE(!b);
  BOOST_TEST(b.error().what().find("linux.resources.unified[\"memory.high\"]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(encode_decode_round_trip) {
  sd::Properties ps = {{"Delegate", true},
                       {"MemoryMax", uint64_t(123)},
                       {"Slice", std::string("system.slice")},
                       {"PIDs", std::vector<uint32_t>{1, 2}},
                       {"AllowedCPUs", std::vector<uint8_t>{0x2f, 0x00, 0xff}},
                       {"DeviceAllow", sd::DeviceAllow{{"/dev/char/1:3", "rwm"}, {"char-pts", "rw"}}},
                       {"DeviceAllow", sd::DeviceAllow{}},
                       {"PIDs", std::vector<uint32_t>{}}};
  for (const auto& p : ps) {
    auto d = sd::decode(sd::encode(p));
    BOOST_REQUIRE_MESSAGE(d, sd::encode(p));
    BOOST_TEST((*d == p), sd::encode(p));
  }
  BOOST_TEST(sd::encode(ps[1]) == "MemoryMax=t:123");
  for (const char* bad : {"", "X", "X=t", "X=q:1", "X=t:-1", "X=b:2", "X=ay:0", "X=ay:zz", "X=au:1,,2",
                          "X=a(ss):nospace", "Bad-Name=t:1", "X=s:a\nb"}) {
    BOOST_TEST(!sd::decode(bad), bad);
  }
}
