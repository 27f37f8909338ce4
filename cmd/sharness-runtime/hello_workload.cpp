// hello --workload python3: the same kinds of attempts as hello's, each made by real Python code
// (cmd/sharness-runtime/hello.hpp says what hello is). One container on a Debian 12 image with
// python3 (--rootfs, default the cache scripts/rootfs.sh workloads fills), under the shipped python3
// profile (docs/learn.md) with its pins refreshed from that image, and a table of what held each.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <functional>
#include <cstdio>
#include <filesystem>

#include "base/fd.hpp"
#include "base/file.hpp"
#include "cmd/sharness-runtime/hello.hpp"
#include "cmd/sharness-runtime/hello_run.hpp"
#include "oci/config_write.hpp"
#include "oci/default_spec.hpp"
#include "runtime/linux/exec_allowlist.hpp"
#include "runtime/linux/host_facts.hpp"
#include "spec-mapping/pin.hpp"

namespace sh::lifecycle::hello {
namespace {

namespace fs = std::filesystem;
using namespace detail;

// The attempts, in Python: each prints "@@KEY|VALUE|DETAIL", VALUE 0 for success, else the errno's
// name or the exception's class.
constexpr const char* kAttempts = R"PY(# hello --workload python3 (cmd/sharness-runtime/hello_workload.cpp): each attempt hostile code
# makes, made by real Python code inside the container. One record per attempt on stdout,
# "@@KEY|VALUE|DETAIL": VALUE 0 when it succeeded, else the errno's name (or the exception's).
import ctypes
import errno
import os
import shutil
import socket
import subprocess
import sys

HOST_PID = int(os.environ["HOST_PID"])
FORKS = int(os.environ["FORKS"])
HOG = int(os.environ["HOG"])


def rec(key, value, detail):
    print("@@%s|%s|%s" % (key, value, str(detail).replace("\n", " ")), flush=True)


def attempt(key, fn):
    try:
        rec(key, 0, fn() or "succeeded")
    except OSError as e:
        rec(key, errno.errorcode.get(e.errno, e.errno), e)
    except Exception as e:  # MemoryError, ImportError: named by their class
        rec(key, type(e).__name__, e)


def read(path):
    with open(path, "rb") as f:
        return "read %d bytes" % len(f.read())


def write(path):
    with open(path, "w") as f:
        f.write("hostile")
    return "wrote " + path


libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def raise_errno(what):
    e = ctypes.get_errno()
    raise OSError(e, what + ": " + os.strerror(e))


def syscall(nr):
    r = libc.syscall(ctypes.c_long(nr), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    if r < 0:
        raise_errno("syscall %d" % nr)
    return "returned %d" % r


def run_written_bytes():
    p = libc.mmap(None, 4096, 3, 0x22, -1, 0)  # PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS
    if p in (None, ctypes.c_void_p(-1).value):
        raise_errno("mmap")
    code = b"\xb8\x2a\x00\x00\x00\xc3"  # mov eax, 42; ret
    ctypes.memmove(p, code, len(code))
    if libc.mprotect(p, 4096, 5) != 0:  # PROT_READ|PROT_EXEC
        raise_errno("mprotect PROT_EXEC")
    return "the written bytes ran and returned %d" % ctypes.CFUNCTYPE(ctypes.c_int)(p)()


def fork_past_limit():
    kids = []
    try:
        for _ in range(FORKS):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            kids.append(pid)
    except OSError as e:
        raise OSError(e.errno, "child %d of %d refused after %d ran: %s" % (len(kids) + 1, FORKS, len(kids), e.strerror))
    finally:
        for k in kids:
            os.waitpid(k, 0)
    return "all %d children started" % len(kids)


def exec_dropped():
    shutil.copy(sys.executable, "/tmp/dropped")
    os.chmod("/tmp/dropped", 0o755)
    sys.stdout.flush()
    os.execv("/tmp/dropped", ["dropped", "-c", "print('@@exec-tmp|0|the dropped copy ran')"])


attempt("read-shadow", lambda: read("/etc/shadow"))
attempt("read-outside", lambda: read("/var/lib/dpkg/status"))
attempt("write-srv", lambda: write("/srv/hostile"))
attempt("write-etc", lambda: write("/etc/hostile"))
attempt("subprocess-sh", lambda: "ran: " + subprocess.run(["/bin/sh", "-c", "echo sh"], capture_output=True, text=True).stdout)
attempt("mmap-exec", run_written_bytes)
attempt("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM) and "made a TCP socket")
attempt("kill-host", lambda: os.kill(HOST_PID, 9))
attempt("fork", fork_past_limit)
attempt("alloc", lambda: "allocated %d bytes" % len(bytearray(HOG)))
for name, nr in (("ptrace", 101), ("bpf", 321), ("keyctl", 250), ("io_uring_setup", 425), ("userfaultfd", 323)):
    attempt(name, lambda nr=nr: syscall(nr))
attempt("exec-tmp", exec_dropped)  # last: if it works, this process is gone
)PY";

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// A row from the attempt's record: held when it failed, with `why(value)` naming the bound.
Row make_row(const std::vector<Record>& recs, const RunResult& run, std::string attempt, const char* key,
           const std::function<std::string(const std::string& value)>& why) {
  Row row;
  row.attempt = std::move(attempt);
  const Record* r = find_record(recs, key);
  if (!r) {
    row.outcome = Outcome::no_result;
    row.detail = "the attempt did not report (container exit " + std::to_string(run.exit_code) + ")";
    return row;
  }
  row.detail = r->detail;
  if (r->value == "0") {
    row.outcome = Outcome::allowed;
    return row;
  }
  if (r->value == "ImportError" || r->value == "ModuleNotFoundError" || r->value == "NameError") {
    row.outcome = Outcome::no_result;
    row.detail = "could not try: " + row.detail;
    return row;
  }
  row.outcome = Outcome::denied;
  row.stopped_by = why(r->value);
  if (row.stopped_by.empty()) row.stopped_by = "refused (mechanism not identified from the error)";
  return row;
}

// The record the attempt `key` that failed with `v` should leave (docs/denials.md): only seccomp
// and Landlock refusals are audited, Landlock's from ABI 7 on, and a refusal an earlier check made
// (the file mode, noexec: both before Landlock's file_open hook) never reaches Landlock.
Audited audited(const Facts& f, std::string_view key, const std::string& v) {
  auto sec = [](std::vector<std::string> names) { return Audited{"seccomp", std::move(names), "", ""}; };
  auto none = [](std::string why) { return Audited{"", {}, "", std::move(why)}; };
  auto landlock = [&](std::vector<std::string> access, std::string path, std::string why = "") {
    if (f.landlock_abi < 7)
      return none("Landlock ABI " + std::to_string(f.landlock_abi) + " writes no audit records (ABI 7, Linux 6.15)");
    return Audited{"landlock", std::move(access), std::move(path), std::move(why)};
  };
  if (v == "EPERM") {
    if (key == "subprocess-sh") return f.seccomp_denies("pipe2") ? sec({"pipe2"}) : sec({"clone", "vfork"});
    if (key == "fork") return sec({"clone"});
    if (key == "mmap-exec") return sec({"mprotect"});
    if (key == "kill-host") return sec({"kill"});
    return sec({std::string(key)});  // socket, ptrace, bpf, keyctl, io_uring_setup, userfaultfd
  }
  if (v == "EROFS") return none("a read-only mount's EROFS is not audited");
  if (v == "EAGAIN") return none("the pids limit's EAGAIN is not audited");
  if (v == "ESRCH") return none("nothing was refused: the host pid does not exist in the pid namespace");
  if (v == "MemoryError") return none("RLIMIT_AS's ENOMEM is not audited");
  if (v != "EACCES") return none("no audited bound is known to answer " + v);
  if (key == "read-shadow")
    return landlock({"fs.read_file"}, "/etc/shadow", "the file mode refused it before Landlock was asked (not audited)");
  if (key == "read-outside") return landlock({"fs.read_file"}, "/var/lib/dpkg", "");
  if (key == "write-srv" || key == "write-etc")
    return landlock({"fs.write_file", "fs.make_reg"}, key == "write-srv" ? "/srv" : "/etc", "");
  if (key == "subprocess-sh") return landlock({"fs.execute"}, "", "");
  if (key == "exec-tmp")
    return landlock({"fs.execute"}, "/tmp/dropped",
                    f.tmp_noexec ? "noexec on /tmp refused it before Landlock was asked (not audited)" : "");
  if (key == "mmap-exec") return none("PR_SET_MDWE's refusal is not audited");
  return none("no audited bound is known to answer EACCES here");
}

}  // namespace

std::string python_attempts() { return kAttempts; }

std::vector<Row> python_rows(const Facts& f, const RunResult& run, std::vector<Audited>* expected) {
  auto recs = parse_records(run.out);
  std::vector<Row> rows;
  std::vector<const char*> keys;  // the record key of each row, for `expected`
  auto row_of = [&](std::string attempt, const char* key, const std::function<std::string(const std::string&)>& why) {
    keys.push_back(key);
    return make_row(recs, run, std::move(attempt), key, why);
  };
  auto sec = [&](const char* name) { return f.seccomp_denies(name) ? std::string("seccomp: ") + name + "() not allowed" : ""; };
  auto landlock = [&](const std::string& what) {
    return f.landlock_files ? "Landlock: no files rule covers " + what + " (EACCES)" : std::string();
  };
  rows.push_back(row_of("read /etc/shadow", "read-shadow", [&](const std::string& v) {
    return v == "EACCES" ? join({"file mode 0640 root:shadow (the throwaway uid is neither)", landlock("/etc/shadow")}) : "";
  }));
  rows.push_back(row_of("read a file outside the rules (/var/lib/dpkg/status, mode 0644)", "read-outside",
                        [&](const std::string& v) { return v == "EACCES" ? landlock("/var/lib/dpkg") : ""; }));
  auto write_why = [&](const std::string& where, const char* mount) {
    return [&f, where, mount, landlock](const std::string& v) -> std::string {
      if (v == "EROFS") return std::string(mount) + " (mount namespace)";
      return v == "EACCES" ? landlock(where) : "";
    };
  };
  rows.push_back(row_of("write outside the workspace (/srv, the job's input)", "write-srv",
                        write_why("/srv with write rights", "read-only bind mount")));
  rows.push_back(row_of("write outside the workspace (/etc)", "write-etc",
                        write_why("/etc with write rights", f.readonly_root ? "read-only root filesystem" : "read-only mount")));
  std::string pids = f.pids_limit ? "pids limit " + std::to_string(f.pids_limit) + (f.nproc ? " and RLIMIT_NPROC" : "") : "";
  rows.push_back(row_of("run /bin/sh through subprocess", "subprocess-sh", [&](const std::string& v) {
    // subprocess makes its error pipe (pipe2) before it forks: a policy without pipes refuses that first.
    std::string forks = f.seccomp_denies("vfork") && f.seccomp_denies("clone") ? "vfork()/clone() not allowed" : "";
    if (v == "EPERM" && f.seccomp_denies("pipe2"))
      return join({"seccomp: pipe2() not allowed (subprocess's pipes, made before it forks)",
                   "behind it: " + join({forks, pids, f.exec_allowlist ? "/bin/sh (dash) not pinned" : ""})});
    if (v == "EPERM") return join({forks.empty() ? "" : "seccomp: " + forks,
                                   "behind it: " + join({pids, f.exec_allowlist ? "/bin/sh (dash) not pinned" : ""})});
    if (v == "EAGAIN") return pids;
    return v == "EACCES" && f.exec_allowlist ? std::string("exec allowlist: dash is not pinned (Landlock execute)") : "";
  }));
  rows.push_back(row_of("os.execv a file dropped in /tmp (a copy of python)", "exec-tmp", [&](const std::string& v) {
    if (v != "EACCES") return std::string();
    std::string allowlist = f.exec_allowlist ? "exec allowlist: Landlock execute only on pinned files" : "";
    return f.tmp_noexec ? join({"noexec on the writable tmpfs /tmp", allowlist.empty() ? "" : "behind it: " + allowlist})
                        : allowlist;
  }));
  rows.push_back(row_of("ctypes: mmap RW, write code, mprotect PROT_EXEC, call it", "mmap-exec",
                        [&](const std::string& v) {
                          if (v == "EACCES" && f.deny_write_execute)
                            return std::string("memory-deny-write-execute (PR_SET_MDWE): mprotect may not add execute");
                          return v == "EPERM" ? sec("mprotect") : std::string();
                        }));
  rows.push_back(row_of("open a socket (AF_INET, SOCK_STREAM)", "socket", [&](const std::string& v) {
    return v == "EPERM" ? join({sec("socket"), f.network == "none" ? "behind it: empty netns (only lo, down)" : ""}) : "";
  }));
  rows.push_back(row_of("signal the host (kill -9 hello's host pid)", "kill-host", [&](const std::string& v) {
    if (v == "EPERM") return join({sec("kill"), "behind it: pid namespace" + std::string(f.scope_signal ? ", Landlock signal scope" : "")});
    return v == "ESRCH" ? std::string("pid namespace: the host pid does not exist in here") : "";
  }));
  rows.push_back(row_of("fork past the pids limit (" + (f.pids_limit ? std::to_string(f.pids_limit) : std::string("none")) + ")",
                        "fork", [&](const std::string& v) {
                          if (v == "EPERM") return join({sec("clone"), pids.empty() ? "" : "behind it: " + pids});
                          return v == "EAGAIN" ? pids : "";
                        }));
  rows.push_back(row_of("allocate " + policy::format_size(hog_bytes(f)) + " (a bytearray)", "alloc",
                        [&](const std::string& v) {
                          if (v != "MemoryError") return std::string();
                          return f.address_space ? join({"RLIMIT_AS " + policy::format_size(f.address_space) + ": the mmap is refused",
                                                         f.memory_limit ? "memory cgroup " + policy::format_size(f.memory_limit) + " behind it" : ""})
                                                 : "memory cgroup limit";
                        }));
  for (const char* name : {"ptrace", "bpf", "keyctl", "io_uring_setup", "userfaultfd"})
    rows.push_back(row_of(std::string("call ") + name + "() through ctypes", name,
                          [&](const std::string& v) { return v == "EPERM" ? sec(name) : ""; }));
  for (auto& r : rows) r.kind = r.held() ? "Boundary" : "-";
  if (expected) {
    expected->clear();
    for (size_t i = 0; i < rows.size(); ++i) {
      const Record* r = find_record(recs, keys[i]);
      expected->push_back(rows[i].held() && r ? audited(f, keys[i], r->value) : Audited{});
    }
  }
  return rows;
}

namespace {

// The image: --rootfs, else the newest finished tree scripts/rootfs.sh left in its cache.
Result<std::string> workload_rootfs(const std::string& given) {
  if (!given.empty()) return fs::absolute(given).lexically_normal().string();
  const char* c = ::getenv("SHARNESS_ROOTFS_CACHE");
  fs::path cache = c && *c ? c : "/var/cache/sharness-rootfs";
  std::string best;
  fs::file_time_type newest{};
  std::error_code ec;
  for (auto& e : fs::directory_iterator(cache, ec)) {
    std::string n = e.path().filename().string();
    if (!n.starts_with("workloads-") || n.ends_with(".ok") || !fs::exists(e.path().string() + ".ok")) continue;
    auto t = fs::last_write_time(e.path().string() + ".ok", ec);
    if (best.empty() || t > newest) best = e.path().string(), newest = t;
  }
  if (best.empty())
    return fail("hello --workload python3: no image with python3: give --rootfs DIR (a Debian 12 root with python3; "
                "scripts/rootfs.sh workloads makes one in " + cache.string() + ")");
  return best;
}

// The profile with its pins refreshed from the image the container runs: the shipped pins are
// Debian 12's build at the time, an installed copy the host's.
Result<std::string> pinned_for(const std::string& policy_path, const std::string& rootfs, const std::string& dir,
                               size_t& changed) {
  Fd root(::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return sys_error("hello: rootfs " + rootfs);
  std::string text = TRY(read_file(policy_path, 1u << 20));
  auto r = TRY(policy::repin(text, policy_path, [&](const std::string& path) -> Result<policy::Pin> {
    return exec_allowlist::hash_in_root(root.get(), path, exec_allowlist::Symlinks::refuse);
  }));
  changed = r.changes.size();
  std::string out = dir + "/" + fs::path(policy_path).filename().string();
  TRYV(write_file(out, r.text, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  return out;
}

Result<std::string> workload_config(const std::string& rootfs, const std::string& job, const std::string& cgroups_path,
                                    const Facts& f) {
  oci::Config c = TRY(oci::parse_config(oci::default_spec_json(false), "default spec"));
  c.process->terminal = false;
  c.process->args = {"python3", "/srv/attempts.py"};
  c.process->env = {"PATH=/usr/bin:/bin", "HOST_PID=" + std::to_string(::getpid()),
                    "FORKS=" + std::to_string(fork_attempts(f)), "HOG=" + std::to_string(hog_bytes(f))};
  c.root = {rootfs, true};  // the image is shared: never written
  c.hostname = "sharness-hello";
  c.linux.cgroups_path = cgroups_path;
  oci::Mount srv;
  srv.destination = "/srv";
  srv.source = job;
  srv.type = "bind";
  srv.options = {"rbind", "ro"};
  c.mounts.push_back(srv);
  return oci::config_to_json(c, true);
}

// The records section: `events --denials ID` as a user would read it (it waits for the reader to
// drain), matched to the rows. A record that cannot be read is said, never counted as held.
Result<std::string> records_of(const Scratch& s, const std::string& id, const std::vector<Row>& rows,
                               const std::vector<Audited>& expected) {
  std::string out = s.dir + "/" + id + ".denials", err = s.dir + "/" + id + ".denials.err";
  int rc = wait_exit(TRY(spawn({s.exe, "--root", s.state, "events", "--denials", id}, out, err)));
  if (rc != 0) return "Denial records: could not be read: " + read_file(err).value_or("(no error text)");
  size_t missing = 0;
  return format_records(rows, expected, TRY(read_file(out)), missing);
}

}  // namespace

Result<int> run_workload(const Globals& g, const Options& o) {
  if (::geteuid() != 0) return fail("hello: needs root (containers need namespaces and cgroups here)");
  if (o.workload != "python3") return fail("hello --workload: \"" + o.workload + "\": only python3 has attempts");
  std::string exe = TRY(self_exe());
  RuntimeConfig rc = TRY(load_runtime_config(g.config_path.empty() ? kDefaultRuntimeConfig : g.config_path,
                                             !g.config_path.empty()));
  std::string rootfs = TRY(workload_rootfs(o.rootfs));
  std::string shipped = TRY(resolve_policy(o.policy.empty() ? o.workload : o.policy, rc, exe));
  ::signal(SIGPIPE, SIG_IGN);
  Scratch s;
  TRYV(s.make(exe, o.keep));
  size_t repinned = 0;
  std::string policy_path = TRY(pinned_for(shipped, rootfs, s.dir, repinned));
  policy::Policy pol = TRY(policy::load_policy(policy_path));
  Facts facts = TRY(facts_of(pol, host::probe()));

  std::string job = s.dir + "/job", bundle = s.dir + "/bundle";
  for (const auto& d : {job, bundle})
    if (::mkdir(d.c_str(), 0755) < 0) return sys_error("hello: mkdir " + d);
  TRYV(write_file(job + "/attempts.py", python_attempts(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  std::string id = "hello-" + std::to_string(::getpid()) + "-python3";
  TRYV(write_file(bundle + "/config.json", TRY(workload_config(rootfs, job, "/" + s.cgparent + "/" + id, facts)),
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  s.ids.push_back(id);

  std::printf("sharness-runtime hello --workload python3: what hostile Python code tries, and what stops it\n");
  std::printf("policy %s (hash %s), from %s; %zu pin(s) refreshed from the image %s\n", facts.policy_id.c_str(),
              facts.policy_hash.c_str(), shipped.c_str(), repinned, rootfs.c_str());
  std::printf("one container running python3 /srv/attempts.py, state in %s (removed after)\n\n", s.state.c_str());
  std::fflush(stdout);
  int was_subreaper = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper, 0, 0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  std::vector<std::string> base = {exe, "--root", s.state, "--policy", policy_path};
  // --keep: the stopped container's denials record is read before Scratch deletes it.
  RunResult run = finish_job(TRY(start_job(base, bundle, id, s.dir, true)));
  reap_all(std::chrono::milliseconds(2000));
  if (!was_subreaper) ::prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
  if (never_started(run)) {
    std::string report = format_not_started({{"python3", run.err}}, 1, policy_path);
    std::fwrite(report.data(), 1, report.size(), stdout);
    return kNotStarted;
  }
  std::vector<Audited> expected;
  auto rows = python_rows(facts, run, &expected);
  std::string table = format_table(rows) + "\n" + format_summary(rows) + "\n" + TRY(records_of(s, id, rows, expected));
  std::fwrite(table.data(), 1, table.size(), stdout);
  std::fflush(stdout);
  return exit_code(rows);
}

}  // namespace sh::lifecycle::hello
