// Thin: every subcommand is a few calls into spec-mapping/ (which is unit-tested).
#include "cmd/sharness-runtime/cmd_policy.hpp"

#include <sys/stat.h>

#include <cstdio>

#include "base/file.hpp"
#include "spec-mapping/diff.hpp"
#include "spec-mapping/explain.hpp"
#include "spec-mapping/map.hpp"
#include "runtime/lifecycle/sidecar.hpp"
#include "runtime/linux/host_facts.hpp"

namespace sh::cli {
namespace {

Result<std::string> one_file(const Parsed& p, const char* sub) {
  if (p.positional.size() != 1)
    return fail(std::string("policy ") + sub + ": requires exactly 1 argument, the policy file (got " +
                std::to_string(p.positional.size()) + ")");
  return p.positional[0];
}

void out(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

Result<int> check(const Parsed& p) {
  std::string file = TRY(one_file(p, "check"));
  auto pol = policy::load_policy(file);
  if (!pol) {
    // The error already names the file and the JSON path.
    std::fprintf(stderr, "%s\n", pol.error().what().c_str());
    return 1;
  }
  out(file + ": ok (id " + pol->id + ", hash " + pol->hash + ")\n");
  return 0;
}

Result<int> hash(const Parsed& p) {
  auto pol = TRY(policy::load_policy(TRY(one_file(p, "hash"))));
  out(pol.hash + "\n");
  return 0;
}

Result<int> map(const lifecycle::Globals& g, const Parsed& p) {
  auto pol = TRY(policy::load_policy(TRY(one_file(p, "map"))));
  if (!p.has("bundle")) {
    std::vector<policy::ShowHost> shows;
    for (const lifecycle::Sidecar* s : g.sidecars) shows.push_back(s->show);
    out(TRY(policy::map_policy_json(pol, true, host::probe(), shows)));
    return 0;
  }
  std::string path = p.get("bundle") + "/config.json";
  out(TRY(policy::merged_config_json(pol, TRY(read_file(path)), path, true, host::probe())));
  return 0;
}

Result<int> apply(const Parsed& p) {
  if (!p.positional.empty()) return fail("policy apply: unexpected argument \"" + p.positional[0] + "\"");
  if (!p.has("policy") || !p.has("bundle")) return fail("policy apply: --policy FILE and --bundle DIR are required");
  auto pol = TRY(policy::load_policies(p.all("policy")));
  std::string path = p.get("bundle") + "/config.json";
  std::string merged = TRY(policy::merged_config_json(pol, TRY(read_file(path)), path, true, host::probe()));
  struct stat st {};
  mode_t mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  TRYV(write_file_atomic(path, merged, mode));
  return 0;
}

Result<int> explain(const Parsed& p) {
  auto pol = TRY(policy::load_policy(TRY(one_file(p, "explain"))));
  out("policy " + pol.id + " (hash " + pol.hash + ")" + (pol.best_effort ? ", best effort" : "") + "\n");
  auto bounds = policy::explain(pol, host::probe());
  for (const auto& b : bounds) out("  " + policy::format_bound(b) + "\n");
  if (auto r = policy::require_available(bounds, pol.best_effort); !r) {
    std::fprintf(stderr, "%s\n", r.error().what().c_str());
    return 1;
  }
  return 0;
}

// Exit as diff(1): 0 when neither allows anything the other does not, 1 when they differ, 2 on
// trouble (a policy that does not load, named with its JSON path).
Result<int> diff(const Parsed& p) {
  if (p.positional.size() != 2)
    return fail("policy diff: requires exactly 2 arguments, policies A and B (got " + std::to_string(p.positional.size()) + ")");
  const std::string &fa = p.positional[0], &fb = p.positional[1];
  auto a = policy::load_policy(fa);
  auto b = a ? policy::load_policy(fb) : decltype(a)();
  if (!a || !b) {
    std::fprintf(stderr, "policy diff: %s\n", (!a ? a : b).error().what().c_str());
    return 2;
  }
  auto section = [&](const policy::Policy& x, const std::string& xf, const policy::Policy& y, const std::string& yf) {
    auto more = policy::allows_more(x, y);
    out(xf + " (" + x.id + ", hash " + x.hash.substr(0, 12) + ") allows what " + yf + " does not:\n");
    if (more.empty()) out("  nothing\n");
    for (const auto& l : more) out(policy::describe_diff(l, yf) + "\n");
    return more.empty();
  };
  bool same = section(*a, fa, *b, fb);
  same = section(*b, fb, *a, fa) && same;
  return same ? 0 : 1;
}

constexpr std::array kArgs{
    Arg{.name = "<subcommand>", .help = "check, hash, map, apply, explain, pin, diff or learn", .completes = Completes::choices,
        .choices = "check hash map apply explain pin diff learn"},
    Arg{.name = "[FILE]", .help = "the policy file (all but apply; diff: two; learn: the new policy's id)", .completes = Completes::file}};
constexpr std::array kFlags{
    Flag{.name = "bundle", .alias = "b", .value = "DIR",
         .help = "map: merge into its config.json; apply: rewrite it; pin: hash its rootfs; learn: run it",
         .completes = Completes::directory},
    Flag{.name = "policy", .alias = "p", .value = "FILE", .help = "apply: a policy to apply (repeat to compose)",
         .completes = Completes::file, .repeatable = true, .only = "check hash map apply explain"},
    Flag{.name = "rootfs", .value = "DIR", .help = "pin: hash the files of this root (symlinks resolved inside it)",
         .completes = Completes::directory, .only = "pin"},
    Flag{.name = "out", .alias = "o", .value = "FILE",
         .help = "pin, learn: write the repinned or learned policy here (default: stdout)",
         .completes = Completes::file, .only = "pin learn"},
    Flag{.name = "from", .value = "FILE",
         .help = "learn: the policy whose other sections the run is held to and the result keeps",
         .completes = Completes::file, .only = "learn"},
    Flag{.name = "seconds", .value = "N", .help = "learn: end the run after N seconds (a server's window)",
         .only = "learn"}};

}  // namespace

const CommandTable kPolicyTable{
    .name = "policy",
    .summary = "check, hash, map, apply, explain, pin, diff or learn policies",
    .args = kArgs,
    .flags = kFlags,
    .description = "check FILE: parse and validate it; hash FILE: its canonical hash; map FILE [--bundle DIR]: the\n"
                   "OCI config it maps to (merged with the bundle's); apply --policy FILE... --bundle DIR: merge into\n"
                   "the bundle's config.json; explain FILE: each bound and whether this host can hold it;\n"
                   "pin --bundle DIR|--rootfs DIR FILE [--out FILE]: refresh the exec section's SHA-256 pins;\n"
                   "diff A B: what each allows that the other does not, section by section (exit 1 if any);\n"
                   "learn --bundle DIR [--from POLICY] [--out FILE] [--seconds N] [ID]: run the bundle once, recorded,\n"
                   "and write the tightest policy under which that run succeeds (docs/learn.md).",
    .usage = kPolicyUsage,
};

Result<int> cmd_policy(const lifecycle::Globals& g, const Args& args, size_t from) {
  if (from >= args.size()) return fail(std::string("policy: missing subcommand (usage: ") + kPolicyUsage + ")");
  const std::string& sub = args[from];
  if (sub == "pin") return cmd_policy_pin(args, from + 1);
  if (sub == "learn") return cmd_policy_learn(g, args, from + 1);
  // check, hash, map, apply and explain share one parser: their flags are one set.
  auto p = TRY(parse(kPolicyTable, args, from + 1, "check"));
  if (sub == "check") return check(p);
  if (sub == "hash") return hash(p);
  if (sub == "map") return map(g, p);
  if (sub == "apply") return apply(p);
  if (sub == "explain") return explain(p);
  if (sub == "diff") return diff(p);
  return fail("policy: unknown subcommand \"" + sub + "\" (usage: " + kPolicyUsage + ")");
}

}  // namespace sh::cli
