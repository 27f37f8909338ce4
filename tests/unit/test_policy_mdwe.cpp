// memory.denyWriteExecute (docs/policy.md): parsed, written back, kept by composition, carried in
// the sharness block, explained; and the kernel's side for real, in a forked child: after
// procattr::deny_write_execute an executable anonymous mapping and an mprotect that adds execute
// are refused (EACCES), where the same calls succeed without it.
#define BOOST_TEST_MODULE policy_mdwe
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>

#include <cerrno>

#include "runtime/linux/host_facts.hpp"
#include "runtime/linux/process_attrs.hpp"
#include "spec-mapping/compose.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/extension.hpp"
#include "tests/unit/fork_child.hpp"

using namespace sh;
using namespace sh::policy;

namespace {
Policy parsed(const std::string& text) {
  auto p = parse_policy(text);
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}
const char* kOn = R"({"id": "a", "version": 1, "memory": {"limit": "64MiB", "denyWriteExecute": true}})";
const char* kOff = R"({"id": "b", "version": 1, "memory": {"limit": "32MiB"}})";

// What a process gets from mmap(RWX) and from mprotect(RW -> RX), as "mmap=E mprotect=E" (0: allowed).
std::string try_exec_memory() {
  int mm = 0, mp = 0;
  void* a = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) mm = errno;
  void* b = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b != MAP_FAILED && ::mprotect(b, 4096, PROT_READ | PROT_EXEC) < 0) mp = errno;
  return "mmap=" + std::to_string(mm) + " mprotect=" + std::to_string(mp);
}
}  // namespace

BOOST_AUTO_TEST_CASE(parsed_written_and_rejected_when_not_a_bool) {
  Policy p = parsed(kOn);
  BOOST_TEST(p.memory->deny_write_execute);
  BOOST_TEST(policy_to_json(p).find("\"denyWriteExecute\":true") != std::string::npos);
  BOOST_TEST(!parsed(kOff).memory->deny_write_execute);
  auto bad = parse_policy(R"({"id": "c", "version": 1, "memory": {"denyWriteExecute": "yes"}})");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().what().find("memory.denyWriteExecute") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(composition_keeps_it_on) {
  Grants g;
  BOOST_TEST(intersect(parsed(kOn), parsed(kOff), g).memory->deny_write_execute);
  BOOST_TEST(intersect(parsed(kOff), parsed(kOn), g).memory->deny_write_execute);
  BOOST_TEST(!intersect(parsed(kOff), parsed(kOff), g).memory->deny_write_execute);
}

BOOST_AUTO_TEST_CASE(carried_in_the_sharness_block_and_explained) {
  Extension e;
  e.policy_id = "a";
  e.policy_hash = std::string(64, '0');
  e.deny_write_execute = true;
  auto doc = json::Document::parse(extension_to_json(e), "sharness");
  BOOST_REQUIRE(doc);
  auto back = parse_extension(doc->root());
  BOOST_REQUIRE_MESSAGE(back, (back ? "" : back.error().what()));
  BOOST_TEST(back->deny_write_execute);
  HostProbe host = host::probe();
  bool named = false;
  for (const auto& b : explain(parsed(kOn), host))
    if (b.mechanism.starts_with("memory-deny-write-execute")) named = b.available == host.mdwe;
  BOOST_TEST(named);
}

BOOST_AUTO_TEST_CASE(the_kernel_refuses_executable_memory_after_it) {
  if (!host::probe().mdwe) {
    BOOST_TEST_MESSAGE("no PR_SET_MDWE on this kernel (Linux 6.3+): the kernel half is not tested here");
    return;
  }
  auto control = test::in_child([] { return try_exec_memory() == "mmap=0 mprotect=0" ? "" : try_exec_memory(); });
  BOOST_TEST(control.report == "");
  auto held = test::in_child([] {
    auto r = procattr::deny_write_execute();
    if (!r) return r.error().what();
    std::string got = try_exec_memory();
    return got == "mmap=" + std::to_string(EACCES) + " mprotect=" + std::to_string(EACCES) ? std::string() : got;
  });
  BOOST_TEST(held.report == "");
}
