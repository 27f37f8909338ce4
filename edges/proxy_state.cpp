#include "edges/proxy_state.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "base/file.hpp"
#include "base/json.hpp"
#include "runtime/linux/proc_info.hpp"

namespace sh::edges {

Result<ContainerState> read_state() {
  auto text = TRY(read_fd(0, "hook state on stdin", 1 << 20));
  auto doc = TRY(json::Document::parse(text, "state"));
  ContainerState s;
  s.id = TRY(TRY(doc.root().need("id")).as_string());
  if (auto pid = doc.root().get("pid")) s.pid = pid_t(TRY(pid->as_int_in(0, 1 << 30)));  // absent once stopped
  if (s.id.empty() || s.id.find('/') != std::string::npos || s.id[0] == '.') return fail("state: bad id");
  return s;
}

std::string saved_json(const Saved& s) {
  json::Writer w(true);
  w.begin_object().key("pid").integer(s.pid).key("startTime").uinteger(s.start_time).key("uid").uinteger(s.uid);
  w.key("supervisorPid").integer(s.supervisor).key("supervisorStartTime").uinteger(s.supervisor_start);
  w.kv("serverSocket", s.server_socket).key("serverInode").uinteger(s.server_ino).kv("serverTcp", s.server_tcp);
  w.end_object();
  return w.str() + "\n";
}

Result<Saved> saved_from(const std::string& text) {
  auto doc = TRY(json::Document::parse(text, kStateFile));
  auto r = doc.root();
  Saved s;
  s.pid = pid_t(TRY(TRY(r.need("pid")).as_int()));
  s.start_time = TRY(TRY(r.need("startTime")).as_uint());
  s.uid = uint32_t(TRY(TRY(r.need("uid")).as_uint()));
  s.supervisor = pid_t(TRY(TRY(r.need("supervisorPid")).as_int()));
  s.supervisor_start = TRY(TRY(r.need("supervisorStartTime")).as_uint());
  s.server_socket = TRY(TRY(r.need("serverSocket")).as_string());
  s.server_ino = TRY(TRY(r.need("serverInode")).as_uint());
  if (auto t = r.get("serverTcp")) s.server_tcp = TRY(t->as_string());
  return s;
}

void record_started(Saved& s, pid_t pid, pid_t supervisor) {
  s.pid = pid;
  s.supervisor = supervisor;
  auto st = proc::stat(pid);
  s.start_time = st ? st->start_time : 0;
  auto sst = proc::stat(supervisor);
  s.supervisor_start = sst ? sst->start_time : 0;
}

void stop_saved(const Saved& s) {
  for (auto [pid, start] : {std::pair{s.supervisor, s.supervisor_start}, {s.pid, s.start_time}}) {
    if (pid <= 0) continue;
    Fd pidfd(int(::syscall(SYS_pidfd_open, pid, 0)));
    auto pst = proc::stat(pid);
    if (pidfd && pst && pst->start_time == start) {
      ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
      struct pollfd p {pidfd.get(), POLLIN, 0};
      ::poll(&p, 1, 5000);
    }
  }
}

}  // namespace sh::edges
