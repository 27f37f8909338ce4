#include "kms/kms_log.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace sh::kms {

void log_line(int fd, std::string_view name, std::string_view who, std::string_view msg) {
  struct timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm{};
  ::gmtime_r(&ts.tv_sec, &tm);
  char stamp[96];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
  std::string line = std::string(stamp) + " sharness-kms[" + std::string(name) + "] " + std::string(who) + ": " +
                     std::string(msg) + "\n";
  (void)!::write(fd, line.data(), line.size());
}

}  // namespace sh::kms
