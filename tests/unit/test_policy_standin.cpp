// Landlock stand-ins (spec-mapping/landlock_standin): for every ABI 0..7, which rights of a
// policy's block the kernel lacks, which other bound of the policy covers each, and what
// `policy explain` and the bounds create checks make of it; over harsh and over harsh with
// each covering bound taken away. The runtime's side (negotiate drops a stood-in right even
// with disableBestEffort) and the extension's round trip are here too.
#define BOOST_TEST_MODULE policy_standin
#include <boost/test/unit_test.hpp>

#include <functional>
#include <string>

#include "base/json.hpp"
#include "runtime/linux/landlock.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/extension.hpp"
#include "spec-mapping/landlock_map.hpp"
#include "spec-mapping/landlock_standin.hpp"

using namespace sh;
using namespace sh::policy;
using oci::LandlockKind;

namespace {

std::string repo() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/unit/"));
}

Policy harsh() {
  auto p = load_policy(repo() + "/policies/harsh.json");
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

// harsh's JSON with one edit, parsed again (so the policy is what a file would give).
Policy harsh_with(const std::function<void(Policy&)>& edit) {
  Policy p = harsh();
  edit(p);
  auto again = parse_policy(policy_to_json(p, false));
  BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().what()));
  return *again;
}

HostProbe host_at(int abi) {
  HostProbe h;
  h.memory_cgroup = h.cpu_cgroup = h.pids_cgroup = h.devices_cgroup = true;
  h.seccomp = h.no_new_privs = h.pidfd = true;
  h.namespaces = {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"};
  h.landlock_abi = abi;
  h.memfd_noexec = true;
  return h;
}

std::string text(const std::vector<Bound>& bounds) {
  std::string t;
  for (const auto& b : bounds) t += format_bound(b) + "\n";
  return t;
}

// "signal:the pid namespace" for each shortfall ("signal:-" without a stand-in).
std::string shortfall_of(const Policy& p, int abi) {
  std::string s;
  for (const auto& g : landlock_shortfall(p, abi))
    s += (s.empty() ? "" : " ") + g.right + ":" + (g.stood_in ? g.stood_in->by : "-");
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(harsh_over_every_abi) {
  Policy p = harsh();
  const std::string scopes = "abstract_unix_socket:the network namespace signal:the pid namespace";
  const std::string ioctl = "ioctl_dev:the devices cgroup";
  const std::string net = "bind_tcp:the empty network namespace connect_tcp:the empty network namespace";
  const std::string trunc = "truncate:the read-only root and binds";
  BOOST_TEST(shortfall_of(p, 7) == "");
  BOOST_TEST(shortfall_of(p, 6) == "");
  BOOST_TEST(shortfall_of(p, 5) == scopes);
  BOOST_TEST(shortfall_of(p, 4) == ioctl + " " + scopes);
  BOOST_TEST(shortfall_of(p, 3) == ioctl + " " + net + " " + scopes);
  BOOST_TEST(shortfall_of(p, 2) == trunc + " " + ioctl + " " + net + " " + scopes);
  BOOST_TEST(shortfall_of(p, 1) == "refer:- " + trunc + " " + ioctl + " " + net + " " + scopes);
  for (int abi = 0; abi <= 7; ++abi) {
    auto bounds = explain(p, host_at(abi));
    auto r = require_available(bounds, false);
    BOOST_TEST(r.has_value() == (abi >= 2), "ABI " << abi << ": " << (r ? "runs" : r.error().what()));
    std::string t = text(bounds);
    // One "stood in for" line per covered right, none on a kernel that has them all.
    size_t lines = 0;
    for (size_t at = 0; (at = t.find(": stood in for by ", at)) != std::string::npos; ++at) ++lines;
    size_t want = 0;
    for (const auto& g : landlock_shortfall(p, abi)) want += g.stood_in ? 1 : 0;
    BOOST_TEST(lines == want, "ABI " << abi << ":\n" << t);
    if (abi >= 6) BOOST_TEST(t.find("stood in") == std::string::npos, t);
  }
  // What the refusal says: the right, the ABI and the Linux release that brought it, this kernel.
  auto r1 = require_available(explain(p, host_at(1)), false);
  BOOST_REQUIRE(!r1);
  BOOST_TEST(r1.error().what().find("landlock fs right refer needs Landlock ABI 2 (Linux 5.19); this kernel has ABI 1: "
                                    "NOT enforced") != std::string::npos,
             r1.error().what());
  auto r0 = require_available(explain(p, host_at(0)), false);
  BOOST_REQUIRE(!r0);
  BOOST_TEST(r0.error().what().find("this kernel has no Landlock") != std::string::npos, r0.error().what());
  // The explain line for a stand-in says why it holds and what would enforce the right itself.
  std::string t2 = text(explain(p, host_at(2)));
  BOOST_TEST(t2.find("[ok]      landlock scope signal (ABI 6): stood in for by the pid namespace: Boundary") !=
                 std::string::npos, t2);
  BOOST_TEST(t2.find("needs Landlock ABI 6 (Linux 6.12); this kernel has ABI 2 to enforce it itself") != std::string::npos,
             t2);
  BOOST_TEST(t2.find("kernel Landlock ABI 2 lacks truncate, ioctl_dev: stood in for (below)") != std::string::npos, t2);
}

// Take each covering bound away: the right it covered is missing again, and harsh (bestEffort
// false) is refused on a kernel that lacks it, naming the right and the kernel; with
// bestEffort true it runs and says what is left out.
BOOST_AUTO_TEST_CASE(each_stand_in_needs_its_bound) {
  struct Case {
    const char* what;
    std::function<void(Policy&)> edit;
    int abi;           // a kernel that lacks the right
    const char* right;  // what is then missing
    const char* error;
  };
  const Case cases[] = {
      {"network loopback", [](Policy& p) { p.network = Network::loopback; }, 3, "bind_tcp",
       "landlock net right bind_tcp needs Landlock ABI 4 (Linux 6.7); this kernel has ABI 3"},
      {"network host", [](Policy& p) { p.network = Network::host; }, 5, "abstract_unix_socket",
       "landlock scope abstract_unix_socket needs Landlock ABI 6 (Linux 6.12); this kernel has ABI 5"},
      {"no pid namespace, no exec",
       [](Policy& p) {
         std::erase(p.namespaces, "pid");
         p.exec.reset();
       },
       5, "signal", "landlock scope signal needs Landlock ABI 6 (Linux 6.12); this kernel has ABI 5"},
      {"a writable root", [](Policy& p) { p.mounts.readonly_root = false; p.exec.reset(); }, 2, "truncate",
       "landlock fs right truncate needs Landlock ABI 3 (Linux 6.2); this kernel has ABI 2"},
      {"writable binds", [](Policy& p) { p.mounts.binds_readonly = false; }, 2, "truncate",
       "landlock fs right truncate needs Landlock ABI 3 (Linux 6.2); this kernel has ABI 2"},
      {"a fixed uid", [](Policy& p) { p.identity.uid = Uid{false, 1000}; }, 2, "truncate",
       "landlock fs right truncate needs Landlock ABI 3 (Linux 6.2); this kernel has ABI 2"},
      {"a tty device", [](Policy& p) { p.devices->push_back("tty"); }, 4, "ioctl_dev",
       "landlock fs right ioctl_dev needs Landlock ABI 5 (Linux 6.10); this kernel has ABI 4"},
      {"no devices section", [](Policy& p) { p.devices.reset(); }, 4, "ioctl_dev",
       "landlock fs right ioctl_dev needs Landlock ABI 5 (Linux 6.10); this kernel has ABI 4"},
      {"a capability kept", [](Policy& p) { p.identity.capabilities = std::vector<std::string>{"CAP_KILL"}; }, 4,
       "ioctl_dev", "landlock fs right ioctl_dev needs Landlock ABI 5 (Linux 6.10); this kernel has ABI 4"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      Policy p = harsh_with(c.edit);
      bool found = false;
      for (const auto& g : landlock_shortfall(p, c.abi))
        if (g.right == c.right) {
          found = true;
          BOOST_TEST(!g.stood_in.has_value());
        }
      BOOST_TEST(found);
      auto r = require_available(explain(p, host_at(c.abi)), false);
      BOOST_REQUIRE(!r);
      BOOST_TEST(r.error().what().find(c.error) != std::string::npos, r.error().what());
      // Control: the kernel that has the right runs the same policy.
      auto ok = require_available(explain(p, host_at(7)), false);
      BOOST_TEST(ok.has_value(), (ok ? "" : ok.error().what()));
      // bestEffort true: runs, and the line says what is not enforced.
      Policy lax = harsh_with([&](Policy& q) {
        c.edit(q);
        q.best_effort = true;
      });
      auto bounds = explain(lax, host_at(c.abi));
      BOOST_TEST(require_available(bounds, true).has_value());
      std::string t = text(bounds);
      size_t at = t.find(c.error);
      BOOST_TEST(at != std::string::npos, t);
      if (at != std::string::npos) {
        std::string line = t.substr(t.rfind('\n', at) + 1, t.find('\n', at) - t.rfind('\n', at) - 1);
        BOOST_TEST(line.starts_with("[MISSING]"), line);
        BOOST_TEST(line.ends_with(": NOT enforced)"), line);
      }
    }
  }
}

// A stand-in counts only where the host has the bound itself.
BOOST_AUTO_TEST_CASE(stand_in_needs_the_host_to_have_the_bound) {
  Policy p = harsh();
  HostProbe h = host_at(5);
  h.namespaces.erase("pid");
  std::string t = text(explain(p, h));
  BOOST_TEST(t.find("stood in for by the pid namespace") == std::string::npos, t);
  BOOST_TEST(t.find("landlock scope signal needs Landlock ABI 6 (Linux 6.12); this kernel has ABI 5") != std::string::npos,
             t);
  HostProbe d = host_at(4);
  d.devices_cgroup = false;
  BOOST_TEST(text(explain(p, d)).find("stood in for by the devices cgroup") == std::string::npos);
}

// vm.memfd_noexec (Linux 6.3): where the kernel lacks it and harsh's allowlist has no
// memfd_create, seccomp holds it alone and the sysctl is left out of the config.
BOOST_AUTO_TEST_CASE(memfd_noexec_stood_in_for_by_seccomp) {
  Policy p = harsh();
  HostProbe h = host_at(2);
  h.memfd_noexec = false;
  auto bounds = explain(p, h);
  std::string t = text(bounds);
  BOOST_TEST(t.find("[ok]      no memfd execution: seccomp denies memfd_create()") != std::string::npos, t);
  BOOST_TEST(require_available(bounds, false).has_value());
  oci::Config c;
  Extension ext;
  BOOST_REQUIRE(apply_to_config(p, c, ext, h));
  BOOST_TEST(!c.linux.sysctl.contains("vm.memfd_noexec"));
  oci::Config c7;
  BOOST_REQUIRE(apply_to_config(p, c7, ext, host_at(7)));
  BOOST_TEST(c7.linux.sysctl.at("vm.memfd_noexec") == "2");
  // An allowlist with memfd_create: nothing stands in, refused.
  Policy open = harsh_with([](Policy& q) { q.syscalls->allow.push_back("memfd_create"); });
  auto r = require_available(explain(open, h), false);
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().what().find("no vm.memfd_noexec to set (Linux 6.3+; only the host's root may write it)") != std::string::npos);
}

// The block carries its stand-ins; the kernel's negotiation drops them without refusing even
// with disableBestEffort, and refuses a right without one.
BOOST_AUTO_TEST_CASE(negotiate_drops_only_stood_in_rights) {
  auto block = landlock_block(harsh());
  BOOST_REQUIRE(block);
  BOOST_TEST(block->disable_best_effort);
  BOOST_TEST(block->stand_ins.size() == 6u);
  auto n = landlock::negotiate(*block, 2);
  BOOST_REQUIRE_MESSAGE(n, (n ? "" : n.error().what()));
  BOOST_TEST(n->dropped.empty());
  BOOST_TEST(n->stood_in.size() == 6u);
  std::string d = landlock::describe(*n);
  BOOST_TEST(d.find("stood in for (kernel lacks): truncate (ABI 3) by the read-only root and binds, ioctl_dev (ABI 5) "
                    "by the devices cgroup") != std::string::npos, d);
  BOOST_TEST(d.find("signal (ABI 6) by the pid namespace") != std::string::npos, d);
  BOOST_TEST(d.find("NOT enforced") == std::string::npos, d);
  auto r1 = landlock::negotiate(*block, 1);  // refer: no stand-in
  BOOST_REQUIRE(!r1);
  BOOST_TEST(r1.error().what() == "landlock: right \"refer\" needs ABI 2, kernel has 1");
  auto r7 = landlock::negotiate(*block, 7);
  BOOST_REQUIRE(r7);
  BOOST_TEST(r7->stood_in.empty());
  // Without stand-ins (a config's own process.landlock never has them) ABI 2 refuses.
  oci::LandlockConfig bare = *block;
  bare.stand_ins.clear();
  BOOST_TEST(!landlock::negotiate(bare, 2));
}

// The stand-ins ride in the "sharness" block to init and back, and a bad one is refused.
BOOST_AUTO_TEST_CASE(extension_round_trip) {
  oci::Config c;
  Extension ext;
  BOOST_REQUIRE(apply_to_config(harsh(), c, ext, host_at(7)));
  std::string json = extension_to_json(ext);
  BOOST_TEST(json.find("\"landlockStandIns\"") != std::string::npos);
  auto doc = json::Document::parse(json, "sharness");
  BOOST_REQUIRE(doc);
  auto back = parse_extension(doc->root());
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST((back->landlock->stand_ins == ext.landlock->stand_ins));
  std::string bad = json;
  const std::string good = "\"right\":\"signal\"";
  BOOST_REQUIRE(bad.find(good) != std::string::npos);
  bad.replace(bad.find(good), good.size(), "\"right\":\"signul\"");
  auto bdoc = json::Document::parse(bad, "sharness");
  BOOST_REQUIRE(bdoc);
  auto refused = parse_extension(bdoc->root());
  BOOST_REQUIRE(!refused);
  BOOST_TEST(refused.error().what().find("unknown scope \"signul\"") != std::string::npos, refused.error().what());
}
