// runc-style logging: text (`time="..." level=error msg="..."`) or JSON lines
// (`{"level":"error","msg":"...","time":"..."}`) to --log, default stderr.
#pragma once
#include <string>
#include <string_view>

namespace sh::log {

enum class Level { debug, info, warning, error };

// Configure once from the global flags. `path` empty means stderr.
// Returns false (errno set) if the log file cannot be opened.
bool configure(const char* path, bool json, bool debug);
bool is_json();

void write(Level lvl, std::string_view msg);
inline void debug(std::string_view m) { write(Level::debug, m); }
inline void info(std::string_view m) { write(Level::info, m); }
inline void warn(std::string_view m) { write(Level::warning, m); }
inline void error(std::string_view m) { write(Level::error, m); }

// Now, as RFC 3339 UTC with nanoseconds (log lines, and a container's "created").
std::string now_rfc3339();

// The fd log lines go to (for handing to child processes that must log too), -1 for stderr.
int fd();

}  // namespace sh::log
