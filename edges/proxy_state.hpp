// What the hooks read and write (the egress door's too, egress/up.cpp): the OCI state on stdin, and <root>/<id>/edge.json, the record
// `up` leaves for `down` (which processes to stop, which registrations to remove, which uid).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "base/error.hpp"

namespace sh::edges {

inline constexpr const char* kStateFile = "edge.json";  // in <root>/<id>
inline constexpr const char* kLogFile = "edge.log";

struct ContainerState {
  std::string id;
  pid_t pid = 0;  // 0 once stopped
};
// The hook's OCI state, from stdin.
Result<ContainerState> read_state();

struct Saved {
  pid_t pid = 0;  // the proxy
  uint64_t start_time = 0;
  pid_t supervisor = 0;  // its parent, root: renews the leaf, reaps the proxy
  uint64_t supervisor_start = 0;
  uint32_t uid = 0;
  std::string server_socket;  // <root>/.edges/<role>/<id>.sock, "" when none
  uint64_t server_ino = 0;
  std::string server_tcp;  // <root>/.edges/<role>/<id>@<ip>:<port>.tcp, "" when none
};
std::string saved_json(const Saved& s);
Result<Saved> saved_from(const std::string& text);
// Record the process `up` started and its supervisor, with their start times (what stop_saved checks).
void record_started(Saved& s, pid_t pid, pid_t supervisor);
// SIGKILL the supervisor, then the process it watches, each only while it is still the process
// recorded (a pidfd, and the start time: never a recycled pid), waiting up to 5 s for each.
void stop_saved(const Saved& s);

}  // namespace sh::edges
