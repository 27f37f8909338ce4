// `sharness-runtime hello`: run a busybox container under a policy (harsh unless told
// otherwise) and try, from inside, what hostile code would try: allocate past the cap, fork
// past the limit, connect out, write outside its writable paths, run a dropped binary, raise
// privilege, make the syscalls a sandbox must deny, signal a host process, outlive the wall
// clock. Each attempt is reported with its outcome (denied / killed / allowed, and the error
// seen), what stopped it, and whether that is a Boundary (applied from above, before execve,
// or from outside by the watchdog) or a Setting (DESIGN.md §1 "Boundary versus Setting").
//
// Everything is private and temporary: a state --root, a busybox rootfs made from the host's
// static busybox, a runtime config naming a policy dir for the short wall-clock limit, a
// cgroup parent named for this run; all of it is removed afterwards. The containers are run
// by this same binary (`run`), exactly as a user would run them.
//
// The pure parts (parsing what the containers print, deciding outcomes and mechanisms,
// formatting the table, where to look for harsh.json) are here for unit tests.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "runtime/lifecycle/container.hpp"
#include "runtime/lifecycle/watchdog_record.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::lifecycle::hello {

enum class Outcome { denied, killed, allowed, not_attempted, no_result };
const char* outcome_name(Outcome o);

// One line of the table.
struct Row {
  std::string attempt;     // what hostile code tries
  Outcome outcome = Outcome::no_result;
  std::string detail;      // the error seen, or what happened
  std::string stopped_by;  // the mechanism that held it ("" when nothing did)
  std::string kind;        // "Boundary", "Boundary (watchdog)", or "-"
  bool held() const { return outcome == Outcome::denied || outcome == Outcome::killed; }
  bool attempted() const { return outcome != Outcome::not_attempted; }
};

// What a container printed: records "@@KEY|VALUE|DETAIL"; a line without the prefix continues
// the previous record's detail (multi-line error messages).
struct Record {
  std::string key, value, detail;
};
std::vector<Record> parse_records(std::string_view out);
const Record* find_record(const std::vector<Record>& recs, std::string_view key);

// The policy's bounds that the table names.
struct Facts {
  std::string policy_id, policy_hash;
  uint64_t memory_limit = 0, address_space = 0;  // bytes; 0: none
  int64_t pids_limit = 0;                        // 0: none
  bool nproc = false;                            // RLIMIT_NPROC follows pids (ephemeral uid)
  bool ephemeral_uid = false;
  uint64_t wall_clock = 0;                       // seconds; 0: none
  bool deny_write_execute = false;               // memory.denyWriteExecute (PR_SET_MDWE)
  bool seccomp = false;                          // an allowlist exists
  std::set<std::string> allowed;                 // its syscalls, groups expanded
  std::string network = "host";                  // none, loopback, host
  bool readonly_root = false;
  bool no_capabilities = false;                  // capabilities: []
  std::optional<std::set<std::string>> capabilities;  // the most the process may hold; absent: any
  bool tmp_noexec = false;                       // a policy tmpfs at /tmp without exec
  bool landlock_files = false;                   // a files section: nothing outside its rules opens
  bool exec_allowlist = false;                   // only pinned binaries carry Landlock execute
  bool ports = false;                            // Landlock TCP rules
  std::vector<uint16_t> connect_ports;           // the ports listed for connect
  bool scope_signal = false;                     // Landlock signal scope
  bool egress = false;                           // an egress door (hello_egress.cpp)
  // The kernel's, from facts_of(p, host) (without a host: one that has everything). A row
  // names Landlock only where this ABI enforces it, and a stand-in where another bound holds.
  int landlock_abi = 7;
  bool memfd_noexec = true;                      // vm.memfd_noexec exists (Linux 6.3+)
  std::string tcp_stand_in, signal_stand_in;     // the bound standing in ("the pid namespace")
  bool landlock_tcp() const { return ports && landlock_abi >= 4; }
  bool landlock_signal() const { return scope_signal && landlock_abi >= 6; }
  // seccomp answers EPERM (or kills) for this syscall
  bool seccomp_denies(const std::string& name) const { return seccomp && !allowed.contains(name); }
  // the policy's capability list leaves this one out of every set (bounding too)
  bool lacks_cap(const std::string& cap) const { return capabilities && !capabilities->contains(cap); }
};
Result<Facts> facts_of(const policy::Policy& p);
// The same on a host: its Landlock ABI and vm.memfd_noexec, and the stand-ins for what it lacks.
Result<Facts> facts_of(const policy::Policy& p, const policy::HostProbe& host);

// How one container run ended.
struct RunResult {
  std::string out, err;
  int exit_code = -1;  // as `run` reports it (128+N when killed by signal N)
  double seconds = 0;
  // The wall-clock container: the watchdog's record, when it fired (read before its delete), or
  // why the record could not be read.
  std::optional<WatchdogFired> fired = std::nullopt;
  std::string fired_error = {};
};
// How late after its limit the watchdog's own record may say it fired and still be "at the
// limit": the timer's wake-up on a loaded host, nothing after the kill.
inline constexpr double kWatchdogLateness = 1.0;

// Sizes and counts the scripts use, chosen from the facts.
uint64_t hog_bytes(const Facts& f);      // what the memory attempt allocates (400 MiB, or past a larger cap)
int fork_attempts(const Facts& f);       // how many children the fork attempt starts (limit, or 8)

// The container scripts. Each prints records (see parse_records).
std::string main_script(const Facts& f);
std::string fork_script(const Facts& f);
std::string clock_script();
// The attempts through the egress door (part of the main script when the policy has one), and
// their rows (hello_egress.cpp).
std::string egress_script(const Facts& f);
void add_egress_rows(const Facts& f, const std::vector<Record>& recs, std::vector<Row>& rows);

// Rows, in the table's order: the attempts made in `main_run` (one container), the fork
// attempt (its own container), the wall-clock attempt (its own container, limit
// `clock_seconds`, judged by the watchdog's record: SIGKILL and a record saying it fired within
// kWatchdogLateness of the limit; how long `run` took is not judged), and the syscalls busybox cannot make (not attempted). `host_accepts` is
// how many connections the host's listener accepted (any is a failure to hold).
std::vector<Row> rows_from(const Facts& f, const RunResult& main_run, const RunResult& fork_run,
                           const RunResult& clock_run, uint64_t clock_seconds, int host_accepts);

// S padded (or cut, ending "...") to W columns; the attempt column is kAttemptWidth wide in the
// table and in the records section under it.
std::string fit(const std::string& s, size_t w);
inline constexpr size_t kAttemptWidth = 50;
std::string format_table(const std::vector<Row>& rows);
std::string format_summary(const std::vector<Row>& rows);
// 0 when every attempt was held, 1 otherwise.
int exit_code(const std::vector<Row>& rows);

// A container that never ran its script (create refused it: a stale pin, a bound this kernel
// lacks): it printed no record and `run` failed with an error. Its attempts were never made, so
// they are neither held nor not held: hello prints no verdict, says which containers could not
// start with the runtime's error and what to do, and exits kNotStarted.
bool never_started(const RunResult& r);
inline constexpr int kNotStarted = 2;
struct Unstarted {
  std::string container;  // "main", "fork", "clock", "memfd"
  std::string error;      // what `run` printed on stderr
};
// The report for them (`containers`: how many hello ran). `policy_path` is the policy hello ran;
// a stale pin gets the `policy pin` commands that refresh it.
std::string format_not_started(const std::vector<Unstarted>& failed, size_t containers, const std::string& policy_path);

// Where harsh.json is looked for when no policy is given, in order: the runtime config's
// policy dirs, <dir of the binary>/../share/sharness/policies, then the source tree's
// policies/ relative to the binary (a build dir inside or next to the tree).
// `file`: the shipped profile looked for (hello --workload: python3.json).
std::vector<std::string> policy_candidates(const std::vector<std::string>& policy_dirs, const std::string& exe_path,
                                           const std::string& file = "harsh.json");

// What hello says about the policy's KMS sidecar, before the table (from `policy explain`'s
// line for `secrets`, on `host`): what the workload may ask for, and where the master keys
// are instead (the KMS's own uid, memfd_secret or the weaker mode, frozen between calls).
// A policy without `secrets` gets one line saying the containers have no KMS.
std::string kms_section(const policy::Policy& p, const policy::HostProbe& host);

struct Options {
  std::string policy;           // NAME or PATH; empty: the global --policy, else harsh (or the workload's profile)
  std::string workload;         // --workload python3: hello_workload.cpp's attempts instead of busybox's
  std::string rootfs;           // --workload's image (default: scripts/rootfs.sh's cached workloads tree)
  uint64_t clock_seconds = 3;   // the wall-clock attempt's limit
  bool keep = false;            // keep the temp dir (for inspection)
};

// Run the attempts and print the table to stdout. Returns the exit code: exit_code(rows), or
// kNotStarted (no table) when a container could not start.
Result<int> run(const Globals& g, const Options& o);

// hello --workload python3 (hello_workload.cpp): the Python script of the attempts, the rows its
// records become, and the run (one container on a Debian 12 image, the python3 profile).
std::string python_attempts();
// The denial record a held attempt should leave in the container's denials.jsonl
// (docs/denials.md): seccomp's refusal of one of `names` (syscalls), or Landlock's refusal of one
// of `names` (accesses, "fs.read_file") on a path starting with `path`. `why` alone: the bound
// that held it is one the kernel does not audit (a read-only mount, RLIMIT_AS, ...); `why` with
// a bound: a record is possible but not due (the file mode refused before Landlock was asked).
struct Audited {
  std::string bound;  // "seccomp", "landlock" or "" (not audited)
  std::vector<std::string> names;
  std::string path;
  std::string why;
};
// `expected` (if given) gets one entry per row, in the rows' order.
std::vector<Row> python_rows(const Facts& f, const RunResult& run, std::vector<Audited>* expected = nullptr);
// One line per held attempt saying which denial record names its bound (from `jsonl`, the
// container's record), that the kernel records nothing for the bound that held it, or MISSING
// where a record was due; `missing` counts those. A notice in the record that audit was off for
// Landlock (or seccomp's errno action is not logged) makes that bound's rows say so instead.
std::string format_records(const std::vector<Row>& rows, const std::vector<Audited>& expected, std::string_view jsonl,
                           size_t& missing);
Result<int> run_workload(const Globals& g, const Options& o);

}  // namespace sh::lifecycle::hello
