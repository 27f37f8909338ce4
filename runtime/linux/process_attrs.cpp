#include "runtime/linux/process_attrs.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/ioprio.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "base/file.hpp"
#include "base/log.hpp"
#include "runtime/linux/safe_path.hpp"

namespace sh::procattr {
namespace {

template <class T>
struct Named {
  std::string_view name;
  T value;
};

constexpr std::array<Named<int>, 16> kRlimits{{
    {"RLIMIT_AS", RLIMIT_AS},
    {"RLIMIT_CORE", RLIMIT_CORE},
    {"RLIMIT_CPU", RLIMIT_CPU},
    {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"RLIMIT_LOCKS", RLIMIT_LOCKS},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
    {"RLIMIT_NICE", RLIMIT_NICE},
    {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_NPROC", RLIMIT_NPROC},
    {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
    {"RLIMIT_RTTIME", RLIMIT_RTTIME},
    {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_STACK", RLIMIT_STACK},
}};

// Kernel ABI values (uapi linux/sched.h); glibc 2.36 exports neither sched_attr nor all of these.
constexpr std::array<Named<uint32_t>, 6> kPolicies{{
    {"SCHED_OTHER", 0},
    {"SCHED_FIFO", 1},
    {"SCHED_RR", 2},
    {"SCHED_BATCH", 3},
    {"SCHED_IDLE", 5},
    {"SCHED_DEADLINE", 6},
}};

constexpr std::array<Named<uint64_t>, 7> kSchedFlags{{
    {"SCHED_FLAG_RESET_ON_FORK", 0x01},
    {"SCHED_FLAG_RECLAIM", 0x02},
    {"SCHED_FLAG_DL_OVERRUN", 0x04},
    {"SCHED_FLAG_KEEP_POLICY", 0x08},
    {"SCHED_FLAG_KEEP_PARAMS", 0x10},
    {"SCHED_FLAG_UTIL_CLAMP_MIN", 0x20},
    {"SCHED_FLAG_UTIL_CLAMP_MAX", 0x40},
}};

constexpr std::array<Named<int>, 3> kIoClasses{{
    {"IOPRIO_CLASS_RT", IOPRIO_CLASS_RT},
    {"IOPRIO_CLASS_BE", IOPRIO_CLASS_BE},
    {"IOPRIO_CLASS_IDLE", IOPRIO_CLASS_IDLE},
}};

// struct sched_attr, SCHED_ATTR_SIZE_VER1 layout.
struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
  uint32_t sched_util_min;
  uint32_t sched_util_max;
};
static_assert(sizeof(SchedAttr) == 56);

template <class T, size_t N>
const T* lookup(const std::array<Named<T>, N>& table, std::string_view name) {
  for (const auto& e : table)
    if (e.name == name) return &e.value;
  return nullptr;
}

std::string limit_str(rlim_t v) { return v == RLIM_INFINITY ? "unlimited" : std::to_string(v); }

std::string errno_text(int e) {
  const char* n = strerrorname_np(e);
  return std::string(n ? n : std::to_string(e)) + " (" + strerror(e) + ")";
}

Result<void> apply_rlimit(const oci::Rlimit& r) {
  int res = r.resource >= 0 ? r.resource : TRY(rlimit_resource(r.type));
  std::string what = "setrlimit " + r.type + " (soft " + limit_str(r.soft) + ", hard " + limit_str(r.hard) + ")";
  struct rlimit cur {};
  bool have_cur = ::prlimit(0, static_cast<__rlimit_resource>(res), nullptr, &cur) == 0;
  struct rlimit want {
    rlim_t(r.soft), rlim_t(r.hard)
  };
  if (::prlimit(0, static_cast<__rlimit_resource>(res), &want, nullptr) == 0) return {};
  int e = errno;
  // The commonest failure on hosts without CAP_SYS_RESOURCE (see DESIGN.md §7): say why.
  if (e == EPERM && have_cur && want.rlim_max > cur.rlim_max)
    return fail(what + ": " + errno_text(e) + " (raising a hard limit needs CAP_SYS_RESOURCE; current hard limit " +
                limit_str(cur.rlim_max) + ")");
  return sys_error(what, e);
}

long sys_sched_setattr(SchedAttr* attr) { return ::syscall(SYS_sched_setattr, 0, attr, 0); }

Result<uint64_t> sched_flags(const std::vector<std::string>& flags) {
  uint64_t out = 0;
  for (const auto& f : flags) {
    const uint64_t* v = lookup(kSchedFlags, f);
    if (!v) return fail("process.scheduler.flags: unknown flag \"" + f + "\"");
    out |= *v;
  }
  return out;
}

Result<void> set_groups(const std::vector<uint32_t>& gids) {
  std::vector<gid_t> list(gids.begin(), gids.end());
  if (::setgroups(list.size(), list.empty() ? nullptr : list.data()) == 0) return {};
  std::string desc;
  for (auto g : gids) desc += (desc.empty() ? "" : ",") + std::to_string(g);
  return sys_error("setgroups [" + desc + "]");
}

}  // namespace

Result<int> rlimit_resource(const std::string& name) {
  if (const int* v = lookup(kRlimits, name)) return *v;
  return fail("unknown rlimit \"" + name + "\"");
}

Result<void> apply_rlimits(const std::vector<oci::Rlimit>& rl) {
  for (const auto& r : rl) TRYV(apply_rlimit(r));
  return {};
}

Result<void> apply_oom_score_adj(int adj) {
  auto r = write_file("/proc/self/oom_score_adj", std::to_string(adj));
  if (r) return {};
  Error e = std::move(r.error());
  // Lowering the score below its current value is what needs the missing capability.
  if (e.err == EACCES || e.err == EPERM) e.msg += " (lowering oom_score_adj needs CAP_SYS_RESOURCE)";
  return fail(std::move(e).context("set oom_score_adj to " + std::to_string(adj)));
}

Result<void> apply_scheduler(const oci::Scheduler& s) {
  const uint32_t* policy = lookup(kPolicies, s.policy);
  if (!policy) return fail("process.scheduler.policy: unknown policy \"" + s.policy + "\"");
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = *policy;
  attr.sched_flags = TRY(sched_flags(s.flags));
  attr.sched_nice = s.nice.value_or(0);
  attr.sched_priority = uint32_t(s.priority.value_or(0));
  attr.sched_runtime = s.runtime.value_or(0);
  attr.sched_deadline = s.deadline.value_or(0);
  attr.sched_period = s.period.value_or(0);
  if (sys_sched_setattr(&attr) == 0) return {};
  return sys_error("sched_setattr " + s.policy + " (nice " + std::to_string(attr.sched_nice) + ", priority " +
                   std::to_string(attr.sched_priority) + ")");
}

Result<void> apply_io_priority(const oci::IoPriority& p) {
  const int* cls = lookup(kIoClasses, p.io_class);
  if (!cls) return fail("process.ioPriority.class: unknown class \"" + p.io_class + "\"");
  if (p.priority < 0 || p.priority > 7)
    return fail("process.ioPriority.priority: " + std::to_string(p.priority) + " out of range (0-7)");
  int prio = IOPRIO_PRIO_VALUE(*cls, p.priority);
  if (::syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, prio) == 0) return {};
  return sys_error("ioprio_set " + p.io_class + " " + std::to_string(p.priority));
}

Result<void> deny_write_execute() {
  constexpr unsigned long kRefuseExecGain = 1;  // PR_MDWE_REFUSE_EXEC_GAIN
  if (::prctl(kSetMdwe, kRefuseExecGain, 0, 0, 0) < 0)
    return sys_error("memory-deny-write-execute (prctl PR_SET_MDWE, Linux 6.3+)");
  return {};
}

Result<void> apply_personality(const oci::Personality& p) {
  unsigned long persona;
  if (p.domain == "LINUX")
    persona = PER_LINUX;
  else if (p.domain == "LINUX32")
    persona = PER_LINUX32;
  else
    return fail("linux.personality.domain: unknown domain \"" + p.domain + "\"");
  // The spec defines no flags yet; runc ignores them with a warning, so do we.
  if (!p.flags.empty()) log::warn("linux.personality.flags: no flags are supported, ignored");
  if (::personality(persona) < 0) return sys_error("personality " + p.domain);
  return {};
}

Result<void> apply_user(const oci::User& u, bool setgroups_allowed) {
  // Supplementary groups are exactly additionalGids: the runtime's own (root's) must not leak.
  if (setgroups_allowed) TRYV(set_groups(u.additional_gids));
  if (::setresgid(u.gid, u.gid, u.gid) < 0) return sys_error("setresgid to gid " + std::to_string(u.gid));
  // Keep the permitted set across the uid change; apply_sets then chooses what stays.
  if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0) return sys_error("prctl PR_SET_KEEPCAPS");
  int rc = ::setresuid(u.uid, u.uid, u.uid);
  int e = errno;
  ::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  if (rc < 0) return sys_error("setresuid to uid " + std::to_string(u.uid), e);
  if (u.umask) ::umask(mode_t(*u.umask & 0777));
  return {};
}

std::string home_in_passwd(std::string_view passwd, uid_t uid) {
  const std::string want = std::to_string(uid);
  while (!passwd.empty()) {
    size_t nl = passwd.find('\n');
    std::string_view line = passwd.substr(0, nl);
    passwd = nl == std::string_view::npos ? std::string_view{} : passwd.substr(nl + 1);
    // name:password:uid:gid:gecos:home:shell
    std::string_view f[7];
    size_t n = 0;
    for (std::string_view rest = line; n < 7;) {
      size_t colon = rest.find(':');
      f[n++] = rest.substr(0, colon);
      if (colon == std::string_view::npos) break;
      rest = rest.substr(colon + 1);
    }
    if (n >= 6 && f[2] == want && !f[5].empty()) return std::string(f[5]);
  }
  return "/";
}

std::string container_home(int root_fd, uid_t uid) {
  auto fd = rootfs::open_in_root(root_fd, "etc/passwd", O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd) return "/";
  struct stat st;
  if (::fstat(fd->get(), &st) < 0 || !S_ISREG(st.st_mode)) return "/";
  constexpr size_t kMax = 4u << 20;
  std::string text;
  char buf[65536];
  while (text.size() < kMax) {
    ssize_t n = ::read(fd->get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, size_t(n));
  }
  return home_in_passwd(text, uid);
}

Result<void> apply_process(const oci::Process& p) {
  if (p.oom_score_adj) TRYV(apply_oom_score_adj(*p.oom_score_adj));
  if (p.scheduler) TRYV(apply_scheduler(*p.scheduler));
  if (p.io_priority) TRYV(apply_io_priority(*p.io_priority));
  return apply_rlimits(p.rlimits);
}

}  // namespace sh::procattr
