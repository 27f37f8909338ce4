#define BOOST_TEST_MODULE checkpoint_image
#include <boost/test/unit_test.hpp>

#include "runtime/lifecycle/checkpoint_image.hpp"

using namespace sh;
using namespace sh::lifecycle;

namespace {

// A sidecar the policy asks for when it has a mesh (as the edges' does).
bool wants_mesh(const policy::Extension& e) { return e.mesh.has_value(); }
const Sidecar kEdges{.name = "edges", .wanted = wants_mesh, .needs_root = "", .provision = nullptr,
                     .unprovision = nullptr, .annotate_state = nullptr, .show = {}};
const Sidecar* const kList[] = {&kEdges};

oci::Config with_process() {
  oci::Config c;
  c.process.emplace();
  return c;
}

policy::Extension policy_named(std::string id) {
  policy::Extension e;
  e.policy_id = std::move(id);
  e.policy_hash = "abc";
  return e;
}

}  // namespace

BOOST_AUTO_TEST_CASE(image_record_round_trips) {
  ImageRecord r;
  r.id = "c1";
  r.policy_id = "ckpt";
  r.policy_hash = "0123";
  r.ephemeral_uid = 2000000042;
  r.wall_clock_spent_ms = 1500;
  r.stdio = {"pipe:[1]", "pipe:[2]", "pipe:[2]"};
  r.cgroup_binds = {{"/sys/fs/cgroup/memory", "memory"}, {"/sys/fs/cgroup/systemd", "name=systemd"}};
  auto back = image_record_from_json(image_record_to_json(r), "sharness.json");
  BOOST_REQUIRE(back);
  BOOST_TEST(back->id == "c1");
  BOOST_TEST(back->policy_id == "ckpt");
  BOOST_TEST(back->policy_hash == "0123");
  BOOST_TEST(back->ephemeral_uid == 2000000042u);
  BOOST_TEST(back->wall_clock_spent_ms == 1500u);
  BOOST_TEST(back->stdio == r.stdio);
  BOOST_TEST((back->cgroup_binds == r.cgroup_binds));
}

BOOST_AUTO_TEST_CASE(image_record_refuses_bad_input) {
  BOOST_TEST(!image_record_from_json("{\"ephemeralUid\": 4294967296}", "x"));
  BOOST_TEST(!image_record_from_json("{\"policyId\": \"p\"}", "x"));  // an id without its hash
  BOOST_TEST(!image_record_from_json("[]", "x"));
  BOOST_TEST(!image_record_from_json("{\"cgroupBinds\": {\"/a\": 1}}", "x"));
  auto none = image_record_from_json("{}", "x");  // an image without a policy: all defaults
  BOOST_REQUIRE(none);
  BOOST_TEST(none->policy_id.empty());
  BOOST_TEST(none->ephemeral_uid == 0u);
}

BOOST_AUTO_TEST_CASE(landlock_and_sidecars_are_not_carried) {
  oci::Config plain = with_process();
  BOOST_TEST(uncarried_bound(plain, nullptr, kList).empty());
  policy::Extension e = policy_named("ckpt");
  BOOST_TEST(uncarried_bound(plain, &e, kList).empty());  // seccomp, caps, uid, limits: carried

  oci::Config ll = with_process();
  ll.process->landlock_json = "{}";
  BOOST_TEST(uncarried_bound(ll, nullptr, kList).find("Landlock domain (config.json process.landlock)") !=
             std::string::npos);

  policy::Extension files = policy_named("harsh");
  files.landlock.emplace();
  BOOST_TEST(uncarried_bound(plain, &files, kList).find("policy harsh: its Landlock layer") != std::string::npos);

  policy::Extension pins = policy_named("harsh");
  pins.exec.emplace();
  BOOST_TEST(uncarried_bound(plain, &pins, kList).find("policy harsh: the exec allowlist") != std::string::npos);

  policy::Extension mesh = policy_named("app");
  mesh.mesh.emplace();
  BOOST_TEST(uncarried_bound(plain, &mesh, kList).find("policy app: its edges sidecar") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(restore_needs_the_checkpoints_policy) {
  ImageRecord none, ckpt;
  ckpt.policy_id = "ckpt";
  ckpt.policy_hash = "abc";
  policy::Extension same = policy_named("ckpt"), other = policy_named("harsh");
  policy::Extension rehashed = policy_named("ckpt");
  rehashed.policy_hash = "def";
  BOOST_TEST(same_policy(none, nullptr).has_value());
  BOOST_TEST(same_policy(ckpt, &same).has_value());
  BOOST_TEST(!same_policy(ckpt, nullptr).has_value());
  BOOST_TEST(!same_policy(ckpt, &other).has_value());
  BOOST_TEST(!same_policy(ckpt, &rehashed).has_value());  // same name, another policy
  BOOST_TEST(!same_policy(none, &same).has_value());
  BOOST_TEST(same_policy(ckpt, nullptr).error().what().find("taken under policy ckpt (sha256 abc)") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(external_binds_are_the_configs_bind_mounts) {
  oci::Config c;
  auto mount = [&](std::string dest, std::string type, std::string src, std::vector<std::string> opts) {
    oci::Mount m;
    m.destination = std::move(dest), m.type = std::move(type), m.source = std::move(src), m.options = std::move(opts);
    c.mounts.push_back(std::move(m));
  };
  mount("/proc", "proc", "proc", {});
  mount("/data", "bind", "/srv/data", {});
  mount("/etc/hosts", "", "hosts", {"rbind", "ro"});
  auto b = external_binds(c, "/bundle");
  BOOST_REQUIRE(b.size() == 2u);
  BOOST_TEST(b[0].first == "/data");
  BOOST_TEST(b[0].second == "/srv/data");
  BOOST_TEST(b[1].first == "/etc/hosts");
  BOOST_TEST(b[1].second == "/bundle/hosts");
}
