#include "runtime/linux/seccomp.hpp"

#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>
#include <vector>

#include "base/log.hpp"

namespace sh::seccomp {
namespace {

constexpr unsigned kMaxArgs = 6;  // syscalls take at most six arguments

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// libseccomp returns -errno; turn that into our error type.
std::unexpected<Error> lib_error(std::string what, int rc) { return sys_error(std::move(what), -rc); }

struct ArchName {
  std::string_view name;
  uint32_t token;
};

constexpr std::array kArchs{
    ArchName{"SCMP_ARCH_X86", SCMP_ARCH_X86},
    ArchName{"SCMP_ARCH_X86_64", SCMP_ARCH_X86_64},
    ArchName{"SCMP_ARCH_X32", SCMP_ARCH_X32},
    ArchName{"SCMP_ARCH_ARM", SCMP_ARCH_ARM},
    ArchName{"SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64},
    ArchName{"SCMP_ARCH_MIPS", SCMP_ARCH_MIPS},
    ArchName{"SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64},
    ArchName{"SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32},
    ArchName{"SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL},
    ArchName{"SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64},
    ArchName{"SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32},
    ArchName{"SCMP_ARCH_PPC", SCMP_ARCH_PPC},
    ArchName{"SCMP_ARCH_PPC64", SCMP_ARCH_PPC64},
    ArchName{"SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE},
    ArchName{"SCMP_ARCH_S390", SCMP_ARCH_S390},
    ArchName{"SCMP_ARCH_S390X", SCMP_ARCH_S390X},
    ArchName{"SCMP_ARCH_PARISC", SCMP_ARCH_PARISC},
    ArchName{"SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64},
    ArchName{"SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64},
#ifdef SCMP_ARCH_LOONGARCH64
    ArchName{"SCMP_ARCH_LOONGARCH64", SCMP_ARCH_LOONGARCH64},
#endif
#ifdef SCMP_ARCH_M68K
    ArchName{"SCMP_ARCH_M68K", SCMP_ARCH_M68K},
#endif
#ifdef SCMP_ARCH_SH
    ArchName{"SCMP_ARCH_SH", SCMP_ARCH_SH},
    ArchName{"SCMP_ARCH_SHEB", SCMP_ARCH_SHEB},
#endif
};

// Owns a context until it is handed to a Filter.
struct CtxOwner {
  scmp_filter_ctx ctx = nullptr;
  ~CtxOwner() {
    if (ctx) seccomp_release(ctx);
  }
};

Result<void> set_attr(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value, const std::string& what) {
  int rc = seccomp_attr_set(ctx, attr, value);
  if (rc < 0) return lib_error(what, rc);
  return {};
}

Result<void> add_archs(scmp_filter_ctx ctx, const std::vector<std::string>& archs) {
  for (size_t i = 0; i < archs.size(); ++i) {
    std::string path = "linux.seccomp.architectures[" + std::to_string(i) + "]";
    uint32_t token = TRYC(path, parse_arch(archs[i]));
    // The native arch is already in a fresh context; adding it again says EEXIST.
    int rc = seccomp_arch_add(ctx, token);
    if (rc < 0 && rc != -EEXIST) return lib_error(path + ": add architecture " + archs[i], rc);
  }
  return {};
}

Result<void> apply_flag(scmp_filter_ctx ctx, const std::string& flag) {
  if (flag == "SECCOMP_FILTER_FLAG_TSYNC") return {};  // the runtime's init is single-threaded at load
  if (flag == "SECCOMP_FILTER_FLAG_LOG") return set_attr(ctx, SCMP_FLTATR_CTL_LOG, 1, "set SCMP_FLTATR_CTL_LOG");
  if (flag == "SECCOMP_FILTER_FLAG_SPEC_ALLOW")
    return set_attr(ctx, SCMP_FLTATR_CTL_SSB, 1, "set SCMP_FLTATR_CTL_SSB");
  if (flag == "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV") {
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 6)
    return set_attr(ctx, SCMP_FLTATR_CTL_WAITKILL, 1, "set SCMP_FLTATR_CTL_WAITKILL");
#else
    return fail("flag " + quoted(flag) + " needs libseccomp >= 2.6.0 (built with " +
                std::to_string(SCMP_VER_MAJOR) + "." + std::to_string(SCMP_VER_MINOR) + "." +
                std::to_string(SCMP_VER_MICRO) + ")");
#endif
  }
  return fail("unknown flag " + quoted(flag));
}

Result<void> apply_flags(scmp_filter_ctx ctx, const std::vector<std::string>& flags) {
  for (size_t i = 0; i < flags.size(); ++i)
    TRYVC("linux.seccomp.flags[" + std::to_string(i) + "]", apply_flag(ctx, flags[i]));
  return {};
}

Result<std::vector<scmp_arg_cmp>> parse_args(const std::vector<oci::SeccompArg>& args, const std::string& path) {
  std::vector<scmp_arg_cmp> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    std::string apath = path + ".args[" + std::to_string(i) + "]";
    if (a.index >= kMaxArgs)
      return fail(apath + ".index: " + std::to_string(a.index) + " out of range (0-" + std::to_string(kMaxArgs - 1) +
                  ")");
    auto op = TRYC(apath + ".op", parse_op(a.op));
    out.push_back(scmp_arg_cmp{a.index, op, a.value, a.value_two});
  }
  return out;
}

// runc's rule for conditions: if two of them test the same argument, each condition becomes its
// own rule (OR); otherwise they all go into one rule (AND). Profiles written for runc rely on it.
std::vector<std::vector<scmp_arg_cmp>> group_conditions(const std::vector<scmp_arg_cmp>& conds) {
  std::array<unsigned, kMaxArgs> count{};
  bool dup = false;
  for (const auto& c : conds) dup |= ++count[c.arg] > 1;
  if (!dup) return {conds};
  std::vector<std::vector<scmp_arg_cmp>> rules;
  for (const auto& c : conds) rules.push_back({c});
  return rules;
}

// Returns whether a rule was added (false: unknown syscall, skipped).
Result<bool> add_rule(scmp_filter_ctx ctx, uint32_t action, const std::string& name,
                      const std::vector<std::vector<scmp_arg_cmp>>& rules) {
  int nr = seccomp_syscall_resolve_name(name.c_str());
  if (nr == __NR_SCMP_ERROR) {
    // Profiles list syscalls of newer kernels and other arches; runc skips them too.
    log::debug("seccomp: skipping unknown syscall " + quoted(name));
    return false;
  }
  for (const auto& conds : rules) {
    // _array (not _exact) lets libseccomp rewrite multiplexed syscalls (socketcall, ipc) on x86.
    int rc = seccomp_rule_add_array(ctx, action, nr, unsigned(conds.size()), conds.empty() ? nullptr : conds.data());
    if (rc < 0) return lib_error("add rule for " + quoted(name), rc);
  }
  return true;
}

// Returns whether any SCMP_ACT_NOTIFY rule made it into the filter (then load() has a listener fd).
Result<bool> add_syscalls(scmp_filter_ctx ctx, const oci::Seccomp& s, uint32_t default_action) {
  bool notify = false;
  for (size_t i = 0; i < s.syscalls.size(); ++i) {
    const auto& sc = s.syscalls[i];
    std::string path = "linux.seccomp.syscalls[" + std::to_string(i) + "]";
    if (sc.names.empty()) return fail(path + ".names: empty");
    uint32_t action = TRYC(path + ".action", parse_action(sc.action, sc.errno_ret));
    if (action == SCMP_ACT_NOTIFY) {
      if (!s.listener_path) return fail(path + ".action: SCMP_ACT_NOTIFY needs linux.seccomp.listenerPath");
      // The init sends the notify fd with write/sendmsg after load; notifying write would deadlock it.
      if (std::ranges::find(sc.names, "write") != sc.names.end())
        return fail(path + ": SCMP_ACT_NOTIFY cannot be used for \"write\"");
    }
    auto conds = TRY(parse_args(sc.args, path));
    // libseccomp refuses a rule whose action is the default one; it would be a no-op anyway.
    if (action == default_action) continue;
    auto rules = group_conditions(conds);
    for (const auto& name : sc.names) {
      bool added = TRYC(path, add_rule(ctx, action, name, rules));
      notify |= added && action == SCMP_ACT_NOTIFY;
    }
  }
  return notify;
}

}  // namespace

Result<uint32_t> parse_action(const std::string& name, std::optional<uint32_t> errno_ret) {
  // ERRNO/TRACE carry a 16-bit return value in the action word.
  if ((name == "SCMP_ACT_ERRNO" || name == "SCMP_ACT_TRACE") && errno_ret && *errno_ret > 0xffff)
    return fail("errnoRet " + std::to_string(*errno_ret) + " out of range (0-65535)");
  uint32_t ret = errno_ret.value_or(EPERM);
  if (name == "SCMP_ACT_KILL" || name == "SCMP_ACT_KILL_THREAD") return SCMP_ACT_KILL_THREAD;
  if (name == "SCMP_ACT_KILL_PROCESS") return SCMP_ACT_KILL_PROCESS;
  if (name == "SCMP_ACT_TRAP") return SCMP_ACT_TRAP;
  if (name == "SCMP_ACT_ERRNO") return SCMP_ACT_ERRNO(ret);
  if (name == "SCMP_ACT_TRACE") return SCMP_ACT_TRACE(ret);
  if (name == "SCMP_ACT_ALLOW") return SCMP_ACT_ALLOW;
  if (name == "SCMP_ACT_LOG") return SCMP_ACT_LOG;
  if (name == "SCMP_ACT_NOTIFY") return SCMP_ACT_NOTIFY;
  return fail("unknown action " + quoted(name));
}

Result<enum scmp_compare> parse_op(const std::string& name) {
  if (name == "SCMP_CMP_NE") return SCMP_CMP_NE;
  if (name == "SCMP_CMP_LT") return SCMP_CMP_LT;
  if (name == "SCMP_CMP_LE") return SCMP_CMP_LE;
  if (name == "SCMP_CMP_EQ") return SCMP_CMP_EQ;
  if (name == "SCMP_CMP_GE") return SCMP_CMP_GE;
  if (name == "SCMP_CMP_GT") return SCMP_CMP_GT;
  if (name == "SCMP_CMP_MASKED_EQ") return SCMP_CMP_MASKED_EQ;
  return fail("unknown operator " + quoted(name));
}

Result<uint32_t> parse_arch(const std::string& name) {
  for (const auto& a : kArchs)
    if (a.name == name) return a.token;
  return fail("unknown architecture " + quoted(name));
}

Result<Filter> Filter::compile(const oci::Seccomp& s) {
  auto compile_impl = [&]() -> Result<Filter> {
    uint32_t def = TRYC("linux.seccomp.defaultAction", parse_action(s.default_action, s.default_errno_ret));
    if (def == SCMP_ACT_NOTIFY) return fail("linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default");
    CtxOwner owner;
    owner.ctx = seccomp_init(def);
    if (!owner.ctx) return fail("seccomp_init(" + s.default_action + ") failed");
    // no_new_privs is the runtime's decision (process.noNewPrivileges), not libseccomp's.
    TRYV(set_attr(owner.ctx, SCMP_FLTATR_CTL_NNP, 0, "set SCMP_FLTATR_CTL_NNP"));
    // Best effort: report the kernel's errno from seccomp_load rather than a generic ECANCELED.
    (void)seccomp_attr_set(owner.ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
    // A binary tree on the syscall number instead of libseccomp's default linear chain: an
    // allowlist of ~120 names costs every denied syscall ~7 comparisons instead of ~120, in the
    // container and in the kernel's per-syscall emulation of the filter at load (its action
    // cache, built with interrupts off). Same verdicts; best effort (libseccomp >= 2.5).
    (void)seccomp_attr_set(owner.ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    TRYV(add_archs(owner.ctx, s.architectures));
    TRYV(apply_flags(owner.ctx, s.flags));
    bool notify = TRY(add_syscalls(owner.ctx, s, def));
    Filter f;
    f.ctx_ = std::shared_ptr<void>(std::exchange(owner.ctx, nullptr), Release{});
    f.notify_ = notify;
    return f;
  };
  auto f = compile_impl();
  if (!f) return fail(std::move(f.error()).context("seccomp"));
  return f;
}

Filter Filter::from_program(std::vector<sock_filter> insns, unsigned flags) {
  Filter f;
  f.prog_ = std::make_shared<const std::vector<sock_filter>>(std::move(insns));
  f.prog_flags_ = flags;
  return f;
}

Result<std::vector<sock_filter>> Filter::export_bpf() const {
  if (!ctx_) return fail("seccomp: export: no libseccomp filter");
  // libseccomp 2.5 exports only to an fd; a memfd keeps it off any filesystem.
  Fd mem(int(::syscall(SYS_memfd_create, "seccomp-bpf", MFD_CLOEXEC)));
  if (!mem) return sys_error("seccomp: export: memfd_create");
  int rc = seccomp_export_bpf(ctx_.get(), mem.get());
  if (rc < 0) return lib_error("seccomp: export BPF", rc);
  struct stat st;
  if (::fstat(mem.get(), &st) < 0) return sys_error("seccomp: export: fstat");
  if (st.st_size <= 0 || st.st_size % sizeof(sock_filter) != 0)
    return fail("seccomp: export: " + std::to_string(st.st_size) + " bytes is not a BPF program");
  std::vector<sock_filter> out(size_t(st.st_size) / sizeof(sock_filter));
  size_t want = size_t(st.st_size), got = 0;
  while (got < want) {
    ssize_t n = ::pread(mem.get(), reinterpret_cast<char*>(out.data()) + got, want - got, off_t(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("seccomp: export: read back");
    got += size_t(n);
  }
  return out;
}

unsigned Filter::load_flags() const {
  if (!ctx_) return prog_flags_;
  // As libseccomp's sys_filter_load: TSYNC, LOG and SPEC_ALLOW follow the attributes.
  unsigned flags = 0;
  uint32_t v = 0;
  if (seccomp_attr_get(ctx_.get(), SCMP_FLTATR_CTL_TSYNC, &v) == 0 && v) flags |= SECCOMP_FILTER_FLAG_TSYNC;
  v = 0;
  if (seccomp_attr_get(ctx_.get(), SCMP_FLTATR_CTL_LOG, &v) == 0 && v) flags |= SECCOMP_FILTER_FLAG_LOG;
  v = 0;
  if (seccomp_attr_get(ctx_.get(), SCMP_FLTATR_CTL_SSB, &v) == 0 && v) flags |= SECCOMP_FILTER_FLAG_SPEC_ALLOW;
  return flags;
}

Result<Fd> Filter::load() const {
  if (prog_) {
    if (prog_->empty() || prog_->size() > BPF_MAXINSNS) return sys_error("seccomp: load filter", EINVAL);
    sock_fprog fprog{static_cast<unsigned short>(prog_->size()), const_cast<sock_filter*>(prog_->data())};
    long rc = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, prog_flags_, &fprog);
    // The same text as seccomp_load's failure below (SYSRAWRC: the kernel's errno).
    if (rc < 0) return sys_error("seccomp: load filter");
    return (prog_flags_ & SECCOMP_FILTER_FLAG_NEW_LISTENER) ? Fd(int(rc)) : Fd{};  // policy learn's recording filter
  }
  if (!ctx_) return Fd{};
  int rc = seccomp_load(ctx_.get());
  if (rc < 0) return lib_error("seccomp: load filter", rc);
  if (!notify_) return Fd{};
  int fd = seccomp_notify_fd(ctx_.get());
  if (fd < 0) return lib_error("seccomp: get notify fd", fd);
  return Fd(fd);
}

}  // namespace sh::seccomp
