#define BOOST_TEST_MODULE features
#include <seccomp.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <initializer_list>

#include "base/json.hpp"
#include "oci/features.hpp"
#include "oci/spec13.hpp"
#include "runtime/lifecycle/features.hpp"
#include "runtime/linux/apparmor.hpp"
#include "runtime/linux/capabilities.hpp"
#include "runtime/linux/namespaces.hpp"
#include "runtime/linux/rootfs.hpp"
#include "runtime/linux/seccomp.hpp"
#include "runtime/linux/host_facts.hpp"

using namespace sh;

namespace {

json::Document parse(const std::string& text) {
  auto d = json::Document::parse(text, "features");
  BOOST_REQUIRE_MESSAGE(d, (d ? "" : d.error().what()));
  return std::move(*d);
}

// The node at a path of keys; fails the test when one is missing.
json::Value at(const json::Value& root, std::initializer_list<const char*> keys) {
  json::Value v = root;
  for (const char* k : keys) {
    auto next = v.get(k);
    BOOST_REQUIRE_MESSAGE(next, v.path() + " has no " + k);
    v = *next;
  }
  return v;
}

std::string str(const json::Value& root, std::initializer_list<const char*> keys) {
  auto s = at(root, keys).as_string();
  BOOST_REQUIRE(s);
  return *s;
}

bool boolean(const json::Value& root, std::initializer_list<const char*> keys) {
  auto b = at(root, keys).as_bool();
  BOOST_REQUIRE(b);
  return *b;
}

std::vector<std::string> strings(const json::Value& root, std::initializer_list<const char*> keys) {
  std::vector<std::string> out;
  auto r = at(root, keys).each_item([&](size_t, const json::Value& v) -> Result<void> {
    out.push_back(TRY(v.as_string()));
    return {};
  });
  BOOST_REQUIRE(r);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::ranges::find(v, s) != v.end(); }

}  // namespace

BOOST_AUTO_TEST_CASE(document_fields_and_names) {
  oci::Features f;
  f.hooks = {"prestart", "poststop"};
  f.mount_options = {"ro", "rbind"};
  f.linux.namespaces = {"pid"};
  f.linux.capabilities = {"CAP_KILL"};
  f.linux.cgroup.v2 = true;
  f.linux.cgroup.systemd_user = true;
  f.linux.seccomp.enabled = true;
  f.linux.seccomp.actions = {"SCMP_ACT_ALLOW"};
  f.linux.seccomp.known_flags = {"SECCOMP_FILTER_FLAG_LOG"};
  f.linux.idmap_mounts = true;
  f.annotations["a.b"] = "c";
  f.unsafe_annotations = {"org.sharness.policy"};
  auto doc = parse(oci::features_json(f));
  auto r = doc.root();
  BOOST_TEST(str(r, {"ociVersionMin"}) == "1.0.0");
  BOOST_TEST(str(r, {"ociVersionMax"}) == "1.3.0");
  BOOST_TEST(strings(r, {"hooks"}) == f.hooks);
  BOOST_TEST(strings(r, {"mountOptions"}) == f.mount_options);
  BOOST_TEST(strings(r, {"linux", "namespaces"}) == f.linux.namespaces);
  BOOST_TEST(strings(r, {"linux", "capabilities"}) == f.linux.capabilities);
  BOOST_TEST(!boolean(r, {"linux", "cgroup", "v1"}));
  BOOST_TEST(boolean(r, {"linux", "cgroup", "v2"}));
  BOOST_TEST(boolean(r, {"linux", "cgroup", "systemdUser"}));
  BOOST_TEST(!boolean(r, {"linux", "cgroup", "rdma"}));
  BOOST_TEST(boolean(r, {"linux", "seccomp", "enabled"}));
  BOOST_TEST(strings(r, {"linux", "seccomp", "actions"}) == f.linux.seccomp.actions);
  BOOST_TEST(strings(r, {"linux", "seccomp", "knownFlags"}) == f.linux.seccomp.known_flags);
  BOOST_TEST(strings(r, {"linux", "seccomp", "supportedFlags"}).empty());
  BOOST_TEST(!boolean(r, {"linux", "apparmor", "enabled"}));
  BOOST_TEST(!boolean(r, {"linux", "selinux", "enabled"}));
  BOOST_TEST(!boolean(r, {"linux", "intelRdt", "enabled"}));
  BOOST_TEST(boolean(r, {"linux", "mountExtensions", "idmap", "enabled"}));
  BOOST_TEST(!boolean(r, {"linux", "netDevices", "enabled"}));
  BOOST_TEST(str(r, {"annotations", "a.b"}) == "c");
  BOOST_TEST(strings(r, {"potentiallyUnsafeConfigAnnotations"}) == f.unsafe_annotations);
}

BOOST_AUTO_TEST_CASE(seccomp_lists_only_when_enabled) {
  oci::Features f;
  f.linux.seccomp.actions = {"SCMP_ACT_ALLOW"};
  auto doc = parse(oci::features_json(f));
  auto sc = at(doc.root(), {"linux", "seccomp"});
  BOOST_TEST(!boolean(doc.root(), {"linux", "seccomp", "enabled"}));
  BOOST_TEST(!sc.get("actions"));
}

BOOST_AUTO_TEST_CASE(host_document_is_truthful) {
  oci::Features f = lifecycle::host_features(host::probe(host::Depth::features));
  auto doc = parse(oci::features_json(f));
  auto r = doc.root();
  BOOST_TEST(str(r, {"ociVersionMin"}) == "1.0.0");
  BOOST_TEST(str(r, {"ociVersionMax"}) == "1.3.0");
  auto hooks = strings(r, {"hooks"});
  BOOST_TEST(hooks.size() == 6u);
  for (const char* h : {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"})
    BOOST_TEST(has(hooks, h), h);

  // Every mount option listed is one our parser takes as an option, not as fs data.
  auto opts = strings(r, {"mountOptions"});
  for (const auto& o : opts) {
    auto mf = rootfs::parse_mount_options({o});
    BOOST_TEST(mf.data.empty(), o);
  }
  for (const char* o : {"ro", "rw", "rbind", "bind", "rro", "rprivate", "nosuid", "idmap", "ridmap"})
    BOOST_TEST(has(opts, o), o);
  BOOST_TEST(has(opts, "tmpcopyup"));  // tmpfs mounts copy the covered directory in (as runc)
  BOOST_TEST(!has(opts, "acl"));        // not ours: it would go to the filesystem as data

  auto nss = strings(r, {"linux", "namespaces"});
  BOOST_TEST(!nss.empty());
  for (const auto& n : nss) BOOST_TEST(ns::clone_flag(n) != 0, n);
  BOOST_TEST(has(nss, "mount"));

  auto caps_listed = strings(r, {"linux", "capabilities"});
  BOOST_TEST(int(caps_listed.size()) <= caps::last_cap() + 1);
  BOOST_TEST(has(caps_listed, "CAP_SYS_ADMIN"));
  for (size_t i = 0; i < caps_listed.size(); ++i) {
    auto c = caps::parse(caps_listed[i]);
    BOOST_TEST(bool(c), caps_listed[i]);
  }

  BOOST_TEST(boolean(r, {"linux", "cgroup", "v1"}));
  BOOST_TEST(boolean(r, {"linux", "cgroup", "v2"}));
  // The driver is built in (sharness-systemd); whether a host runs systemd is create's question.
  BOOST_TEST(boolean(r, {"linux", "cgroup", "systemd"}));
  BOOST_TEST(boolean(r, {"linux", "cgroup", "systemdUser"}));
  BOOST_TEST(!boolean(r, {"linux", "cgroup", "rdma"}));

  if (boolean(r, {"linux", "seccomp", "enabled"})) {
    for (const auto& a : strings(r, {"linux", "seccomp", "actions"}))
      BOOST_TEST(bool(seccomp::parse_action(a, std::nullopt)), a);
    auto ops = strings(r, {"linux", "seccomp", "operators"});
    BOOST_TEST(ops.size() == 7u);
    for (const auto& o : ops) BOOST_TEST(bool(seccomp::parse_op(o)), o);
    auto archs = strings(r, {"linux", "seccomp", "archs"});
    for (const auto& a : archs) BOOST_TEST(bool(seccomp::parse_arch(a)), a);
#ifdef __x86_64__
    BOOST_TEST(has(archs, "SCMP_ARCH_X86_64"));
#endif
    auto known = strings(r, {"linux", "seccomp", "knownFlags"});
    for (const auto& s : strings(r, {"linux", "seccomp", "supportedFlags"})) BOOST_TEST(has(known, s), s);
  }
  // AppArmor only where the launch plan applies it (the kernel answers for it); SELinux never
  // (its labels are refused).
  BOOST_TEST(boolean(r, {"linux", "apparmor", "enabled"}) == apparmor::kernel_answers());
  BOOST_TEST(!boolean(r, {"linux", "selinux", "enabled"}));
  // linux.intelRdt is refused, resctrl or not: every part says so.
  for (const char* k : {"enabled", "schemata", "monitoring"}) BOOST_TEST(!boolean(r, {"linux", "intelRdt", k}), k);
  (void)boolean(r, {"linux", "mountExtensions", "idmap", "enabled"});  // present; its truth is a conformance case
  BOOST_TEST(boolean(r, {"linux", "netDevices", "enabled"}));
  // Each mode and flag listed is one validation accepts (and set_mempolicy gets its number).
  auto modes = strings(r, {"linux", "memoryPolicy", "modes"});
  BOOST_TEST(modes.size() == 7u);
  for (const auto& m : modes) BOOST_TEST(oci::memory_policy_mode(m).has_value(), m);
  for (const char* m : {"MPOL_DEFAULT", "MPOL_BIND", "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE", "MPOL_PREFERRED",
                        "MPOL_PREFERRED_MANY", "MPOL_LOCAL"})
    BOOST_TEST(has(modes, m), m);
  auto flags = strings(r, {"linux", "memoryPolicy", "flags"});
  for (const char* f : {"MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES"}) BOOST_TEST(has(flags, f), f);

  const struct scmp_version* v = seccomp_version();
  std::string want = std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->micro);
  BOOST_TEST(str(r, {"annotations", "io.github.seccomp.libseccomp.version"}) == want);
  BOOST_TEST(str(r, {"annotations", "org.opencontainers.runc.checkpoint.enabled"}) == "true");
  BOOST_TEST(has(strings(r, {"potentiallyUnsafeConfigAnnotations"}), "org.sharness.policy"));
}
