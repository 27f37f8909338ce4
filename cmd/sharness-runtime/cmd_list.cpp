#include <cstdio>

#include "base/json.hpp"
#include "cmd/sharness-runtime/commands.hpp"

namespace sh::cli {
namespace {
constexpr std::array kFlags{
    Flag{.name = "format", .alias = "f", .value = "FORMAT", .help = "table (default) or json",
         .completes = Completes::choices, .choices = "table json"},
    Flag{.name = "quiet", .alias = "q", .help = "print the container ids only, one a line"}};
}  // namespace

const CommandTable kListTable{.name = "list", .summary = "list the containers in --root", .flags = kFlags};

Result<int> cmd_list(const lifecycle::Globals& g, const Args& args, size_t from) {
  auto p = TRY(parse(kListTable, args, from));
  std::string format = p.get("format", "table");
  if (format != "table" && format != "json") return fail("invalid format option \"" + format + "\"");
  auto states = TRY(lifecycle::list(g));
  if (p.flag("quiet")) {
    for (auto& s : states) std::printf("%s\n", s.id.c_str());
    return 0;
  }
  if (format == "json") {
    json::Writer w;
    w.begin_array();
    for (auto& s : states) {
      w.begin_object().kv("ociVersion", s.oci_version).kv("id", s.id).kv("pid", (long long)s.pid);
      w.kv("status", s.status).kv("bundle", s.bundle).kv("rootfs", s.rootfs).kv("created", s.created);
      w.kv("owner", s.owner).key("annotations").begin_object();
      for (auto& [k, v] : s.annotations) w.kv(k, v);
      w.end_object().end_object();
    }
    w.end_array();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }
  std::printf("%-12s %-8s %-10s %-40s %-30s %s\n", "ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER");
  for (auto& s : states)
    std::printf("%-12s %-8d %-10s %-40s %-30s %s\n", s.id.c_str(), s.pid, s.status.c_str(), s.bundle.c_str(),
                s.created.c_str(), s.owner.c_str());
  return 0;
}

}  // namespace sh::cli
