#include "cmd/sharness-runtime/hello.hpp"
#include "cmd/sharness-runtime/hello_run.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "base/fd.hpp"
#include "base/file.hpp"
#include "oci/config_write.hpp"
#include "oci/default_spec.hpp"
#include "runtime/linux/sealed_exe.hpp"
#include "base/json.hpp"
#include "hooks/hooks.hpp"
#include "runtime/lifecycle/runtime_config.hpp"
#include "runtime/linux/exec_allowlist.hpp"
#include "spec-mapping/landlock_map.hpp"
#include "spec-mapping/landlock_standin.hpp"
#include "spec-mapping/syscall_groups.hpp"
#include "runtime/linux/host_facts.hpp"

namespace sh::lifecycle::hello {

namespace fs = std::filesystem;

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::denied: return "denied";
    case Outcome::killed: return "killed";
    case Outcome::allowed: return "ALLOWED";
    case Outcome::not_attempted: return "not attempted";
    case Outcome::no_result: return "NO RESULT";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Parsing what the containers print

std::vector<Record> parse_records(std::string_view out) {
  std::vector<Record> recs;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    std::string_view line = out.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? out.size() : nl + 1;
    if (line.starts_with("@@")) {
      line.remove_prefix(2);
      Record r;
      size_t a = line.find('|');
      if (a == std::string_view::npos) {
        r.key = std::string(line);
      } else {
        r.key = std::string(line.substr(0, a));
        size_t b = line.find('|', a + 1);
        if (b == std::string_view::npos) {
          r.value = std::string(line.substr(a + 1));
        } else {
          r.value = std::string(line.substr(a + 1, b - a - 1));
          r.detail = std::string(line.substr(b + 1));
        }
      }
      recs.push_back(std::move(r));
    } else if (!recs.empty() && !line.empty()) {
      auto& d = recs.back().detail;
      d += d.empty() ? "" : "; ";
      d += line;
    }
  }
  return recs;
}

const Record* find_record(const std::vector<Record>& recs, std::string_view key) {
  const Record* found = nullptr;
  for (auto& r : recs)
    if (r.key == key) found = &r;  // the last one wins (a counter's final value)
  return found;
}

// ---------------------------------------------------------------------------------------------
// The policy's facts

Result<Facts> facts_of(const policy::Policy& p) {
  Facts f;
  f.policy_id = p.id;
  f.policy_hash = p.hash;
  if (p.memory) {
    f.memory_limit = p.memory->limit.value_or(0);
    f.address_space = p.memory->address_space.value_or(0);
    f.deny_write_execute = p.memory->deny_write_execute;
  }
  f.ephemeral_uid = p.identity.uid && p.identity.uid->ephemeral;
  if (p.pids) {
    f.pids_limit = p.pids->effective_limit();
    f.nproc = f.ephemeral_uid && f.pids_limit > 0;
  }
  f.wall_clock = p.wall_clock_seconds.value_or(0);
  if (p.syscalls) {
    f.seccomp = true;
    f.allowed = TRY(policy::expand(p.syscalls->allow));
  }
  if (p.network) f.network = policy::network_name(*p.network);
  f.readonly_root = p.mounts.readonly_root;
  f.no_capabilities = p.identity.capabilities && p.identity.capabilities->empty();
  if (p.identity.capabilities)
    f.capabilities = std::set<std::string>(p.identity.capabilities->begin(), p.identity.capabilities->end());
  for (auto& t : p.mounts.tmpfs)
    if (t.path == "/tmp" && !t.exec) f.tmp_noexec = true;
  f.landlock_files = p.files.has_value();
  f.exec_allowlist = p.exec.has_value();
  if (f.exec_allowlist) f.tmp_noexec = true;  // every writable mount is noexec
  f.ports = p.ports.has_value();
  if (p.ports) f.connect_ports = policy::ports_with_edges(p).connect;  // the edges' and the egress door's too
  f.scope_signal = p.scope && std::ranges::find(*p.scope, "signal") != p.scope->end();
  f.egress = p.egress.has_value();
  return f;
}

Result<Facts> facts_of(const policy::Policy& p, const policy::HostProbe& host) {
  Facts f = TRY(facts_of(p));
  f.landlock_abi = host.landlock_abi;
  f.memfd_noexec = host.memfd_noexec;
  if (auto s = policy::stand_in(p, oci::LandlockKind::net, "connect_tcp")) f.tcp_stand_in = s->by;
  if (auto s = policy::stand_in(p, oci::LandlockKind::scope, "signal")) f.signal_stand_in = s->by;
  return f;
}

// ---------------------------------------------------------------------------------------------
// The scripts

namespace {

constexpr uint64_t kMiB = 1ull << 20;

uint64_t memory_cap(const Facts& f) {
  uint64_t cap = 0;
  for (uint64_t v : {f.memory_limit, f.address_space})
    if (v && (!cap || v < cap)) cap = v;
  return cap;
}

// The syscalls busybox has no applet for: reported, never faked.
const char* const kNoTool[] = {"ptrace", "bpf", "keyctl", "io_uring_setup", "userfaultfd"};

// The TCP port the "not listed" attempt connects to, in the container's own netns.
constexpr int kUnlistedPort = 8443;

}  // namespace

uint64_t hog_bytes(const Facts& f) {
  uint64_t cap = memory_cap(f);
  uint64_t want = 400 * kMiB;
  if (cap && want <= cap) want = std::min<uint64_t>(cap + cap / 2, 4096 * kMiB);
  return want;
}

int fork_attempts(const Facts& f) {
  // pids.max counts every task, the init shell too: with a limit L, L-1 children fit and the
  // L-th child (process L+1) must be refused.
  if (f.pids_limit > 0) return int(std::min<int64_t>(f.pids_limit, 64));
  return 8;
}

std::string main_script(const Facts& f) {
  std::string s;
  s += "t() { k=$1; shift; o=$(\"$@\" 2>&1 </dev/null); r=$?; echo \"@@$k|$r|$o\"; }\n";
  s += "t mem dd if=/dev/zero of=/dev/null bs=" + std::to_string(hog_bytes(f)) + " count=1\n";
  s += "t net-host nc -w 2 127.0.0.1 \"$LPORT\"\n";
  s += "t net-out nc -w 2 1.1.1.1 80\n";
  s += "t write-root touch /hostile\n";
  s += "t write-etc touch /etc/hostile\n";
  s += "t write-procsys sh -c 'echo hostile > /proc/sys/kernel/hostname'\n";
  s += "t read-secret cat /srv/secret\n";
  s += "t net-port nc -w 2 127.0.0.1 8443\n";
  s += "if cp /bin/busybox /tmp/true 2>/dev/null; then t exec-tmp /tmp/true; "
       "else echo \"@@exec-tmp|cp|could not copy a binary to /tmp\"; fi\n";
  s += ": >/tmp/owned 2>/dev/null\n";
  s += "t chown chown 0:0 /tmp/owned\n";
  s += "t caps setpriv --inh-caps +sys_admin --ambient-caps +sys_admin id -u\n";
  s += "t userns unshare -U -r id -u\n";
  s += "t mount mount -t tmpfs none /tmp\n";
  s += "t unshare unshare -m -n true\n";
  s += "t setns nsenter -t 1 -m true\n";
  s += "t kill-host kill -9 \"$HOST_PID\"\n";
  return s + egress_script(f);
}

std::string fork_script(const Facts& f) {
  std::string n = std::to_string(fork_attempts(f));
  // A failed fork ends busybox sh; its EXIT trap reads pids.events with builtins only.
  return "trap 'e=unknown; for f in /sys/fs/cgroup/pids/pids.events /sys/fs/cgroup/pids.events; do "
         "[ -r $f ] && { while read -r k v; do [ \"$k\" = max ] && e=$v; done <$f; break; }; done; "
         "echo \"@@fork-events|$e|\"' EXIT\n"
         "n=0; while [ $n -lt " + n + " ]; do sleep 5 & n=$((n + 1)); echo \"@@fork-started|$n|\"; done\n"
         "echo \"@@fork-all|$n|\"\n";
}

std::string clock_script() {
  // Every catchable signal ignored (9 and 19 cannot be; 32 and 33 belong to libc).
  return "for s in $(seq 1 64); do case $s in 9|19|32|33) ;; *) trap '' $s 2>/dev/null ;; esac; done\n"
         "echo \"@@clock-trapped|ok|\"\n"
         "sleep 100\n"
         "echo \"@@clock-survived|ok|\"\n";
}

// ---------------------------------------------------------------------------------------------
// Deciding outcomes and mechanisms

namespace {

bool has(const std::string& s, std::string_view needle) { return s.find(needle) != std::string::npos; }

std::string flat(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// "seccomp: NAME not allowed" for the names the policy's filter denies.
std::string seccomp_part(const Facts& f, std::initializer_list<const char*> names) {
  std::vector<std::string> denied;
  for (auto* n : names)
    if (f.seccomp_denies(n)) denied.push_back(n);
  if (denied.empty() || denied.size() < names.size()) return "";  // some way through is allowed
  std::string s = "seccomp: " + std::string(*names.begin()) + "() not allowed";
  return s;
}

Row base_row(std::string attempt, const Record* r, const RunResult& run) {
  Row row;
  row.attempt = std::move(attempt);
  if (!r) {
    row.outcome = Outcome::no_result;
    row.detail = "the attempt did not report (container exit " + std::to_string(run.exit_code) +
                 (run.err.empty() ? "" : ": " + flat(run.err).substr(0, 200)) + ")";
    return row;
  }
  row.detail = flat(r->detail);
  if (r->value == "0") {
    row.outcome = Outcome::allowed;
    if (row.detail.empty()) row.detail = "succeeded";
  } else if (r->value == "137") {
    row.outcome = Outcome::killed;
    if (row.detail.empty()) row.detail = "SIGKILL";
  } else if (r->value == "127") {
    row.outcome = Outcome::no_result;  // the tool is missing: nothing was tried
    row.detail = "could not try: " + row.detail;
  } else {
    row.outcome = Outcome::denied;
    if (row.detail.empty()) row.detail = "exit " + r->value;
  }
  return row;
}

const char* kUnidentified = "refused (mechanism not identified from the error)";

Row mem_row(const Facts& f, const Record* r, const RunResult& run) {
  uint64_t cap = memory_cap(f);
  Row row = base_row("allocate " + policy::format_size(hog_bytes(f)) + " in one process" +
                         (cap ? " (cap " + policy::format_size(cap) + ")" : " (no cap)"),
                     r, run);
  if (row.outcome == Outcome::killed) {
    row.stopped_by = f.memory_limit ? "memory cgroup limit " + policy::format_size(f.memory_limit) + ": OOM kill"
                                    : "killed (OOM)";
  } else if (row.outcome == Outcome::denied) {
    if (has(row.detail, "out of memory") || has(row.detail, "memory exhausted") || has(row.detail, "Cannot allocate"))
      row.stopped_by = f.address_space
                           ? join({"RLIMIT_AS " + policy::format_size(f.address_space) + ": the mmap is refused",
                                   f.memory_limit ? "memory cgroup " + policy::format_size(f.memory_limit) + " behind it"
                                                  : ""})
                           : "memory cgroup limit (allocation refused)";
    else
      row.stopped_by = kUnidentified;
  }
  return row;
}

Row fork_row(const Facts& f, const RunResult& run) {
  auto recs = parse_records(run.out);
  int want = fork_attempts(f);
  Row row;
  row.attempt = "fork past the pids limit (" + (f.pids_limit ? std::to_string(f.pids_limit) : std::string("none")) +
                ": start " + std::to_string(want) + " children)";
  const Record* started = find_record(recs, "fork-started");
  const Record* all = find_record(recs, "fork-all");
  const Record* events = find_record(recs, "fork-events");
  int n = started ? std::atoi(started->value.c_str()) : 0;
  if (all) {
    row.outcome = Outcome::allowed;
    row.detail = "all " + all->value + " children started";
    return row;
  }
  bool eagain = has(run.err, "can't fork") || has(run.err, "Resource temporarily unavailable");
  if (!eagain) {
    row.outcome = Outcome::no_result;
    row.detail = "the attempt did not finish (container exit " + std::to_string(run.exit_code) + ": " +
                 flat(run.err).substr(0, 200) + ")";
    return row;
  }
  row.outcome = Outcome::denied;
  row.detail = "process " + std::to_string(n + 2) + " refused (" + std::to_string(1 + n) +
               " ran): can't fork: Resource temporarily unavailable";
  std::string ev = events ? events->value : "unknown";
  std::string lim = std::to_string(f.pids_limit);
  if (ev == "0" && f.nproc)
    row.stopped_by = "RLIMIT_NPROC " + lim + " (the throwaway uid's count); pids cgroup " + lim + " behind it";
  else if (ev != "unknown" && ev != "0")
    row.stopped_by = "pids cgroup limit " + lim + " (pids.events max " + ev + ")";
  else
    row.stopped_by = join({f.nproc ? "RLIMIT_NPROC " + lim : "", f.pids_limit ? "pids cgroup limit " + lim : ""});
  if (row.stopped_by.empty()) row.stopped_by = kUnidentified;
  return row;
}

Row net_row(const Facts& f, std::string attempt, const Record* r, const RunResult& run) {
  Row row = base_row(std::move(attempt), r, run);
  if (row.outcome != Outcome::denied) return row;
  std::string netns = f.network == "host" ? "" : "behind it: empty netns (only lo)";
  if (has(row.detail, "socket: Operation not permitted"))
    row.stopped_by = join({f.seccomp_denies("socket") ? "seccomp: socket() not allowed"
                                                      : "socket() refused (EPERM)",
                           netns});
  else if (has(row.detail, "Permission denied") && f.landlock_tcp())
    row.stopped_by = join({"Landlock: connect only to listed ports (EACCES)", netns});
  else if (has(row.detail, "Network is unreachable"))
    row.stopped_by = "network namespace: only lo, down (ENETUNREACH)";
  else if (has(row.detail, "Connection refused"))
    row.stopped_by = "network namespace: nothing listens in here (the host is outside)";
  else if (has(row.detail, "timed out") || has(row.detail, "Timeout"))
    row.stopped_by = "network namespace: no route out (timed out)";
  else
    row.stopped_by = kUnidentified;
  return row;
}

Row write_row(const Facts& f, std::string attempt, const Record* r, const RunResult& run, bool procsys) {
  Row row = base_row(std::move(attempt), r, run);
  if (row.outcome != Outcome::denied) return row;
  if (has(row.detail, "Read-only file system"))
    row.stopped_by = procsys ? "read-only /proc/sys (readonlyPaths, mount namespace)"
                             : (f.readonly_root ? "read-only root filesystem (mount namespace)"
                                                : "read-only mount (mount namespace)");
  else if (has(row.detail, "Permission denied"))
    row.stopped_by = f.ephemeral_uid ? "file permissions: the throwaway uid owns nothing" : "file permissions";
  else
    row.stopped_by = kUnidentified;
  return row;
}

Row eperm_row(std::string attempt, const Record* r, const RunResult& run, std::vector<std::string> mechanisms) {
  Row row = base_row(std::move(attempt), r, run);
  if (row.outcome != Outcome::denied) return row;
  if (has(row.detail, "Operation not permitted") || has(row.detail, "permission denied") ||
      has(row.detail, "Permission denied"))
    row.stopped_by = join(mechanisms);
  if (row.stopped_by.empty()) row.stopped_by = kUnidentified;
  return row;
}

Row clock_row(const Facts& f, const RunResult& run, uint64_t secs) {
  auto recs = parse_records(run.out);
  Row row;
  std::string policy_says = f.wall_clock ? std::to_string(f.wall_clock) + " s" : "none";
  row.attempt = "outlive the wall clock (" + std::to_string(secs) + " s; every signal trapped)";
  char took[32];
  std::snprintf(took, sizeof took, "%.1f", run.seconds);
  if (find_record(recs, "clock-survived") || run.exit_code == 0) {
    row.outcome = Outcome::allowed;
    row.detail = std::string("still running after ") + took + " s";
    return row;
  }
  if (!find_record(recs, "clock-trapped")) {
    row.outcome = Outcome::no_result;
    row.detail = "the container did not start its attempt (exit " + std::to_string(run.exit_code) + ": " +
                 flat(run.err).substr(0, 200) + ")";
    return row;
  }
  // Judged by what the watchdog recorded in its own clock, from the container's start: on a slow
  // host (a guest under TCG at load 20) reaping and tearing down after the kill, and starting
  // four containers at once before it, take seconds that are not the watchdog's.
  std::string limits = "limit " + std::to_string(secs) + " s for this run; the policy's own: " + policy_says;
  if (run.exit_code != 137) {
    row.outcome = Outcome::allowed;
    row.detail = "ended with exit " + std::to_string(run.exit_code) + " after " + took + " s (expected SIGKILL at " +
                 std::to_string(secs) + " s)";
    return row;
  }
  if (!run.fired) {
    row.outcome = Outcome::no_result;
    row.detail = std::string("SIGKILL after ") + took + " s, but the watchdog recorded no firing" +
                 (run.fired_error.empty() ? "" : " (" + run.fired_error + ")") + ": not the wall clock's kill";
    return row;
  }
  char at[32];
  std::snprintf(at, sizeof at, "%.2f", run.fired->fired_after_seconds());
  if (run.fired->fired_after_seconds() > double(secs) + kWatchdogLateness) {
    row.outcome = Outcome::allowed;
    row.detail = std::string("the watchdog fired late: ") + at + " s after the container started (" + limits + ")";
    return row;
  }
  row.outcome = Outcome::killed;
  row.detail = std::string("SIGKILL from the watchdog ") + at + " s after the container started (`run` returned after " +
               took + " s), though it ignored every catchable signal (" + limits + ")";
  row.stopped_by = "the runtime's watchdog: SIGKILL to the container's cgroup at the limit";
  return row;
}

}  // namespace

std::vector<Row> rows_from(const Facts& f, const RunResult& main_run, const RunResult& fork_run,
                           const RunResult& clock_run, uint64_t clock_seconds, int host_accepts) {
  auto recs = parse_records(main_run.out);
  auto rec = [&](const char* k) { return find_record(recs, k); };
  std::string caps = f.no_capabilities ? "no capabilities (bounding set empty)" : "";
  std::vector<Row> rows;

  rows.push_back(mem_row(f, rec("mem"), main_run));
  rows.push_back(fork_row(f, fork_run));

  Row host = net_row(f, "reach the host's listener (127.0.0.1)", rec("net-host"), main_run);
  if (host_accepts > 0) {
    host.outcome = Outcome::allowed;
    host.detail = "the host's listener accepted " + std::to_string(host_accepts) + " connection(s)";
    host.stopped_by.clear();
  }
  rows.push_back(std::move(host));
  rows.push_back(net_row(f, "connect to the outside (1.1.1.1:80)", rec("net-out"), main_run));
  std::string listed;
  for (auto p : f.connect_ports) listed += (listed.empty() ? "" : " ") + std::to_string(p);
  Row port = net_row(f, "connect to a port not listed (127.0.0.1:" + std::to_string(kUnlistedPort) + ")", rec("net-port"),
                     main_run);
  if (port.outcome == Outcome::denied && f.ports && !f.landlock_tcp()) {
    std::string abi = "Landlock ABI " + std::to_string(f.landlock_abi);
    port.stopped_by = join({port.stopped_by, f.tcp_stand_in.empty()
                                                 ? "no Landlock TCP rules on this kernel (" + abi + ")"
                                                 : "Landlock TCP rules (ABI 4) stood in for by " + f.tcp_stand_in +
                                                       " on this kernel (" + abi + ")"});
  } else if (port.outcome == Outcome::denied && f.ports) {
    std::string ll = "Landlock: connect only to [" + listed + "]";
    port.stopped_by = has(port.detail, "Permission denied") ? ll + " (EACCES)" : join({port.stopped_by, "behind it: " + ll});
  }
  rows.push_back(std::move(port));
  add_egress_rows(f, recs, rows);

  rows.push_back(write_row(f, "write to / (create /hostile)", rec("write-root"), main_run, false));
  rows.push_back(write_row(f, "write to /etc (create /etc/hostile)", rec("write-etc"), main_run, false));
  rows.push_back(write_row(f, "write a kernel setting (/proc/sys/kernel/hostname)", rec("write-procsys"), main_run,
                           true));

  Row secret = base_row("read a file outside the rules (/srv/secret)", rec("read-secret"), main_run);
  if (secret.outcome == Outcome::denied)
    secret.stopped_by = has(secret.detail, "Permission denied") && f.landlock_files
                            ? "Landlock: no files rule covers /srv (EACCES)"
                            : kUnidentified;
  rows.push_back(std::move(secret));

  Row exec = base_row("run a dropped binary (busybox copied to /tmp/true)", rec("exec-tmp"), main_run);
  if (exec.outcome == Outcome::denied)
    exec.stopped_by = !has(exec.detail, "Permission denied") ? kUnidentified
                      : f.exec_allowlist ? "exec allowlist: Landlock execute only on pinned files; noexec on /tmp"
                      : f.tmp_noexec     ? "noexec on the writable tmpfs /tmp"
                                         : "no execute right (noexec mount)";
  if (const Record* r = rec("exec-tmp"); r && r->value == "cp") {
    exec.outcome = Outcome::no_result;
    exec.detail = r->detail;
  }
  rows.push_back(std::move(exec));

  rows.push_back(eperm_row("use a capability (chown a file to root)", rec("chown"), main_run,
                           {f.no_capabilities ? "no CAP_CHOWN (capability sets empty)" : f.lacks_cap("CAP_CHOWN") ? "no CAP_CHOWN" : "",
                            seccomp_part(f, {"chown", "fchownat", "lchown", "fchown"})}));
  rows.push_back(eperm_row("raise capabilities (setpriv +sys_admin)", rec("caps"), main_run,
                           {f.seccomp_denies("capget") && f.seccomp_denies("capset") ? "seccomp: capget()/capset() not allowed"
                            : seccomp_part(f, {"capset"}),
                            f.no_capabilities            ? "empty capability sets"
                            : f.lacks_cap("CAP_SYS_ADMIN") ? "CAP_SYS_ADMIN not in the bounding set"
                                                           : ""}));
  rows.push_back(eperm_row("become root in a user namespace (unshare -U -r)", rec("userns"), main_run,
                           {f.seccomp ? (f.seccomp_denies("unshare") ? "seccomp: unshare() not allowed"
                                                                      : "seccomp: unshare() only without CLONE_NEW*")
                                      : "",
                            caps}));
  rows.push_back(eperm_row("mount a file system (mount -t tmpfs)", rec("mount"), main_run,
                           {seccomp_part(f, {"mount"}), f.lacks_cap("CAP_SYS_ADMIN") ? "no CAP_SYS_ADMIN" : ""}));
  rows.push_back(eperm_row("make new namespaces (unshare -m -n)", rec("unshare"), main_run,
                           {f.seccomp ? (f.seccomp_denies("unshare") ? "seccomp: unshare() not allowed"
                                                                      : "seccomp: unshare() only without CLONE_NEW*")
                                      : "",
                            f.lacks_cap("CAP_SYS_ADMIN") ? "no CAP_SYS_ADMIN" : ""}));
  rows.push_back(eperm_row("enter a namespace (nsenter: setns)", rec("setns"), main_run,
                           {seccomp_part(f, {"setns"}), f.lacks_cap("CAP_SYS_ADMIN") ? "no CAP_SYS_ADMIN" : ""}));

  Row kill = base_row("signal a host process (kill -9 hello's host pid)", rec("kill-host"), main_run);
  if (kill.outcome == Outcome::denied)
    kill.stopped_by = has(kill.detail, "No such process") ? "pid namespace: the host pid does not exist in here"
                      : has(kill.detail, "not permitted")  ? "not the owner (throwaway uid)"
                                                           : kUnidentified;
  if (kill.outcome == Outcome::denied && f.scope_signal && !f.landlock_signal() && has(kill.detail, "No such process"))
    kill.stopped_by += " (standing in for Landlock's signal scope, ABI 6, on this kernel's ABI " +
                       std::to_string(f.landlock_abi) + ")";
  rows.push_back(std::move(kill));

  Row sig = base_row("signal init from exec (another Landlock domain)", rec("signal-domain"),
                     main_run);
  if (f.scope_signal && !f.landlock_signal()) {
    // Nothing on this kernel keeps init and an exec'd process apart (same pid namespace, same
    // uid), and nothing need: both are the container's. What the scope adds over the pid
    // namespace is only that, so the attempt is not made here.
    sig.outcome = Outcome::not_attempted;
    sig.detail = "this kernel has Landlock ABI " + std::to_string(f.landlock_abi) +
                 ": no signal scope (ABI 6, Linux 6.12), so an exec'd process and init, both inside the container, "
                 "are not kept apart";
    sig.stopped_by = f.signal_stand_in.empty()
                         ? "(signals leaving the container: nothing stands in on this kernel)"
                         : "signals leaving the container: held by " + f.signal_stand_in + " (\"signal a host process\")";
  } else if (sig.outcome == Outcome::denied)
    sig.stopped_by = has(sig.detail, "not permitted") && f.scope_signal
                         ? "Landlock scope signal: init is outside the exec'd process's domain"
                         : kUnidentified;
  rows.push_back(std::move(sig));

  rows.push_back(clock_row(f, clock_run, clock_seconds));

  if (const Record* m = rec("memfd")) {
    Row r = base_row("run a binary from a memfd (memfd_create + fexecve)", m, main_run);
    std::string behind = f.exec_allowlist && f.memfd_noexec ? "vm.memfd_noexec=2 in the container's pid namespace" : "";
    if (r.outcome == Outcome::denied)
      r.stopped_by = has(r.detail, "memfd_create errno 1 EPERM") && f.seccomp_denies("memfd_create")
                         ? join({"seccomp: memfd_create() not allowed", behind.empty() ? "" : "behind it: " + behind})
                     : has(r.detail, "memfd-exec errno 13") && f.exec_allowlist ? behind + " (EACCES)"
                                                                                : kUnidentified;
    rows.push_back(std::move(r));
  } else {
    Row r;
    r.attempt = "run a binary from a memfd (memfd_create + fexecve)";
    r.outcome = Outcome::not_attempted;
    r.detail = "no tool in busybox makes memfd_create, and no landlock-probe was found next to this binary";
    r.stopped_by = join({f.seccomp_denies("memfd_create") ? "would meet: seccomp, memfd_create() not allowed" : "",
                         f.exec_allowlist && f.memfd_noexec ? "vm.memfd_noexec=2 in the container's pid namespace (EACCES)"
                                                            : ""});
    if (r.stopped_by.empty()) r.stopped_by = "(nothing in this policy refuses it)";
    rows.push_back(std::move(r));
  }
  for (const char* name : kNoTool) {
    Row r;
    r.attempt = std::string("call ") + name + "()";
    r.outcome = Outcome::not_attempted;
    r.detail = "no tool in busybox makes this syscall";
    r.stopped_by = !f.seccomp                ? "(no seccomp filter in this policy)"
                   : f.seccomp_denies(name) ? std::string("would meet: seccomp, ") + name + "() not allowed"
                                            : std::string("(") + name + "() IS in the policy's allowlist)";
    rows.push_back(std::move(r));
  }

  for (auto& r : rows) {
    if (r.held())
      r.kind = r.stopped_by.starts_with("the runtime's watchdog") ? "Boundary (watchdog)" : "Boundary";
    else
      r.kind = "-";
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The table

std::string fit(const std::string& s, size_t w) {
  if (s.size() <= w) return s + std::string(w - s.size(), ' ');
  return s.substr(0, w - 3) + "...";
}

std::string format_table(const std::vector<Row>& rows) {
  // One line per attempt (what, outcome, mechanism, kind), the error seen indented below it.
  constexpr size_t kA = kAttemptWidth, kO = 13, kS = 72;
  std::string out = fit("ATTEMPT", kA) + "  " + fit("OUTCOME", kO) + "  " + fit("STOPPED BY", kS) + "  KIND\n";
  for (auto& r : rows) {
    out += fit(r.attempt, kA) + "  " + fit(outcome_name(r.outcome), kO) + "  " +
           fit(r.stopped_by.empty() ? "-" : r.stopped_by, kS) + "  " + r.kind + "\n";
    if (!r.detail.empty())
      out += std::string("    ") + (r.outcome == Outcome::not_attempted ? "why: " : "seen: ") + r.detail + "\n";
    // What the column cut off (a stand-in's name, on older kernels) is said in full below it.
    if (r.stopped_by.size() > kS) out += "    stopped by: " + r.stopped_by + "\n";
  }
  return out;
}

std::string format_summary(const std::vector<Row>& rows) {
  int attempted = 0, held = 0, not_attempted = 0;
  for (auto& r : rows) {
    if (!r.attempted()) {
      ++not_attempted;
      continue;
    }
    ++attempted;
    if (r.held()) ++held;
  }
  std::string s = std::to_string(held) + " of " + std::to_string(attempted) + " attempts held";
  if (held != attempted) s += ", " + std::to_string(attempted - held) + " NOT held";
  if (not_attempted) s += "; " + std::to_string(not_attempted) + " not attempted (no tool in busybox)";
  s += ".\n";
  s += "Boundary: applied to the process from above by the runtime before execve (the wall clock: enforced from\n"
       "outside by the runtime's watchdog), so the process cannot undo or skip it. A Setting would be a limit the\n"
       "process applied to itself: none of these is one.\n";
  return s;
}

int exit_code(const std::vector<Row>& rows) {
  for (auto& r : rows)
    if (r.attempted() && !r.held()) return 1;
  return 0;
}

bool never_started(const RunResult& r) {
  return parse_records(r.out).empty() && r.exit_code != 0 && r.exit_code != 137 && !r.err.empty();
}

std::string format_not_started(const std::vector<Unstarted>& failed, size_t containers, const std::string& policy_path) {
  std::string out = std::to_string(failed.size()) + " of " + std::to_string(containers) +
                    " containers could not start, so their attempts were never made: no verdict " +
                    "(an attempt that never ran is neither held nor not held)\n";
  bool stale_pin = false, other = false;
  // The same refusal for every container is said once: the message of the last logfmt error
  // line (time="..." level=error msg="..."; warnings before it left out) without its time, else
  // the text as it came.
  std::vector<std::pair<std::string, std::string>> by_error;  // error, containers
  for (const auto& f : failed) {
    std::string err = flat(f.error);
    for (size_t at = 0; at < f.error.size();) {
      size_t end = f.error.find('\n', at);
      std::string_view line = std::string_view(f.error).substr(at, end == std::string::npos ? end : end - at);
      if (size_t m = line.find("msg=\""); m != std::string::npos && line.starts_with("time=") &&
                                           line.find(" level=error ") != std::string_view::npos) {
        // msg is a JSON string literal (base/log): read it as one, escapes and all.
        auto doc = json::Document::parse(line.substr(m + 4), "log");
        auto text = doc ? doc->root().as_string() : Result<std::string>(fail("not a string"));
        if (text) err = flat(*text);
      }
      if (end == std::string::npos) break;
      at = end + 1;
    }
    (has(err, "exec allowlist:") && has(err, "the policy pins") ? stale_pin : other) = true;
    auto it = std::ranges::find(by_error, err, &std::pair<std::string, std::string>::first);
    if (it == by_error.end()) by_error.push_back({err, "\"" + f.container + "\""});
    else it->second += ", \"" + f.container + "\"";
  }
  for (const auto& [err, names] : by_error) out += "  " + names + ": " + err + "\n";
  out += "what to do:\n";
  if (stale_pin)
    out += "  the policy's exec pins do not match the busybox these containers run (hello copies the host's).\n"
           "  If this build is the one to trust, pin it into a copy of the policy and run hello under that:\n"
           "    sharness-runtime policy pin --rootfs / " + policy_path + " --out /tmp/pinned.json\n"
           "    sharness-runtime hello --policy /tmp/pinned.json\n"
           "  (for a bundle: sharness-runtime policy pin --bundle BUNDLE " + policy_path + " --out FILE; "
           "docs/policy.md \"Refreshing pins\")\n";
  if (other) out += "  fix what the runtime's error above names, then run hello again.\n";
  return out;
}

std::string kms_section(const policy::Policy& p, const policy::HostProbe& host) {
  if (!p.secrets)
    return "KMS: none (policy " + p.id + " has no \"secrets\" section: the containers can ask no KMS for keys)\n";
  const auto& s = *p.secrets;
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  std::string out = "KMS: a sharness-kms sidecar per container (policy " + p.id + " \"secrets\")\n";
  const std::string keys = "keys derived (HKDF-SHA256) for vaults [" + list(s.vaults) + "], hosts [" + list(s.hosts) +
                           "], operations [" + list(s.operations) + "], each for at most " + std::to_string(s.ttl) +
                           " s, sealed to its one-time X25519 key, over mTLS as role " + p.mesh.role.value_or("(none)");
  if (s.workload_may_ask)
    out += "  the workload may ask for: " + keys + " (secrets.workloadMayAsk)\n";
  else
    out += "  the workload may ask for nothing itself (secrets.workloadMayAsk is false): the KMS answers only the "
           "container's egress door; with workloadMayAsk it could ask for " + keys + "\n";
  out += "  the master keys are elsewhere: never in the container; in the KMS worker, which runs under its own "
         "throwaway uid (2000065536+), in empty network, pid, mount and ipc namespaces, no capabilities, "
         "not dumpable, its cgroup frozen between calls\n";
  for (const auto& b : policy::explain(p, host))
    if (b.mechanism.starts_with("secrets:")) {
      out += std::string("  secret pages: ") + (b.available ? "" : "MISSING: ") +
             (host.memfd_secret ? "memfd_secret (out of the kernel's direct map: root cannot read them via /proc/<pid>/mem)"
                                : b.note) +
             "\n";
    }
  return out;
}

std::vector<std::string> policy_candidates(const std::vector<std::string>& policy_dirs, const std::string& exe_path,
                                           const std::string& file) {
  std::vector<std::string> out;
  for (auto& d : policy_dirs) out.push_back((fs::path(d) / file).lexically_normal().string());
  fs::path bin = fs::path(exe_path).parent_path();
  out.push_back((bin / ".." / "share" / "sharness" / "policies" / file).lexically_normal().string());
  out.push_back((bin / ".." / "policies" / file).lexically_normal().string());
  out.push_back((bin / ".." / ".." / "policies" / file).lexically_normal().string());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running it

namespace detail {

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

Result<std::string> self_exe() { return sealed_exe::binary_path(); }

// The shipped profiles hello may find beside the binary when no policy dir holds them.
bool is_shipped(const std::string& file) {
  return file == "harsh.json" || file == "python3.json" || file == "node.json" || file == "sh.json";
}

Result<std::string> resolve_policy(const std::string& name, const RuntimeConfig& rc, const std::string& exe) {
  std::vector<std::string> tried;
  if (!name.empty() && name.find('/') != std::string::npos) {
    std::error_code ec;
    auto abs = fs::absolute(name, ec);
    return ec ? name : abs.lexically_normal().string();
  }
  if (!name.empty()) {
    std::string file = name.ends_with(".json") ? name : name + ".json";
    for (auto& d : rc.policy_dirs) {
      std::string p = d + "/" + file;
      if (exists(p)) return p;
      tried.push_back(p);
    }
    if (!is_shipped(file))
      return fail("hello: policy \"" + name + "\" not found (looked in the policy dirs: " +
                  (tried.empty() ? std::string("none") : tried.front()) + ")");
  }
  const std::string file = name.empty() ? "harsh.json" : name.ends_with(".json") ? name : name + ".json";
  for (auto& p : policy_candidates(rc.policy_dirs, exe, file)) {
    if (exists(p)) return p;
    tried.push_back(p);
  }
  std::string list;
  for (auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  return fail("hello: no " + file + " found (tried " + list + "); name one with --policy FILE");
}

std::string busybox_path() {
  if (const char* b = ::getenv("BUSYBOX"); b && *b) return b;
  for (const char* p : {"/bin/busybox", "/usr/bin/busybox"})
    if (exists(p)) return p;
  return "/bin/busybox";
}

const char* const kApplets[] = {"sh", "cat", "chown", "cp", "dd", "echo", "id", "kill", "nc", "nsenter",
                                "mount", "seq", "setpriv", "sleep", "touch", "true", "unshare"};

Result<void> make_rootfs(const std::string& rootfs) {
  for (const char* d : {"", "/bin", "/etc", "/proc", "/sys", "/dev", "/tmp", "/root", "/srv"})
    if (::mkdir((rootfs + d).c_str(), 0755) < 0 && errno != EEXIST) return sys_error("mkdir " + rootfs + d);
  ::chmod((rootfs + "/tmp").c_str(), 01777);
  ::chmod((rootfs + "/root").c_str(), 0700);
  std::string bb = busybox_path();
  std::string bin = TRYC("hello: the static busybox (apt-get install busybox-static)", read_file(bb));
  TRYV(write_file(rootfs + "/bin/busybox", bin, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755));
  for (const char* a : kApplets)
    if (::symlink("busybox", (rootfs + "/bin/" + a).c_str()) < 0 && errno != EEXIST)
      return sys_error(std::string("symlink bin/") + a);
  TRYV(write_file(rootfs + "/etc/passwd",
                  "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  TRYV(write_file(rootfs + "/etc/group", "root:x:0:\nnogroup:x:65534:\n", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0644));
  // Readable by anyone as far as file modes go: only a Landlock files rule can keep it out.
  TRYV(write_file(rootfs + "/srv/secret", "hello-secret\n", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  return {};
}

// Our own `spec` (runc's defaults), running `sh -c script` on a writable root with stdio passed
// through, in the given cgroup, with the policy annotation if any.
Result<std::string> config_json(const std::string& rootfs, const std::string& script, const std::string& cgroups_path,
                                const std::vector<std::string>& env, const std::string& annotation) {
  oci::Config c = TRY(oci::parse_config(oci::default_spec_json(false), "default spec"));
  c.process->terminal = false;
  c.process->args = {"sh", "-c", script};
  c.process->env = env;
  c.root = {rootfs, false};
  c.hostname = "sharness-hello";
  c.linux.cgroups_path = cgroups_path;
  if (!annotation.empty()) c.annotations["org.sharness.policy"] = annotation;
  return oci::config_to_json(c, true);
}

// Start argv[0] with stdin /dev/null, stdout and stderr to files, and no other fd.
Result<pid_t> spawn(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  Fd in = TRY(open_file("/dev/null", O_RDONLY | O_CLOEXEC));
  Fd o = TRY(open_file(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  Fd e = TRY(open_file(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  std::vector<char*> av;
  for (auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork");
  if (pid == 0) {
    if (::dup2(in.get(), 0) < 0 || ::dup2(o.get(), 1) < 0 || ::dup2(e.get(), 2) < 0) _exit(127);
    ::syscall(SYS_close_range, 3u, ~0u, 0u);  // nothing of ours reaches the runtime or the container
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);  // hello ignores it (see run); an ignored signal survives execve
    ::execv(av[0], av.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

Result<Job> start_job(const std::vector<std::string>& base, const std::string& bundle, const std::string& id,
                      const std::string& dir, bool keep) {
  Job j;
  j.id = id;
  j.out = dir + "/" + id + ".out";
  j.err = dir + "/" + id + ".err";
  std::vector<std::string> argv = base;
  argv.push_back("run");
  if (keep) argv.push_back("--keep");
  argv.push_back("--bundle");
  argv.push_back(bundle);
  argv.push_back(id);
  j.t0 = Clock::now();
  j.pid = TRY(spawn(argv, j.out, j.err));
  return j;
}

RunResult finish_job(const Job& j) {
  RunResult r;
  r.exit_code = wait_exit(j.pid);
  r.seconds = std::chrono::duration<double>(Clock::now() - j.t0).count();
  r.out = read_file(j.out).value_or("");
  r.err = read_file(j.err).value_or("");
  return r;
}

// The wall-clock container's end, as its watchdog recorded it in the state `run --keep` left;
// then the container is deleted.
void read_watchdog_record(const std::vector<std::string>& base, const std::string& state, const std::string& id,
                          RunResult& r) {
  auto dir = Store(state).open(id, Lock::none);
  auto fired = dir ? read_watchdog_fired(*dir) : fail(dir.error());
  if (fired)
    r.fired = *fired;
  else
    r.fired_error = fired.error().what();
  std::vector<std::string> argv = base;
  for (const char* a : {"delete", id.c_str()}) argv.push_back(a);
  if (auto pid = spawn(argv, "/dev/null", "/dev/null")) wait_exit(*pid);
}

// A listening TCP socket on the host's 127.0.0.1, to see whether anything inside reaches it.
struct Listener {
  Fd fd;
  int port = 0;
};

Result<Listener> listen_loopback() {
  Listener l;
  l.fd = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!l.fd) return sys_error("hello: socket");
  struct sockaddr_in a {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(l.fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return sys_error("hello: bind 127.0.0.1");
  if (::listen(l.fd.get(), 8) < 0) return sys_error("hello: listen");
  socklen_t len = sizeof a;
  if (::getsockname(l.fd.get(), reinterpret_cast<sockaddr*>(&a), &len) < 0) return sys_error("hello: getsockname");
  l.port = ntohs(a.sin_port);
  return l;
}

int accepted(const Listener& l) {
  int n = 0;
  for (;;) {
    int c = ::accept4(l.fd.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (c < 0) break;
    ::close(c);
    ++n;
  }
  return n;
}

// Everything made for this run, removed in the destructor.
Result<void> Scratch::make(const std::string& binary, bool keep_it) {
  exe = binary;
  keep = keep_it;
  const char* tmpdir = ::getenv("TMPDIR");
  std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/sharness-hello.XXXXXX";
  if (!::mkdtemp(tmpl.data())) return sys_error("hello: mkdtemp " + tmpl);
  dir = tmpl;
  ::chmod(dir.c_str(), 0755);
  state = dir + "/state";
  cgparent = "sharness-hello-" + std::to_string(::getpid());
  if (::mkdir(state.c_str(), 0700) < 0) return sys_error("hello: mkdir " + state);
  return {};
}

Scratch::~Scratch() {
  if (dir.empty()) return;
  for (auto& id : ids) {  // `run` deletes its container; this is for a run that failed half-way
    auto pid = spawn({exe, "--root", state, "delete", "--force", id}, "/dev/null", "/dev/null");
    if (pid) wait_exit(*pid);
  }
  std::error_code ec;
  for (auto& e : fs::directory_iterator("/sys/fs/cgroup", ec))
    for (const auto& cg : {cgparent, cgparent + "-kms"}) ::rmdir((e.path() / cg).c_str());
  for (const auto& cg : {cgparent, cgparent + "-kms"}) ::rmdir(("/sys/fs/cgroup/" + cg).c_str());
  if (keep) {
    std::fprintf(stderr, "hello: kept %s\n", dir.c_str());
    return;
  }
  fs::remove_all(dir, ec);
}

// The watchdogs are double-forked; as a child subreaper, hello inherits and reaps them.
void reap_all(std::chrono::milliseconds budget) {
  auto until = Clock::now() + budget;
  for (;;) {
    pid_t r = ::waitpid(-1, nullptr, WNOHANG);
    if (r > 0) continue;
    if (r < 0) return;  // ECHILD: nothing left
    if (Clock::now() >= until) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The static probe built with the runtime (CMake target landlock-probe): next to this binary,
// or where an install puts helpers. "" when there is none.
std::string find_probe(const std::string& exe) {
  if (const char* p = ::getenv("SHARNESS_HELLO_PROBE"); p && *p) return p;
  fs::path bin = fs::path(exe).parent_path();
  for (auto p : {bin / "landlock-probe", bin / ".." / "libexec" / "sharness" / "landlock-probe"})
    if (exists(p.string())) return p.lexically_normal().string();
  return "";
}

// The memfd attempt runs the probe, which is not busybox: under a policy with an exec
// allowlist it must be pinned, so that the attempt is the memfd, not the probe's own execve.
// The floor for that one container is the policy plus this one pin (said in the row).
Result<std::string> probe_policy(const policy::Policy& pol, const std::string& probe_in_rootfs, const std::string& dir) {
  policy::Policy p = pol;
  if (p.exec) {
    Fd fd = TRY(open_file(probe_in_rootfs, O_RDONLY | O_CLOEXEC));
    std::string hash = TRY(exec_allowlist::sha256_fd(fd.get(), probe_in_rootfs));
    p.exec->push_back(policy::Pin{"/bin/probe", hash});
    std::ranges::sort(*p.exec, {}, &policy::Pin::path);
  }
  std::string path = dir + "/policies/" + pol.id + "-probe.json";
  TRYV(write_file(path, policy::policy_to_json(p, true), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  return path;
}

// From outside the container, `exec` kill -0 of its init: the exec'd process gets a Landlock
// domain of its own, so with the signal scope init is outside it. Returns the record line
// ("" when the container never ran: the row then says NO RESULT).
std::string signal_attempt(const std::vector<std::string>& base, const std::string& id, const std::string& dir) {
  std::vector<std::string> state = {base[0], base[1], base[2], "state", id};
  bool running = false;
  for (int i = 0; i < 100 && !running; ++i) {
    auto pid = spawn(state, dir + "/state.out", "/dev/null");
    if (pid && wait_exit(*pid) == 0) running = read_file(dir + "/state.out").value_or("").find("\"running\"") != std::string::npos;
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!running) return "";
  std::vector<std::string> argv = base;
  for (const char* a : {"exec", id.c_str(), "kill", "-0", "1"}) argv.push_back(a);
  auto pid = spawn(argv, dir + "/signal.out", dir + "/signal.err");
  if (!pid) return "";
  int rc = wait_exit(*pid);
  std::string err = read_file(dir + "/signal.err").value_or("");
  for (auto& c : err)
    if (c == '\n') c = ' ';
  return "@@signal-domain|" + std::to_string(rc) + "|" + err + "\n";
}

// `sharness-kms seal` with no key files: a new KEK, and fresh random master keys nobody sees.
Result<void> seal_throwaway_vault(const policy::SecretsPolicy& sp, const std::string& kek_path, const std::string& vault) {
  std::vector<std::string> args = {"seal", "--kek", kek_path, "--out", vault};
  args.insert(args.end(), sp.vaults.begin(), sp.vaults.end());
  TRYVC("hello: seal a throwaway vault", hooks::run_helper(TRY(sealed_exe::sibling("sharness-kms")), args));
  return {};
}

}  // namespace detail

using namespace detail;

Result<int> run(const Globals& g, const Options& o) {
  if (::geteuid() != 0) return fail("hello: needs root (containers need namespaces and cgroups here)");
  if (o.clock_seconds == 0 || o.clock_seconds > 60) return fail("hello: --wall-clock must be 1..60 seconds");
  std::string exe = TRY(self_exe());
  RuntimeConfig rc = TRY(load_runtime_config(g.config_path.empty() ? kDefaultRuntimeConfig : g.config_path,
                                             !g.config_path.empty()));
  std::string policy_path = TRY(resolve_policy(o.policy.empty() ? g.policy : o.policy, rc, exe));
  policy::Policy pol = TRY(policy::load_policy(policy_path));
  Facts facts = TRY(facts_of(pol, host::probe()));

  // A reader that goes away (`hello | head`) must not kill hello before it cleans up.
  ::signal(SIGPIPE, SIG_IGN);
  Scratch s;
  TRYV(s.make(exe, o.keep));
  std::string rootfs = s.dir + "/rootfs";
  TRYV(make_rootfs(rootfs));

  // The short wall clock: a client policy, named by annotation, that tightens the floor.
  std::string pdir = s.dir + "/policies";
  if (::mkdir(pdir.c_str(), 0755) < 0) return sys_error("hello: mkdir " + pdir);
  TRYV(write_file(pdir + "/hello-clock.json",
                  "{\"id\": \"hello-clock\", \"version\": 1, \"wallClock\": {\"seconds\": " +
                      std::to_string(o.clock_seconds) + "}}\n",
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  std::string rconf = s.dir + "/runtime.json";
  {
    json::Writer w;
    w.begin_object().kv("policyDirs", std::vector<std::string>{pdir});
    if (pol.secrets) {
      // Each container runs a real KMS: a throwaway KEK, and a vault with fresh random master
      // keys (nobody sees them) for the policy's vaults, and a CA of this run's own.
      TRYV(seal_throwaway_vault(*pol.secrets, s.dir + "/kek", s.dir + "/vault"));
      w.kv("caDir", s.dir + "/ca");
      w.key("kms").begin_object().kv("vault", s.dir + "/vault").kv("kek", s.dir + "/kek");
      w.kv("cgroupParent", "/" + s.cgparent + "-kms").end_object();
    }
    w.end_object();
    TRYV(write_file(rconf, w.str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  }

  Listener lis = TRY(listen_loopback());
  std::vector<std::string> env = {"PATH=/bin", "HOST_PID=" + std::to_string(::getpid()),
                                  "LPORT=" + std::to_string(lis.port)};
  std::string tag = std::to_string(::getpid());
  struct Spec {
    std::string name, script, annotation;
  };
  std::string probe = find_probe(exe);
  std::string probe_floor;
  if (!probe.empty()) {
    std::string bin = TRYC("hello: the probe " + probe, read_file(probe, 64u << 20));
    TRYV(write_file(rootfs + "/bin/probe", bin, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755));
    probe_floor = TRY(probe_policy(pol, rootfs + "/bin/probe", s.dir));
  }
  Spec specs[] = {{"clock", clock_script(), "hello-clock"}, {"main", main_script(facts), ""},
                  {"fork", fork_script(facts), ""},
                  {"memfd", "o=$(/bin/probe memfd 2>&1); echo \"@@memfd|$?|$o\"", ""}};
  for (auto& sp : specs) {
    std::string b = s.dir + "/bundle-" + sp.name;
    if (::mkdir(b.c_str(), 0755) < 0) return sys_error("hello: mkdir " + b);
    std::string id = "hello-" + tag + "-" + sp.name;
    TRYV(write_file(b + "/config.json", TRY(config_json(rootfs, sp.script, "/" + s.cgparent + "/" + id, env, sp.annotation)),
                    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    s.ids.push_back(id);
  }

  std::printf("sharness-runtime hello: what hostile code tries inside a container, and what stops it\n");
  std::printf("policy %s (hash %s), from %s\n", facts.policy_id.c_str(), facts.policy_hash.c_str(),
              policy_path.c_str());
  std::printf("%d busybox containers (the wall-clock one under %s+hello-clock, %llu s), state in %s (removed after)\n",
              probe_floor.empty() ? 3 : 4, facts.policy_id.c_str(), (unsigned long long)o.clock_seconds,
              s.state.c_str());
  if (!probe_floor.empty())
    std::printf("the memfd attempt runs /bin/probe (landlock-probe) under %s plus that one pin (%s)\n", facts.policy_id.c_str(),
                probe_floor.c_str());
  std::string kms = kms_section(pol, host::probe());
  std::fwrite(kms.data(), 1, kms.size(), stdout);
  std::printf("\n");
  std::fflush(stdout);

  int was_subreaper = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper, 0, 0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  std::vector<std::string> base = {exe, "--root", s.state, "--config", rconf, "--policy", policy_path};
  // The wall-clock container runs while the others do: the whole thing takes about its limit.
  Job clock = TRY(start_job(base, s.dir + "/bundle-clock", s.ids[0], s.dir, true));
  // Without the scope on this kernel the row says why it is not attempted (rows_from).
  std::string signal_record = facts.scope_signal && !facts.landlock_signal() ? "" : signal_attempt(base, s.ids[0], s.dir);
  RunResult main_run, fork_run, memfd_run;
  if (auto j = start_job(base, s.dir + "/bundle-main", s.ids[1], s.dir)) main_run = finish_job(*j);
  if (auto j = start_job(base, s.dir + "/bundle-fork", s.ids[2], s.dir)) fork_run = finish_job(*j);
  if (!probe_floor.empty()) {
    std::vector<std::string> with_probe = {exe, "--root", s.state, "--config", rconf, "--policy", probe_floor};
    if (auto j = start_job(with_probe, s.dir + "/bundle-memfd", s.ids[3], s.dir)) memfd_run = finish_job(*j);
  }
  RunResult clock_run = finish_job(clock);
  read_watchdog_record(base, s.state, s.ids[0], clock_run);
  int accepts = accepted(lis);
  reap_all(std::chrono::milliseconds(2000));
  if (!was_subreaper) ::prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);

  std::vector<Unstarted> unstarted;
  for (auto [name, run] : {std::pair<const char*, const RunResult*>{"clock", &clock_run}, {"main", &main_run},
                           {"fork", &fork_run}, {"memfd", probe_floor.empty() ? nullptr : &memfd_run}})
    if (run && never_started(*run)) unstarted.push_back({name, run->err});
  if (!unstarted.empty()) {
    std::string report = format_not_started(unstarted, probe_floor.empty() ? 3 : 4, policy_path);
    std::fwrite(report.data(), 1, report.size(), stdout);
    std::fflush(stdout);
    return kNotStarted;
  }
  main_run.out += signal_record + memfd_run.out;

  auto rows = rows_from(facts, main_run, fork_run, clock_run, o.clock_seconds, accepts);
  std::string table = format_table(rows) + "\n" + format_summary(rows);
  std::fwrite(table.data(), 1, table.size(), stdout);
  std::fflush(stdout);
  return exit_code(rows);
}

}  // namespace sh::lifecycle::hello
