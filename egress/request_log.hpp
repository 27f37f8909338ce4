// The door's request log (docs/egress.md, "The door's interface"): one JSON line per request,
// and per refused CONNECT, on the fd the starter gave it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace sh::egress {

struct LogLine {
  std::optional<size_t> rule;
  std::string method, host, path;
  uint16_t port = 0;
  int status = 0;               // what the client was answered (0: nothing, the connection was cut)
  uint64_t bytes_out = 0, bytes_in = 0;  // upstream, and back to the container
  std::string check, reason;    // a denial: the check that refused it; empty when allowed
};

void set_request_log(int fd, std::string container);
void log_request(const LogLine& l);
// A line for the door itself ({"level":"info","msg":...,"time":...}).
void log_door(const std::string& level, const std::string& msg);
// The JSON text of one line, without the newline (tests).
std::string format_line(const std::string& container, const LogLine& l, const std::string& time);

}  // namespace sh::egress
