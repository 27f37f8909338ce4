#include "runtime/linux/audit_events.hpp"

#include <seccomp.h>

#include <charconv>
#include <cstdlib>
#include <ctime>

namespace sh::audit {
namespace {

bool is_hex(std::string_view s) {
  if (s.empty() || s.size() % 2) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string unhex(std::string_view s) {
  std::string out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    unsigned v = 0;
    std::from_chars(s.data() + i, s.data() + i + 2, v, 16);
    out.push_back(char(v));
  }
  return out;
}

// The kernel writes these untrusted strings quoted, or hex-encoded when they hold a space, a
// quote or a control character (audit_log_untrustedstring).
bool untrusted_string(std::string_view key) {
  return key == "path" || key == "exe" || key == "comm" || key == "name" || key == "ocomm" || key == "proctitle";
}

template <class T>
T number(std::string_view s, int base = 10) {
  T v{};
  std::from_chars(s.data(), s.data() + s.size(), v, base);
  return v;
}

std::string field(const Record& r, const char* key) {
  auto it = r.fields.find(key);
  return it == r.fields.end() ? std::string() : it->second;
}

const Record* find(const std::vector<Record>& rs, int type) {
  for (const auto& r : rs)
    if (r.type == type) return &r;
  return nullptr;
}

uint32_t session(const Record& r) {
  std::string s = field(r, "ses");
  return s.empty() ? kNoSession : number<uint32_t>(s);
}

Denial seccomp_denial(const Record& r) {
  Denial d;
  d.time = stamp_time(r.stamp);
  d.pid = number<pid_t>(field(r, "pid"));
  d.ses = session(r);
  d.exe = field(r, "exe");
  d.bound = "seccomp";
  d.syscall = syscall_name(field(r, "arch"), field(r, "syscall"));
  d.action = seccomp_action(field(r, "code"));
  return d;
}

Denial landlock_denial(const std::vector<Record>& rs) {
  const Record& a = *find(rs, kLandlockAccess);
  Denial d;
  d.time = stamp_time(a.stamp);
  d.bound = "landlock";
  d.access = field(a, "blockers");
  d.path = field(a, "path");
  d.domain = field(a, "domain");
  std::string port = field(a, "dest").empty() ? field(a, "src") : field(a, "dest");
  if (!port.empty()) d.port = number<int>(port);
  if (const Record* s = find(rs, kSyscall)) {
    d.pid = number<pid_t>(field(*s, "pid"));
    d.ses = session(*s);
    d.exe = field(*s, "exe");
  }
  return d;
}

}  // namespace

std::optional<Record> parse_record(int type, std::string_view text) {
  constexpr std::string_view head = "audit(";
  if (!text.starts_with(head)) return std::nullopt;
  auto close = text.find("):");
  auto colon = text.rfind(':', close);
  if (close == std::string_view::npos || colon == std::string_view::npos || colon < head.size()) return std::nullopt;
  Record r;
  r.type = type;
  r.stamp = std::string(text.substr(head.size(), colon - head.size()));
  r.serial = number<uint64_t>(text.substr(colon + 1, close - colon - 1));
  std::string_view rest = text.substr(close + 2);
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n' || rest.front() == '\0')) rest.remove_prefix(1);
    auto eq = rest.find('=');
    if (eq == std::string_view::npos) break;
    std::string key(rest.substr(0, eq));
    rest.remove_prefix(eq + 1);
    std::string value;
    if (!rest.empty() && rest.front() == '"') {
      auto end = rest.find('"', 1);
      if (end == std::string_view::npos) end = rest.size();
      value = std::string(rest.substr(1, end - 1));
      rest.remove_prefix(std::min(end + 1, rest.size()));
    } else {
      auto end = rest.find(' ');
      if (end == std::string_view::npos) end = rest.size();
      value = std::string(rest.substr(0, end));
      rest.remove_prefix(end);
      if (untrusted_string(key) && is_hex(value)) value = unhex(value);
    }
    r.fields.insert_or_assign(std::move(key), std::move(value));
  }
  return r;
}

void Assembler::add(Record r, std::vector<Denial>& out) {
  if (r.type == kSeccomp) {
    out.push_back(seccomp_denial(r));
    return;
  }
  if (r.type == kLandlockDomain && field(r, "status") == "allocated")
    creators_[field(r, "domain")] = number<pid_t>(field(r, "pid"));
  auto it = pending_.find(r.serial);
  if (r.type == kEoe) {
    if (it == pending_.end()) return;
    if (find(it->second, kLandlockAccess)) out.push_back(landlock_denial(it->second));
    pending_.erase(it);
    return;
  }
  // Only events with a Landlock access record are denials; other records of theirs (the
  // SYSCALL, the domain) are kept with them. A lone SYSCALL record is some other event.
  if (r.type == kLandlockAccess || it != pending_.end()) pending_[r.serial].push_back(std::move(r));
  // A bounded wait: an event whose EOE never comes is flushed by the caller.
  while (pending_.size() > 256) {
    if (find(pending_.begin()->second, kLandlockAccess)) out.push_back(landlock_denial(pending_.begin()->second));
    pending_.erase(pending_.begin());
  }
}

void Assembler::flush(std::vector<Denial>& out) {
  for (auto& [serial, rs] : pending_)
    if (find(rs, kLandlockAccess)) out.push_back(landlock_denial(rs));
  pending_.clear();
}

pid_t Assembler::domain_creator(const std::string& domain) const {
  auto it = creators_.find(domain);
  return it == creators_.end() ? 0 : it->second;
}

std::string stamp_time(std::string_view stamp) {
  auto dot = stamp.find('.');
  time_t secs = number<time_t>(stamp.substr(0, dot));
  std::string ms = dot == std::string_view::npos ? "000" : std::string(stamp.substr(dot + 1));
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf) + "." + ms + "Z";
}

std::string syscall_name(std::string_view arch_hex, std::string_view nr) {
  uint32_t arch = number<uint32_t>(arch_hex, 16);
  int n = number<int>(nr);
  char* name = seccomp_syscall_resolve_num_arch(arch, n);
  if (!name) return "nr " + std::string(nr);
  std::string out(name);
  free(name);
  return out;
}

std::string seccomp_action(std::string_view code_hex) {
  if (code_hex.starts_with("0x")) code_hex.remove_prefix(2);
  uint32_t code = number<uint32_t>(code_hex, 16) & 0xffff0000u;
  switch (code) {
    case 0x80000000u: return "kill_process";
    case 0x00000000u: return "kill_thread";
    case 0x00030000u: return "trap";
    case 0x00050000u: return "errno";
    case 0x7fc00000u: return "user_notif";
    case 0x7ff00000u: return "trace";
    case 0x7ffc0000u: return "log";
    default: return "0x" + std::string(code_hex);
  }
}

}  // namespace sh::audit
