#include "base/log.hpp"

#include <fcntl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <string>

#include "base/json.hpp"

namespace sh::log {
namespace {
int g_fd = -1;  // -1: stderr
bool g_json = false;
bool g_debug = false;

const char* name(Level l) {
  switch (l) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::warning: return "warning";
    case Level::error: return "error";
  }
  return "error";
}

}  // namespace

std::string now_rfc3339() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char buf[64];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf + n, sizeof buf - n, ".%09ldZ", ts.tv_nsec);
  return buf;
}

bool configure(const char* path, bool json, bool debug) {
  g_json = json;
  g_debug = debug;
  if (path && *path) {
    int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    g_fd = fd;
  }
  return true;
}

bool is_json() { return g_json; }
int fd() { return g_fd; }

void write(Level lvl, std::string_view msg) {
  if (lvl == Level::debug && !g_debug) return;
  std::string line;
  if (g_json) {
    json::Writer w;
    w.begin_object().kv("level", name(lvl)).kv("msg", msg).kv("time", now_rfc3339()).end_object();
    line = w.str();
  } else {
    line = "time=\"" + now_rfc3339() + "\" level=" + name(lvl) + " msg=" + json::quote(msg);
  }
  line += '\n';
  int fd = g_fd >= 0 ? g_fd : 2;
  // One write per line so concurrent writers (runtime, init) never interleave a line.
  (void)!::write(fd, line.data(), line.size());
}

}  // namespace sh::log
