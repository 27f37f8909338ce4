// `policy learn --bundle DIR [--from POLICY] [--out FILE] [--seconds N] [ID]` (docs/learn.md):
// run the bundle's process once, recorded (runtime/lifecycle/learn), and write the policy
// spec-mapping/learn makes of the record. A run that fails teaches nothing: no policy is written.
#include <sys/stat.h>

#include <charconv>
#include <cstdio>

#include "base/file.hpp"
#include "cmd/sharness-runtime/cmd_policy.hpp"
#include "oci/landlock.hpp"
#include "runtime/lifecycle/learn.hpp"

namespace sh::cli {
namespace {

std::string ports(const std::vector<uint16_t>& v) {
  std::string s;
  for (auto p : v) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s.empty() ? "none" : s;
}

std::string summary(const policy::Policy& p, const lifecycle::LearnRun& run) {
  std::string s = "policy learn: " + p.id + " from `" + run.command + "` (" +
                  (run.ended_by_seconds ? std::string("ended by --seconds") : "exit code " + std::to_string(run.exit_code)) +
                  "): " + std::to_string(p.syscalls->allow.size()) + " syscalls, " + std::to_string(p.files->size()) +
                  " file rules, " + std::to_string(p.exec->size()) + " pins, TCP bind " + ports(p.ports->bind) +
                  ", connect " + ports(p.ports->connect) + ", " +
                  (p.pids->fork ? "at most " + std::to_string(*p.pids->limit) + " tasks" : std::string("no fork")) + "\n";
  for (const auto& pin : *p.exec) s += "  exec " + pin.path + "\n";
  for (const auto& r : *p.files) {
    std::string rights;
    for (const auto& n : oci::landlock_names(oci::LandlockKind::fs, r.access)) rights += (rights.empty() ? "" : ",") + n;
    s += "  file " + r.path + " " + rights + "\n";
  }
  return s;
}

}  // namespace

Result<int> cmd_policy_learn(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kPolicyTable, args, from, "learn"));
  if (!p.has("bundle")) return fail(std::string("policy learn: --bundle DIR is required (usage: ") + kPolicyLearnUsage + ")");
  if (p.positional.size() > 1)
    return fail(std::string("policy learn: at most one argument, the new policy's id (usage: ") + kPolicyLearnUsage + ")");
  lifecycle::LearnOptions o;
  o.bundle = p.get("bundle");
  if (p.has("from")) o.from = TRY(policy::load_policy(p.get("from")));
  if (p.has("seconds")) {
    const std::string v = p.get("seconds");
    unsigned n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n == 0 || n > policy::kWallClockMax)
      return fail("policy learn: --seconds " + v + ": a whole number of seconds, 1.." + std::to_string(policy::kWallClockMax));
    o.seconds = n;
  }
  const std::string id = !p.positional.empty() ? p.positional[0] : o.from ? o.from->id + "-learned" : "learned";
  auto run = TRY(lifecycle::learn_run(g, o));
  if (run.exit_code != 0 && !run.ended_by_seconds)
    return fail("policy learn: the run of `" + run.command + "` failed (exit code " + std::to_string(run.exit_code) +
                "): a policy learned from a failing run would allow the failure; nothing written");
  const std::string description =
      "Learned by sharness-runtime policy learn from a run of `" + run.command + "`" +
      (o.from ? ", under policy " + o.from->id + " (its other sections)" : std::string()) +
      ". Review it before use (docs/learn.md).";
  policy::Trace& t = run.trace;
  auto pol = TRY(policy::learned_policy({o.from ? &*o.from : nullptr, id, description, &t, &run.sha256}));
  const std::string text = policy::policy_to_json(pol, true) + "\n";
  std::string report = summary(pol, run);
  if (!p.has("out")) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else {
    TRYV(write_file_atomic(p.get("out"), text, 0644));
  }
  std::fwrite(report.data(), 1, report.size(), stderr);
  return 0;
}

}  // namespace sh::cli
