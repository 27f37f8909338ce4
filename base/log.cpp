#include "base/log.hpp"

#include <fcntl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
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
  // UTC by the calendar arithmetic of <chrono>: glibc's gmtime_r loads /etc/localtime on first
  // use (tzset), an open, two reads and a parse per command for a zone UTC never needs.
  using namespace std::chrono;
  const sys_seconds t{seconds(ts.tv_sec)};
  const auto day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss hms{t - day};
  char buf[128];  // room for any int the format could print (-Wformat-truncation)
  snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02lld.%09ldZ", int(ymd.year()), unsigned(ymd.month()),
           unsigned(ymd.day()), long(hms.hours().count()), long(hms.minutes().count()),
           (long long)hms.seconds().count(), ts.tv_nsec);
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
