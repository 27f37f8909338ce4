#include "runtime/lifecycle/watchdog_record.hpp"

#include <cerrno>
#include <cstdio>

#include "base/file.hpp"
#include "base/json.hpp"

namespace sh::lifecycle {

Result<WatchdogFired> parse_watchdog_fired(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  json::Value root = doc.root();
  TRYV(root.expect_object());
  TRYV(root.only_keys({"startedNs", "deadlineNs", "firedNs"}));
  WatchdogFired f;
  f.started_ns = TRY(TRY(root.need("startedNs")).as_uint());
  f.deadline_ns = TRY(TRY(root.need("deadlineNs")).as_uint());
  f.fired_ns = TRY(TRY(root.need("firedNs")).as_uint());
  // The watchdog arms the deadline after init started and wakes at or after it.
  if (f.deadline_ns < f.started_ns || f.fired_ns < f.deadline_ns)
    return root.error("the times are out of order (started " + std::to_string(f.started_ns) + ", deadline " +
                      std::to_string(f.deadline_ns) + ", fired " + std::to_string(f.fired_ns) + ")");
  return f;
}

Result<std::optional<WatchdogFired>> read_watchdog_fired(const ContainerDir& dir) {
  auto text = read_file_at(dir.fd(), kWatchdogFiredFile, 4096);
  if (!text && text.error().err == ENOENT) return std::optional<WatchdogFired>();
  if (!text) return fail(std::move(text.error()));
  return std::optional<WatchdogFired>(TRY(parse_watchdog_fired(*text, dir.path() + "/" + kWatchdogFiredFile)));
}

std::string describe(const WatchdogFired& f) {
  char s[160];
  std::snprintf(s, sizeof s, "the wall-clock watchdog sent SIGKILL %.2f s after init started (its limit: %.2f s)",
                f.fired_after_seconds(), f.limit_seconds());
  return s;
}

}  // namespace sh::lifecycle
