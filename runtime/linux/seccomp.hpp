// seccomp from the config's linux.seccomp, through libseccomp: every action
// (SCMP_ACT_KILL, KILL_PROCESS, KILL_THREAD, TRAP, ERRNO, TRACE, ALLOW, LOG, NOTIFY),
// every flag (SECCOMP_FILTER_FLAG_LOG, SPEC_ALLOW, WAIT_KILLABLE_RECV), argument conditions
// with every operator, architectures. Compiling is split from loading so that every error
// surfaces at `create`, while loading happens as the last step before execve.
#pragma once
#include <linux/filter.h>
#include <seccomp.h>

#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "oci/config.hpp"

namespace sh::seccomp {

class Filter {
 public:
  Filter() = default;
  // Build from the config section. Unknown syscall names are skipped with a debug log
  // (as runc does, so profiles work across kernels); unknown actions/ops/flags/archs are errors.
  static Result<Filter> compile(const oci::Seccomp& s);
  // A program libseccomp generated earlier (seccomp_cache.hpp), loaded with the raw
  // seccomp(2) syscall and `flags` (what load_flags() said for it; with NEW_LISTENER, load()
  // returns the listener, as for policy learn's recording filter).
  static Filter from_program(std::vector<sock_filter> insns, unsigned flags);
  // The BPF program libseccomp generates for a compiled filter (seccomp_export_bpf): the
  // same code seccomp_load would install now.
  Result<std::vector<sock_filter>> export_bpf() const;
  // The seccomp(2) flags seccomp_load uses for this filter, read back from its attributes
  // (TSYNC, LOG, SPEC_ALLOW); NEW_LISTENER is left out: filters with NOTIFY are never exported.
  unsigned load_flags() const;
  // Load into the calling thread. Sets no_new_privs only if asked by caller separately.
  // With a listenerPath (SCMP_ACT_NOTIFY), returns the notify fd (else an empty Fd).
  Result<Fd> load() const;
  bool empty() const { return !ctx_ && !prog_; }
  bool notify() const { return notify_; }
  // The program of a filter made by from_program, else nullptr.
  const std::vector<sock_filter>* program() const { return prog_.get(); }

 private:
  struct Release {
    void operator()(void* c) const { seccomp_release(c); }
  };
  std::shared_ptr<void> ctx_;
  std::shared_ptr<const std::vector<sock_filter>> prog_;
  unsigned prog_flags_ = 0;
  bool notify_ = false;
};

// Helpers exposed for unit tests.
Result<uint32_t> parse_action(const std::string& name, std::optional<uint32_t> errno_ret);
Result<enum scmp_compare> parse_op(const std::string& name);
Result<uint32_t> parse_arch(const std::string& name);

}  // namespace sh::seccomp
