// hello --workload: which denial record (docs/denials.md) names the bound that held each attempt.
// A held attempt's row says what held it; this says whether the runtime's record of the container
// shows it too, so a reviewer can find the same refusal in `events --denials` later.
#include <algorithm>
#include <cstdio>

#include "base/json.hpp"
#include "cmd/sharness-runtime/hello.hpp"

namespace sh::lifecycle::hello {
namespace {

// One "kind":"denial" line, the fields a match needs.
struct Denial {
  std::string bound, what, path, field;  // what: the syscall, or Landlock's access list
  bool taken = false;                    // an earlier attempt's
};

std::string field_of(const json::Value& v, std::string_view key) {
  auto f = v.get(key);
  return f && f->is_string() ? f->as_string().value_or("") : "";
}

// Whether `access` (Landlock's blockers, comma-separated) names one of `names`.
bool names_one(const std::string& access, const std::vector<std::string>& names) {
  size_t at = 0;
  while (at <= access.size()) {
    size_t end = access.find(',', at);
    if (end == std::string::npos) end = access.size();
    if (std::find(names.begin(), names.end(), access.substr(at, end - at)) != names.end()) return true;
    at = end + 1;
  }
  return false;
}

// The first record of `a` that no earlier attempt took (the attempts run one after another, and
// two of them may be refused the same syscall: subprocess's and fork's clone).
const Denial* take(std::vector<Denial>& ds, const Audited& a) {
  for (auto& d : ds) {
    if (d.taken || d.bound != a.bound) continue;
    d.taken = true;
    if (a.bound == "seccomp" && std::find(a.names.begin(), a.names.end(), d.what) != a.names.end()) return &d;
    if (a.bound == "landlock" && names_one(d.what, a.names) && d.path.starts_with(a.path)) return &d;
    d.taken = false;
  }
  return nullptr;
}

}  // namespace

std::string format_records(const std::vector<Row>& rows, const std::vector<Audited>& expected, std::string_view jsonl,
                           size_t& missing) {
  std::vector<Denial> denials;
  std::string landlock_off, seccomp_off;  // the record's notice when a bound's refusals are not recorded
  std::string lost;                       // the record's last loss line: a missing record may be one of those
  size_t unreadable = 0;
  for (size_t at = 0; at < jsonl.size();) {
    size_t end = jsonl.find('\n', at);
    if (end == std::string_view::npos) end = jsonl.size();
    std::string_view line = jsonl.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    auto doc = json::Document::parse(line, "denials.jsonl");
    if (!doc) {
      ++unreadable;
      continue;
    }
    json::Value v = doc->root();
    std::string kind = field_of(v, "kind"), detail = field_of(v, "detail");
    if (kind == "notice" && detail.find("Landlock denials are not") != std::string::npos) landlock_off = detail;
    if (kind == "notice" && detail.find("seccomp's refusals") != std::string::npos) seccomp_off = detail;
    if (kind == "loss") lost = detail;
    if (kind != "denial") continue;
    std::string bound = field_of(v, "bound");
    denials.push_back({bound, field_of(v, bound == "seccomp" ? "syscall" : "access"),
                       bound == "landlock" ? field_of(v, "path") + field_of(v, "port") : "", field_of(v, "field")});
  }
  missing = 0;
  std::string out = "Denial records (the container's denials.jsonl, `events --denials`; docs/denials.md):\n";
  for (size_t i = 0; i < rows.size() && i < expected.size(); ++i) {
    if (!rows[i].held()) continue;
    const Audited& a = expected[i];
    std::string said;
    if (a.bound.empty()) {
      said = "none: " + a.why;
    } else if (const Denial* d = take(denials, a)) {
      said = d->bound + " " + d->what + (d->path.empty() ? "" : " " + d->path) + " -> " + d->field;
    } else if (!a.why.empty()) {
      said = "none: " + a.why;
    } else if (a.bound == "landlock" && !landlock_off.empty()) {
      said = "none: the record says " + landlock_off;
    } else if (a.bound == "seccomp" && !seccomp_off.empty()) {
      said = "none: the record says " + seccomp_off;
    } else {
      ++missing;
      said = "MISSING: no " + a.bound + " record of " + a.names.front() + (a.path.empty() ? "" : " on " + a.path);
    }
    out += "  " + fit(rows[i].attempt, kAttemptWidth) + "  " + said + "\n";
  }
  if (unreadable) out += "  (" + std::to_string(unreadable) + " line(s) of the record were not JSON)\n";
  out += missing ? std::to_string(missing) + " held attempt(s) whose record is MISSING" +
                       (lost.empty() ? "" : " (the record says records were lost: " + lost + ")") + "\n"
                 : "every held attempt a kernel audit record covers is in the record\n";
  return out;
}

}  // namespace sh::lifecycle::hello
