// hello: try, from inside a container under a policy (harsh by default), what hostile code
// would try, and print what held each attempt. The work is in cmd/sharness-runtime/hello.cpp.
#include "cmd/sharness-runtime/commands.hpp"
#include "cmd/sharness-runtime/hello.hpp"

namespace sh::cli {
namespace {
constexpr std::array kFlags{
    Flag{.name = "policy", .alias = "p", .value = "NAME|PATH",
         .help = "the policy the attempts run under (default: the global --policy, else harsh)",
         .completes = Completes::file},
    Flag{.name = "wall-clock", .value = "SECONDS", .help = "the wall-clock attempt's limit (default: 3)"},
    Flag{.name = "keep", .help = "keep the temporary directory, for inspection"},
    Flag{.name = "workload", .value = "NAME",
         .help = "python3: the attempts made by Python code, under the python3 profile (docs/learn.md)",
         .completes = Completes::choices, .choices = "python3"},
    Flag{.name = "rootfs", .value = "DIR", .help = "--workload's image (default: scripts/rootfs.sh workloads' cache)",
         .completes = Completes::directory}};
}  // namespace

const CommandTable kHelloTable{
    .name = "hello",
    .summary = "try what hostile code would, under a policy, and report what held",
    .flags = kFlags,
};

Result<int> cmd_hello(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kHelloTable, args, from));
  if (!p.positional.empty()) return fail("hello: unexpected argument \"" + p.positional[0] + "\"");
  lifecycle::hello::Options o;
  o.policy = p.get("policy");
  if (p.has("wall-clock")) o.clock_seconds = TRY(to_unsigned("wall-clock", p.get("wall-clock")));
  o.keep = p.flag("keep");
  o.workload = p.get("workload");
  o.rootfs = p.get("rootfs");
  if (!o.rootfs.empty() && o.workload.empty()) return fail("hello: --rootfs is --workload's image");
  if (!o.workload.empty()) return lifecycle::hello::run_workload(g, o);
  return lifecycle::hello::run(g, o);
}

}  // namespace sh::cli
