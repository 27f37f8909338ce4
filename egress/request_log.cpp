#include "egress/request_log.hpp"

#include <unistd.h>

#include <mutex>

#include "base/json.hpp"
#include "base/log.hpp"

namespace sh::egress {
namespace {
int g_fd = -1;
std::string g_container;
std::mutex g_mu;

void emit(const std::string& line) {
  if (g_fd < 0) return;
  std::string l = line + "\n";
  std::lock_guard lock(g_mu);  // one write per line, never interleaved
  (void)!::write(g_fd, l.data(), l.size());
}
// What a client sent goes into the log: printable ASCII only, so that the line is one valid
// JSON line whatever the bytes were.
std::string clean(std::string_view s) {
  std::string o(s.substr(0, 2048));
  for (char& c : o)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return o;
}
}  // namespace

void set_request_log(int fd, std::string container) {
  g_fd = fd;
  g_container = std::move(container);
}

std::string format_line(const std::string& container, const LogLine& l, const std::string& time) {
  json::Writer w;
  w.begin_object().kv("time", time).kv("container", clean(container)).key("rule");
  if (l.rule) w.uinteger(*l.rule);
  else w.null();
  w.kv("method", clean(l.method)).kv("host", clean(l.host)).kv("port", int(l.port)).kv("path", clean(l.path)).kv("status", l.status);
  w.key("bytesOut").uinteger(l.bytes_out).key("bytesIn").uinteger(l.bytes_in);
  w.kv("decision", l.check.empty() ? "allow" : "deny");
  if (!l.check.empty()) w.kv("check", l.check).kv("reason", clean(l.reason));
  w.end_object();
  return w.str();
}

void log_request(const LogLine& l) { emit(format_line(g_container, l, log::now_rfc3339())); }

void log_door(const std::string& level, const std::string& msg) {
  json::Writer w;
  w.begin_object().kv("level", level).kv("msg", clean(msg)).kv("time", log::now_rfc3339()).end_object();
  emit(w.str());
}

}  // namespace sh::egress
