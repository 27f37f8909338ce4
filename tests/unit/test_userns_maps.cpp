// How a new user namespace's maps are written (ns::plan_id_maps): directly by a privileged
// caller; unprivileged, only the caller's own id with size 1 is written directly (the gid after
// setgroups "deny"), anything else goes through newuidmap/newgidmap. And the rootless default of
// --root.
#define BOOST_TEST_MODULE userns_maps
#include <boost/test/unit_test.hpp>
#include <unistd.h>

#include <cstdlib>

#include "runtime/lifecycle/state_store.hpp"
#include "runtime/linux/namespaces.hpp"

using sh::oci::IdMapping;
using Maps = std::vector<IdMapping>;

BOOST_AUTO_TEST_CASE(privileged_writes_everything_directly) {
  auto p = sh::ns::plan_id_maps({{0, 100000, 65536}}, {{0, 100000, 65536}}, true, 0, 0);
  BOOST_TEST(!p.uid_tool);
  BOOST_TEST(!p.gid_tool);
  BOOST_TEST(!p.deny_setgroups);  // root keeps setgroups (additionalGids work)
}

BOOST_AUTO_TEST_CASE(unprivileged_single_own_id_is_direct_with_setgroups_denied) {
  auto p = sh::ns::plan_id_maps({{0, 1000, 1}}, {{0, 1000, 1}}, false, 1000, 1000);
  BOOST_TEST(!p.uid_tool);
  BOOST_TEST(!p.gid_tool);
  BOOST_TEST(p.deny_setgroups);
  // the container side may be any id: only the host side is checked by the kernel
  p = sh::ns::plan_id_maps({{1000, 1000, 1}}, {{5, 1000, 1}}, false, 1000, 1000);
  BOOST_TEST(!p.uid_tool);
  BOOST_TEST(!p.gid_tool);
}

BOOST_AUTO_TEST_CASE(unprivileged_anything_else_goes_through_the_tools) {
  Maps multi = {{0, 1000, 1}, {1, 100000, 65536}};
  auto p = sh::ns::plan_id_maps(multi, multi, false, 1000, 1000);
  BOOST_TEST(p.uid_tool);
  BOOST_TEST(p.gid_tool);
  BOOST_TEST(!p.deny_setgroups);  // newgidmap decides
  // someone else's id, or our own with a size above 1
  BOOST_TEST(sh::ns::plan_id_maps({{0, 1001, 1}}, {{0, 1000, 1}}, false, 1000, 1000).uid_tool);
  p = sh::ns::plan_id_maps({{0, 1000, 1}}, {{0, 1000, 2}}, false, 1000, 1000);
  BOOST_TEST(!p.uid_tool);
  BOOST_TEST(p.gid_tool);
  BOOST_TEST(!p.deny_setgroups);
  // the uid is checked against the euid and the gid against the egid
  p = sh::ns::plan_id_maps({{0, 1000, 1}}, {{0, 1000, 1}}, false, 1000, 2000);
  BOOST_TEST(!p.uid_tool);
  BOOST_TEST(p.gid_tool);
}

BOOST_AUTO_TEST_CASE(tool_arguments) {
  auto a = sh::ns::map_tool_args(42, {{0, 1000, 1}, {1, 100000, 65536}});
  BOOST_TEST((a == std::vector<std::string>{"42", "0", "1000", "1", "1", "100000", "65536"}));
}

BOOST_AUTO_TEST_CASE(default_state_root) {
  const char* saved = std::getenv("XDG_RUNTIME_DIR");
  std::string old = saved ? saved : "";
  ::setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
  std::string want = ::geteuid() == 0 ? "/run/sharness" : "/run/user/1000/sharness";
  BOOST_TEST(sh::lifecycle::default_state_root() == want);
  ::setenv("XDG_RUNTIME_DIR", "relative", 1);  // not an absolute path: ignored
  BOOST_TEST(sh::lifecycle::default_state_root() == "/run/sharness");
  ::unsetenv("XDG_RUNTIME_DIR");
  BOOST_TEST(sh::lifecycle::default_state_root() == "/run/sharness");
  if (saved) ::setenv("XDG_RUNTIME_DIR", old.c_str(), 1);
}
