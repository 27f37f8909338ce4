// Audit records as the kernel multicasts them (AUDIT_NLGRP_READLOG), read into denials: a
// seccomp record (AUDIT_SECCOMP, 1326) is one event; a Landlock denial is an event of several
// records sharing one serial (AUDIT_LANDLOCK_ACCESS 1423, AUDIT_LANDLOCK_DOMAIN 1424 the first
// time a domain denies, AUDIT_SYSCALL 1300 with the pid and exe, AUDIT_EOE 1320 last).
// Pure: the socket is runtime/linux/audit.hpp's, unit-tested on records this kernel wrote.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sh::audit {

inline constexpr int kSyscall = 1300, kEoe = 1320, kSeccomp = 1326, kLandlockAccess = 1423, kLandlockDomain = 1424;

inline constexpr uint32_t kNoSession = 4294967295u;  // AUDIT_SID_UNSET

struct Record {
  int type = 0;
  uint64_t serial = 0;
  std::string stamp;                          // "1796652265.699" (seconds.milliseconds)
  std::map<std::string, std::string> fields;  // values unquoted, hex-encoded strings decoded
};

// "audit(1796652265.699:6): domain=1c27c6aac path="/etc/passwd" ...": nullopt when it is not
// an audit record of that shape.
std::optional<Record> parse_record(int type, std::string_view text);

// A denial, before it is tied to a container and to the policy field that would allow it.
struct Denial {
  std::string time;     // RFC 3339, UTC, milliseconds
  pid_t pid = 0;        // host pid of the denied process (0: unknown)
  uint32_t ses = kNoSession;  // its audit session
  std::string exe;      // its executable (the container's path)
  std::string bound;    // "seccomp" or "landlock"
  std::string syscall;  // seccomp: the syscall's name (or "nr N" when libseccomp has none)
  std::string access;   // landlock: the blockers ("fs.read_file", "net.connect_tcp", ...)
  std::string path;     // landlock fs: the path
  int port = -1;        // landlock net: the TCP port
  std::string domain;   // landlock: the domain id
  std::string action;   // seccomp: the filter's action (errno, kill_process, log, ...)
};

// Groups records into events and turns complete events into denials. A Landlock event is
// complete at its EOE (or when flush() gives up on it); a seccomp record at once.
class Assembler {
 public:
  // Feed one record; the denials it completes (zero or one) are appended to `out`. A Landlock
  // domain record's creator is remembered (domain_creator()).
  void add(Record r, std::vector<Denial>& out);
  // Events still waiting for their EOE, as they are (pid from a SYSCALL record if one came).
  void flush(std::vector<Denial>& out);
  // The pid that created a Landlock domain, from its "status=allocated" record; 0 if unseen.
  pid_t domain_creator(const std::string& domain) const;

 private:
  std::map<uint64_t, std::vector<Record>> pending_;
  std::map<std::string, pid_t> creators_;
};

// RFC 3339 of an audit stamp ("1796652265.699" -> "2026-12-07T14:04:25.699Z").
std::string stamp_time(std::string_view stamp);
// A syscall's name from the record's arch (AUDIT_ARCH_*, hex) and number, by libseccomp.
std::string syscall_name(std::string_view arch_hex, std::string_view nr);
// The seccomp action of a record's code= (0x50000 -> "errno").
std::string seccomp_action(std::string_view code_hex);

}  // namespace sh::audit
