#include "runtime/linux/numa_affinity.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <vector>

#include "oci/id_list.hpp"
#include "oci/spec13.hpp"

namespace sh::procattr {

Result<void> apply_memory_policy(const oci::MemoryPolicy& m) {
  auto mode = oci::memory_policy_mode(m.mode);
  if (!mode) return fail("linux.memoryPolicy.mode: unknown memory policy mode \"" + m.mode + "\"");
  int arg = *mode;
  for (auto& f : m.flags) {
    auto v = oci::memory_policy_flag(f);
    if (!v) return fail("linux.memoryPolicy.flags: unknown memory policy flag \"" + f + "\"");
    arg |= *v;
  }
  constexpr unsigned kBits = oci::kMaxNumaNodes;
  constexpr unsigned kWordBits = sizeof(unsigned long) * CHAR_BIT;
  std::vector<unsigned long> mask(kBits / kWordBits, 0);
  if (!m.nodes.empty())
    for (unsigned n : TRY(oci::parse_id_list(m.nodes, "linux.memoryPolicy.nodes", kBits)))
      mask[n / kWordBits] |= 1UL << (n % kWordBits);
  // maxnode counts one more than the bits the kernel reads (set_mempolicy(2)).
  const unsigned long* nodes = m.nodes.empty() ? nullptr : mask.data();
  if (::syscall(SYS_set_mempolicy, arg, nodes, m.nodes.empty() ? 0UL : (unsigned long)kBits + 1) < 0) {
    int e = errno;
    std::string what = "linux.memoryPolicy: set_mempolicy " + m.mode + (m.nodes.empty() ? "" : " nodes " + m.nodes);
    if (e == EINVAL) what += " (a node that is not online here, or a mode or flag this kernel lacks?)";
    return sys_error(what, e);
  }
  return {};
}

Result<void> apply_cpu_affinity(const std::optional<std::string>& cpus, const std::string& path) {
  constexpr unsigned kCpus = oci::kMaxCpus;
  cpu_set_t* set = CPU_ALLOC(kCpus);
  if (!set) return sys_error(path + ": allocate a CPU set");
  size_t size = CPU_ALLOC_SIZE(kCpus);
  CPU_ZERO_S(size, set);
  auto done = [&](Result<void> r) {
    CPU_FREE(set);
    return r;
  };
  if (cpus) {
    auto ids = oci::parse_id_list(*cpus, path, kCpus);
    if (!ids) return done(std::unexpected(std::move(ids.error())));
    for (unsigned c : *ids) CPU_SET_S(c, size, set);
  } else {
    for (unsigned c = 0; c < kCpus; ++c) CPU_SET_S(c, size, set);  // the kernel keeps what cpuset allows
  }
  if (::sched_setaffinity(0, size, set) < 0) {
    int e = errno;
    return done(sys_error(path + ": sched_setaffinity " + cpus.value_or("(all allowed)") +
                              (e == EINVAL ? " (no CPU of the list is online or allowed by the cgroup)" : ""),
                          e));
  }
  return done({});
}

}  // namespace sh::procattr
