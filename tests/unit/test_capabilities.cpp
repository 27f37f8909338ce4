#define BOOST_TEST_MODULE capabilities
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/process_attrs.hpp"
#include "tests/unit/fork_child.hpp"

using namespace sh;
using sh::test::ChildResult;
using sh::test::expect_ok;
using sh::test::in_child;

namespace {

// A line of /proc/self/status, e.g. "CapBnd" -> its hex mask.
uint64_t status_mask(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::stoull(line.substr(key.size() + 1), nullptr, 16);
  return ~0ULL;
}

std::string check_mask(const std::string& key, uint64_t want) {
  uint64_t got = status_mask(key);
  if (got == want) return "";
  std::ostringstream o;
  o << key << " is " << std::hex << got << ", wanted " << want << "; ";
  return o.str();
}

bool root_with_setpcap() {
  return geteuid() == 0 && (status_mask("CapEff") & (1ULL << CAP_SETPCAP)) != 0;
}

constexpr uint64_t bit(int cap) { return 1ULL << cap; }

}  // namespace

BOOST_AUTO_TEST_CASE(parse_names) {
  BOOST_TEST(*caps::parse("CAP_KILL") == CAP_KILL);
  BOOST_TEST(*caps::parse("cap_kill") == CAP_KILL);
  BOOST_TEST(*caps::parse("Cap_Net_Raw") == CAP_NET_RAW);
  BOOST_TEST(*caps::parse("CAP_CHOWN") == CAP_CHOWN);
  BOOST_TEST(*caps::parse("CAP_SYS_ADMIN") == CAP_SYS_ADMIN);
  BOOST_TEST(*caps::parse("CAP_BPF") == 39);
  for (const char* bad : {"CAP_FOO", "KILL", "5", "CAP_KILL2", "CAP_KILL,CAP_CHOWN", "", "CAP_"}) {
    auto r = caps::parse(bad);
    BOOST_TEST(!r, bad);
    if (!r) BOOST_TEST(r.error().what() == std::string("unknown capability \"") + bad + "\"");
  }
}

BOOST_AUTO_TEST_CASE(names_round_trip) {
  BOOST_TEST(caps::name(CAP_KILL) == "CAP_KILL");
  BOOST_TEST(caps::name(CAP_NET_BIND_SERVICE) == "CAP_NET_BIND_SERVICE");
  BOOST_TEST(caps::last_cap() >= CAP_AUDIT_READ);
}

BOOST_AUTO_TEST_CASE(parse_list_names_the_field) {
  auto l = caps::parse_list({"CAP_KILL", "cap_chown", "CAP_KILL"}, "process.capabilities.bounding");
  BOOST_REQUIRE(l);
  BOOST_TEST((*l == std::vector<int>{CAP_KILL, CAP_CHOWN}));
  auto bad = caps::parse_list({"CAP_KILL", "CAP_NOPE"}, "process.capabilities.bounding");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what() == "process.capabilities.bounding: unknown capability \"CAP_NOPE\"");
}

BOOST_AUTO_TEST_CASE(absent_bounding_leaves_the_set) {
  uint64_t before = status_mask("CapBnd");
  BOOST_TEST(caps::apply_bounding(oci::Capabilities{}).has_value());
  BOOST_TEST(status_mask("CapBnd") == before);
}

// Docker's and Podman's `--cap-drop ALL` write "capabilities": {}; with any set named, an absent
// bounding set is empty (runc), never "keep all".
BOOST_AUTO_TEST_CASE(absent_bounding_in_a_present_object_drops_all) {
  if (!root_with_setpcap()) {
    BOOST_TEST_MESSAGE("skipped: needs root with CAP_SETPCAP");
    return;
  }
  expect_ok(in_child([] {
    oci::Capabilities c;
    c.effective = std::vector<std::string>{};
    auto r = caps::apply_bounding(c);
    if (!r) return r.error().what();
    return check_mask("CapBnd", 0);
  }));
}

BOOST_AUTO_TEST_CASE(bounding_drops_what_is_not_listed) {
  if (!root_with_setpcap()) {
    BOOST_TEST_MESSAGE("skipped: needs root with CAP_SETPCAP");
    return;
  }
  expect_ok(in_child([] {
    uint64_t before = status_mask("CapBnd");
    oci::Capabilities c;
    c.bounding.emplace();
    for (int cap = 0; cap <= caps::last_cap(); ++cap)
      if (cap != CAP_NET_RAW) c.bounding->push_back(caps::name(cap));
    auto r = caps::apply_bounding(c);
    if (!r) return r.error().what();
    return check_mask("CapBnd", before & ~bit(CAP_NET_RAW));
  }));
}

BOOST_AUTO_TEST_CASE(bounding_to_a_short_list) {
  if (!root_with_setpcap()) {
    BOOST_TEST_MESSAGE("skipped: needs root with CAP_SETPCAP");
    return;
  }
  expect_ok(in_child([] {
    oci::Capabilities c;
    c.bounding = std::vector<std::string>{"CAP_KILL", "CAP_CHOWN", "CAP_SETPCAP"};
    auto r = caps::apply_bounding(c);
    if (!r) return r.error().what();
    // Applying again needs nothing more (already-dropped caps are skipped).
    c.bounding = std::vector<std::string>{"CAP_KILL", "CAP_CHOWN"};
    r = caps::apply_bounding(c);
    if (!r) return r.error().what();
    return check_mask("CapBnd", bit(CAP_KILL) | bit(CAP_CHOWN));
  }));
}

BOOST_AUTO_TEST_CASE(sets_and_ambient) {
  if (!root_with_setpcap()) {
    BOOST_TEST_MESSAGE("skipped: needs root with CAP_SETPCAP");
    return;
  }
  expect_ok(in_child([] {
    oci::Capabilities c;
    c.effective = std::vector<std::string>{"CAP_KILL", "CAP_NET_BIND_SERVICE"};
    c.permitted = std::vector<std::string>{"CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_CHOWN"};
    c.inheritable = std::vector<std::string>{"CAP_KILL"};
    c.ambient = std::vector<std::string>{"cap_kill"};
    auto r = caps::apply_sets(c);
    if (!r) return r.error().what();
    return check_mask("CapEff", bit(CAP_KILL) | bit(CAP_NET_BIND_SERVICE)) +
           check_mask("CapPrm", bit(CAP_KILL) | bit(CAP_NET_BIND_SERVICE) | bit(CAP_CHOWN)) +
           check_mask("CapInh", bit(CAP_KILL)) + check_mask("CapAmb", bit(CAP_KILL));
  }));
}

BOOST_AUTO_TEST_CASE(absent_sets_are_empty) {
  if (!root_with_setpcap()) {
    BOOST_TEST_MESSAGE("skipped: needs root with CAP_SETPCAP");
    return;
  }
  expect_ok(in_child([] {
    auto r = caps::apply_sets(oci::Capabilities{});
    if (!r) return r.error().what();
    return check_mask("CapEff", 0) + check_mask("CapPrm", 0) + check_mask("CapInh", 0) + check_mask("CapAmb", 0);
  }));
}

// `runc spec` lists CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE as ambient but not inheritable:
// what the kernel allows (permitted AND inheritable) is raised, the rest left out, never refused.
BOOST_AUTO_TEST_CASE(ambient_keeps_only_permitted_and_inheritable) {
  if (!root_with_setpcap()) {
    BOOST_TEST_MESSAGE("skipped: needs root with CAP_SETPCAP");
    return;
  }
  expect_ok(in_child([] {
    oci::Capabilities c;
    c.permitted = std::vector<std::string>{"CAP_KILL", "CAP_CHOWN"};
    c.inheritable = std::vector<std::string>{"CAP_KILL", "CAP_NET_RAW"};
    c.ambient = std::vector<std::string>{"CAP_KILL", "CAP_CHOWN", "CAP_NET_RAW"};
    auto res = caps::apply_sets(c);
    if (!res) return res.error().what();
    return check_mask("CapAmb", bit(CAP_KILL));
  }));
}

BOOST_AUTO_TEST_CASE(ambient_left_out_names_what_the_kernel_drops) {
  oci::Capabilities c;  // exactly the sets `runc spec` (runc 1.1.5) writes
  c.bounding = c.effective = c.permitted =
      std::vector<std::string>{"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"};
  c.ambient = c.bounding;
  auto r = caps::ambient_left_out(c);
  BOOST_REQUIRE(r.has_value());
  BOOST_TEST((*r == std::vector<int>{CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE}));
  c.inheritable = std::vector<std::string>{"cap_kill"};
  BOOST_TEST((*caps::ambient_left_out(c) == std::vector<int>{CAP_AUDIT_WRITE, CAP_NET_BIND_SERVICE}));
}

BOOST_AUTO_TEST_CASE(effective_must_be_permitted) {
  oci::Capabilities c;
  c.effective = std::vector<std::string>{"CAP_KILL"};
  auto r = caps::apply_sets(c);  // refused before any change, safe in the test process
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what() == "process.capabilities.effective: CAP_KILL must also be in permitted");
}

BOOST_AUTO_TEST_CASE(keeps_caps_across_uid_change) {
  if (!root_with_setpcap()) {
    BOOST_TEST_MESSAGE("skipped: needs root with CAP_SETPCAP");
    return;
  }
  // The order the runtime's init uses: bounding, user, then the sets.
  expect_ok(in_child([] {
    oci::Capabilities c;
    c.bounding = std::vector<std::string>{"CAP_KILL", "CAP_NET_BIND_SERVICE"};
    c.effective = c.permitted = c.bounding;
    if (auto r = caps::apply_bounding(c); !r) return r.error().what();
    oci::User u;
    u.uid = 1000;
    u.gid = 1000;
    if (auto r = procattr::apply_user(u, true); !r) return r.error().what();
    if (auto r = caps::apply_sets(c); !r) return r.error().what();
    std::string out = getuid() == 1000 ? "" : "uid not changed; ";
    return out + check_mask("CapEff", bit(CAP_KILL) | bit(CAP_NET_BIND_SERVICE)) +
           check_mask("CapBnd", bit(CAP_KILL) | bit(CAP_NET_BIND_SERVICE));
  }));
}

// Docker's --privileged lists CAP_BPF, CAP_PERFMON, CAP_CHECKPOINT_RESTORE; a runtime whose own
// sets lack them cannot raise them, and create says which (runc fails create too).
BOOST_AUTO_TEST_CASE(first_unraisable_names_the_capability) {
  caps::Held h;
  h.permitted = h.bounding = bit(CAP_KILL) | bit(CAP_CHOWN);
  oci::Capabilities c;
  c.bounding = c.permitted = c.effective = c.inheritable = c.ambient = std::vector<std::string>{};
  c.permitted = std::vector<std::string>{"CAP_KILL", "CAP_CHOWN"};
  c.effective = std::vector<std::string>{"CAP_KILL"};
  BOOST_TEST(caps::first_unraisable(c, h).value().empty());
  c.effective = std::vector<std::string>{"CAP_KILL", "CAP_SYS_ADMIN"};
  auto bad = caps::first_unraisable(c, h).value();
  BOOST_TEST(bad.find("process.capabilities.effective: CAP_SYS_ADMIN") == 0, bad);
  c.effective = std::vector<std::string>{"CAP_KILL"};
  c.permitted = std::vector<std::string>{"CAP_NET_RAW"};
  BOOST_TEST(caps::first_unraisable(c, h).value().find("process.capabilities.permitted: CAP_NET_RAW") == 0);
  // Inheritable: allowed from the bounding set the config's list leaves, not beyond it.
  c.permitted = std::vector<std::string>{"CAP_KILL"};
  c.inheritable = std::vector<std::string>{"CAP_CHOWN"};
  c.bounding = std::vector<std::string>{"CAP_KILL", "CAP_CHOWN"};
  BOOST_TEST(caps::first_unraisable(c, h).value().empty());
  c.bounding = std::vector<std::string>{"CAP_KILL"};
  BOOST_TEST(caps::first_unraisable(c, h).value().find("process.capabilities.inheritable: CAP_CHOWN") == 0);
  h.inheritable = bit(CAP_CHOWN);
  BOOST_TEST(caps::first_unraisable(c, h).value().empty());
}
