// The proxy's and its supervisor's log: one line per event into <root>/<id>/edge.log, opened
// before the drop (neither may open a file after it).
#pragma once
#include <string>

namespace sh::edges {

void set_log(int fd);              // -1 (the default): nothing is logged
void logf(const std::string& msg);  // a UTC time stamp, msg, a newline; thread-safe

}  // namespace sh::edges
