#include "edges/proxy_log.hpp"

#include <unistd.h>

#include <ctime>
#include <mutex>

namespace sh::edges {
namespace {
int g_log = -1;
std::mutex g_log_mu;
}  // namespace

void set_log(int fd) { g_log = fd; }

void logf(const std::string& msg) {
  if (g_log < 0) return;
  char ts[32];
  time_t now = ::time(nullptr);
  struct tm tm {};
  gmtime_r(&now, &tm);
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::string line = std::string(ts) + " " + msg + "\n";
  std::lock_guard lock(g_log_mu);
  (void)!::write(g_log, line.data(), line.size());
}

}  // namespace sh::edges
