#include "runtime/linux/signals.hpp"

#include <csignal>
#include <cstring>
#include <string>

namespace sh::signals {

namespace {
struct Name {
  const char* name;
  int sig;
};
constexpr Name kNames[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},       {"QUIT", SIGQUIT},     {"ILL", SIGILL},     {"TRAP", SIGTRAP},
    {"ABRT", SIGABRT}, {"IOT", SIGIOT},       {"BUS", SIGBUS},       {"FPE", SIGFPE},     {"KILL", SIGKILL},
    {"USR1", SIGUSR1}, {"SEGV", SIGSEGV},     {"USR2", SIGUSR2},     {"PIPE", SIGPIPE},   {"ALRM", SIGALRM},
    {"TERM", SIGTERM}, {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD},     {"CONT", SIGCONT},   {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},     {"TTOU", SIGTTOU},     {"URG", SIGURG},     {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},     {"WINCH", SIGWINCH}, {"IO", SIGIO},
    {"POLL", SIGPOLL}, {"PWR", SIGPWR},       {"SYS", SIGSYS},
};
}  // namespace

Result<int> parse(std::string_view in) {
  if (in.empty()) return fail("invalid signal: empty");
  if (in.find_first_not_of("0123456789") == std::string_view::npos) {
    if (in.size() > 3) return fail("invalid signal: " + std::string(in));
    int n = std::stoi(std::string(in));
    if (n < 1 || n > SIGRTMAX) return fail("invalid signal: " + std::string(in));
    return n;
  }
  std::string up;
  for (char c : in) up += char(std::toupper(static_cast<unsigned char>(c)));
  std::string_view s = up;
  if (s.starts_with("SIG")) s.remove_prefix(3);
  for (auto& n : kNames)
    if (s == n.name) return n.sig;
  // RTMIN, RTMIN+3, RTMAX-2
  auto rt = [&](std::string_view base, int value, int dir) -> Result<int> {
    std::string_view rest = s.substr(base.size());
    if (rest.empty()) return value;
    if ((rest[0] == '+' && dir > 0) || (rest[0] == '-' && dir < 0)) {
      std::string num(rest.substr(1));
      if (!num.empty() && num.size() < 3 && num.find_first_not_of("0123456789") == std::string::npos) {
        int v = value + dir * std::stoi(num);
        if (v >= SIGRTMIN && v <= SIGRTMAX) return v;
      }
    }
    return fail("invalid signal: " + std::string(in));
  };
  if (s.starts_with("RTMIN")) return rt("RTMIN", SIGRTMIN, +1);
  if (s.starts_with("RTMAX")) return rt("RTMAX", SIGRTMAX, -1);
  return fail("invalid signal: " + std::string(in));
}

}  // namespace sh::signals
