#include "runtime/lifecycle/denial_reader.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <vector>

#include "base/file.hpp"
#include "base/json.hpp"
#include "base/log.hpp"
#include "runtime/linux/audit.hpp"
#include "runtime/linux/proc_info.hpp"
#include "spec-mapping/denial_field.hpp"

namespace sh::lifecycle {
namespace {

constexpr int kTickMs = 1000;   // the lost counter is read this often

// Which processes are the container's: its pid namespace, or (sharing the host's) its cgroups.
struct Membership {
  uint32_t ses = audit::kNoSession;  // the container's audit session (init's, from create)
  ino_t pidns = 0;     // 0: the container shares our pid namespace
  std::string cgroup;  // init's /proc/<pid>/cgroup
  std::set<std::string> domains;  // Landlock domains seen denying for the container

  static Membership of(pid_t init) {
    Membership m;
    struct stat a {}, b {};
    if (::stat(("/proc/" + std::to_string(init) + "/ns/pid").c_str(), &a) == 0 &&
        ::stat("/proc/self/ns/pid", &b) == 0 && a.st_ino != b.st_ino)
      m.pidns = a.st_ino;
    m.cgroup = read_file("/proc/" + std::to_string(init) + "/cgroup", 1u << 16).value_or("");
    auto ses = read_file("/proc/" + std::to_string(init) + "/sessionid", 64);
    if (ses && !ses->empty()) m.ses = uint32_t(std::strtoul(ses->c_str(), nullptr, 10));
    return m;
  }
  bool has(pid_t pid) const {
    if (pid <= 0) return false;
    if (pidns) {
      struct stat st {};
      return ::stat(("/proc/" + std::to_string(pid) + "/ns/pid").c_str(), &st) == 0 && st.st_ino == pidns;
    }
    return !cgroup.empty() && read_file("/proc/" + std::to_string(pid) + "/cgroup", 1u << 16).value_or("") == cgroup;
  }
  bool owns(const audit::Denial& d, const audit::Assembler& a) {
    if (ses != audit::kNoSession && d.ses == ses) return true;
    if (d.bound == "landlock" && domains.contains(d.domain)) return true;
    bool ours = has(d.pid) || (d.bound == "landlock" && has(a.domain_creator(d.domain)));
    if (ours && d.bound == "landlock") domains.insert(d.domain);
    return ours;
  }
};

void append(int fd, const std::string& line) {
  std::string l = line + "\n";
  (void)write_all(fd, l, "denials log");
}

// What the host's settings leave out, said once at the start.
void write_notices(int log, const audit::Status& st) {
  if (!st.enabled)
    append(log, note_json("notice", "audit is disabled on this host (audit_enabled 0): Landlock denials are not "
                                    "recorded, seccomp denials are; enable it with auditctl -e 1"));
  auto logged = read_file("/proc/sys/kernel/seccomp/actions_logged", 4096).value_or("");
  if (logged.find("errno") == std::string::npos)
    append(log, note_json("notice", "kernel.seccomp.actions_logged lacks errno: seccomp's refusals (errno) are not "
                                    "recorded"));
}

using Clock = std::chrono::steady_clock;

}  // namespace

struct DenialReader::State {
  Fd sock, log, pidfd;
  Membership members;
  audit::Assembler assembler;
  std::vector<audit::Denial> out;
  uint32_t lost = 0;
  Clock::time_point next_tick;

  void check_lost() {
    auto now = audit::status();
    if (now && now->lost != lost)
      append(log.get(), note_json("loss", "the kernel dropped audit records (backlog full or rate limit; a "
                                          "host-wide count, some may be this container's)",
                                  (long long)(now->lost - lost)));
    if (now) lost = now->lost;
    next_tick = Clock::now() + std::chrono::milliseconds(kTickMs);
  }
  void emit() {
    for (const auto& d : out) {
      // glibc tries clone3 first and falls back to clone: the policy's ENOSYS for it is by design.
      if (d.bound == "seccomp" && d.syscall == "clone3" && d.action == "errno") continue;
      if (members.owns(d, assembler)) append(log.get(), denial_json(d));
    }
    out.clear();
  }
  void read_queued() {
    for (;;) {
      int type = 0;
      std::string text;
      auto got = audit::receive(sock.get(), type, text);
      if (!got || *got == audit::Got::nothing) break;
      if (*got == audit::Got::overrun) {
        append(log.get(), note_json("loss", "the reader's audit socket overflowed: records were dropped"));
        continue;
      }
      if (auto r = audit::parse_record(type, text)) assembler.add(std::move(*r), out);
    }
    emit();
  }
};

DenialReader::DenialReader(std::unique_ptr<State> s) : s_(std::move(s)) {}
DenialReader::DenialReader(DenialReader&&) noexcept = default;
DenialReader& DenialReader::operator=(DenialReader&&) noexcept = default;
DenialReader::~DenialReader() = default;

Result<DenialReader> DenialReader::open(pid_t init_pid, uint64_t start_time, const std::string& log_path) {
  auto s = std::make_unique<State>();
  s->sock = TRYC("denials", audit::subscribe());
  s->log.reset(::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!s->log) return sys_error("denials: open " + log_path);
  s->pidfd = proc::pidfd_of(init_pid, start_time);
  if (!s->pidfd) return fail("denials: container init " + std::to_string(init_pid) + " is gone");
  s->members = Membership::of(init_pid);
  int log = s->log.get();
  auto st = audit::status();
  if (st) {
    s->lost = st->lost;
    write_notices(log, *st);
  } else {
    append(log, note_json("loss", "the kernel's lost counter cannot be read: " + st.error().what()));
  }
  if (s->members.ses == audit::kNoSession)
    append(log, note_json("notice", "no audit session could be started for the container (loginuid): a denial "
                                    "of a process that exits before it is read may not be recorded"));
  s->next_tick = Clock::now() + std::chrono::milliseconds(kTickMs);
  return DenialReader(std::move(s));
}

int DenialReader::fd() const { return s_->sock.get(); }

int DenialReader::tick_ms() const {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(s_->next_tick - Clock::now()).count();
  return int(std::clamp<long long>(left, 0, kTickMs));
}

void DenialReader::step(bool readable) {
  if (readable) s_->read_queued();
  if (Clock::now() >= s_->next_tick) s_->check_lost();
}

void DenialReader::drain(int quiet_ms) {
  for (;;) {
    struct pollfd p {s_->sock.get(), POLLIN, 0};
    int n = ::poll(&p, 1, quiet_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s_->read_queued();
  }
  s_->assembler.flush(s_->out);
  s_->emit();
  s_->check_lost();
}

bool records_denials(const policy::Extension* ext) { return ext && (ext->seccomp || ext->landlock) && ::geteuid() == 0; }

std::string denial_json(const audit::Denial& d) {
  auto f = d.bound == "seccomp" ? policy::seccomp_field(d.syscall) : policy::landlock_field(d.access, d.path, d.port);
  json::Writer w;
  w.begin_object().kv("time", d.time).kv("kind", "denial").kv("pid", (long long)d.pid).kv("exe", d.exe);
  w.kv("bound", d.bound);
  if (d.bound == "seccomp") w.kv("syscall", d.syscall).kv("action", d.action);
  else w.kv("access", d.access);
  if (!d.path.empty()) w.kv("path", d.path);
  if (d.port >= 0) w.kv("port", (long long)d.port);
  if (!d.domain.empty()) w.kv("domain", d.domain);
  w.kv("field", f.field).kv("allow", f.allow).end_object();
  return w.str();
}

std::string note_json(const char* kind, const std::string& detail, long long lost) {
  json::Writer w;
  w.begin_object().kv("time", log::now_rfc3339()).kv("kind", kind).kv("detail", detail);
  if (lost >= 0) w.kv("lost", lost);
  w.end_object();
  return w.str();
}

Result<void> DenialReader::fork_off() && {
  State& s = *s_;
  // One fork, as the watchdog's clone: the runtime exits soon and the reader is re-parented to
  // the caller's subreaper; the runtime only ever waits for specific pids, so it never reaps it.
  // (A second fork to detach at once cost a copy of the runtime's page tables per create.)
  pid_t child = ::fork();
  if (child < 0) return sys_error("denials: fork");
  if (child > 0) return {};  // our copies of the fds close with *this
  ::setsid();
  ::prctl(PR_SET_NAME, "sharness:denials");
  sigset_t none;  // a foreground run forks it with the signals it forwards blocked
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; ++fd) ::dup3(null, fd, 0);
  // Every other fd closed, in the ranges between the three kept: a close per fd number was
  // ~1 000 system calls (983 of them EBADF) in every create under a policy.
  int keep[] = {s.sock.get(), s.log.get(), s.pidfd.get()};
  std::ranges::sort(keep);
  unsigned from = 3;
  for (int k : keep) {
    if (unsigned(k) < from) continue;
    if (unsigned(k) > from) ::syscall(SYS_close_range, from, unsigned(k) - 1, 0);
    from = unsigned(k) + 1;
  }
  ::syscall(SYS_close_range, from, ~0U, 0);
  for (;;) {
    struct pollfd p[2] = {{s.sock.get(), POLLIN, 0}, {s.pidfd.get(), POLLIN, 0}};
    int n = ::poll(p, 2, tick_ms());
    if (n < 0 && errno == EINTR) continue;
    if (n > 0 && (p[1].revents & POLLIN)) break;
    step(n > 0 && p[0].revents);
  }
  drain(kDenialDrainMs);
  _exit(0);
}

}  // namespace sh::lifecycle
