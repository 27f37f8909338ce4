// The CRIU RPC client (criu.hpp): spawn `criu swrk`, one request, its notifications, one answer.
#include "runtime/linux/criu.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>

#include "base/file.hpp"
#include "base/log.hpp"
#include "runtime/linux/criu_rpc.pb-c.h"

namespace sh::criu {
namespace {

// `criu swrk`, killed and reaped if we leave before it answered.
struct Swrk {
  pid_t pid = 0;
  Fd sock;
  Swrk() = default;
  Swrk(Swrk&& o) noexcept : pid(std::exchange(o.pid, 0)), sock(std::move(o.sock)) {}
  ~Swrk() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  int wait() {
    int status = 0;
    while (::waitpid(std::exchange(pid, 0), &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }
};

// The child gets exactly the fds the request names (everything else we hold is O_CLOEXEC) and
// a fixed PATH (CRIU runs iptables or nft for its network lock).
Result<Swrk> spawn(const std::string& criu, const Options* o) {
  int sp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return sys_error("criu: socketpair");
  Fd ours(sp[0]), theirs(sp[1]);
  std::vector<int> pass{theirs.get()};
  if (o) {
    pass.push_back(o->images_dir_fd);
    if (o->work_dir_fd >= 0) pass.push_back(o->work_dir_fd);
    for (auto& [key, fd] : o->inherit_fds) pass.push_back(fd);
  }
  std::string fdarg = std::to_string(theirs.get());
  pid_t pid = ::fork();
  if (pid < 0) return sys_error("criu: fork");
  if (pid == 0) {
    for (int fd : pass)
      if (fd > 2) ::fcntl(fd, F_SETFD, 0);
    ::umask(077);  // the images hold the container's memory: files 0600, whatever the caller's umask
    const char* argv[] = {criu.c_str(), "swrk", fdarg.c_str(), nullptr};
    const char* envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
    ::execvpe(criu.c_str(), const_cast<char* const*>(argv), const_cast<char* const*>(envp));
    ::_exit(127);
  }
  Swrk s;
  s.pid = pid;
  s.sock = std::move(ours);
  return s;
}

Result<void> send_req(int sock, const CriuReq& req) {
  std::string buf(criu_req__get_packed_size(&req), '\0');
  criu_req__pack(&req, reinterpret_cast<uint8_t*>(buf.data()));
  if (::send(sock, buf.data(), buf.size(), MSG_NOSIGNAL) < 0) return sys_error("criu: send request");
  return {};
}

struct RespFree {
  void operator()(CriuResp* r) const { criu_resp__free_unpacked(r, nullptr); }
};
using Resp = std::unique_ptr<CriuResp, RespFree>;

// One answer; an empty one when CRIU closed the socket (it exited).
Result<Resp> recv_resp(int sock) {
  std::string buf(1 << 16, '\0');
  ssize_t n;
  do n = ::recv(sock, buf.data(), buf.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) return sys_error("criu: receive");
  if (n == 0) return Resp();
  Resp r(criu_resp__unpack(nullptr, size_t(n), reinterpret_cast<const uint8_t*>(buf.data())));
  if (!r) return fail("criu: an answer that does not parse as criu_resp");
  return r;
}

// The last lines of CRIU's log that say what went wrong.
std::string log_errors(const Options& o) {
  if (o.log_file.empty()) return {};
  int dir = o.work_dir_fd >= 0 ? o.work_dir_fd : o.images_dir_fd;
  auto text = read_file_at(dir, o.log_file, 16u << 20);
  if (!text) return {};
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text->size()) {
    size_t nl = text->find('\n', at);
    std::string line = text->substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? text->size() : nl + 1;
    if (line.find("Error") != std::string::npos) lines.push_back(line);
  }
  if (lines.empty()) return {};
  std::string out = "; from its log " + o.log_file + ":";
  for (size_t i = lines.size() > 4 ? lines.size() - 4 : 0; i < lines.size(); ++i) out += "\n  " + lines[i];
  return out;
}

const char* name_of(Request t) {
  switch (t) {
    case Request::dump: return "dump";
    case Request::pre_dump: return "pre-dump";
    case Request::restore: return "restore";
  }
  return "?";
}

// criu_opts from Options. The strings point into `o` and `keep`, which outlive the request.
struct Message {
  CriuOpts opts = CRIU_OPTS__INIT;
  std::vector<CgroupRoot> roots;
  std::vector<CgroupRoot*> root_ptrs;
  std::vector<InheritFd> inherits;
  std::vector<InheritFd*> inherit_ptrs;
  std::vector<char*> external;
};

void fill(Message& m, const Options& o) {
  CriuOpts& c = m.opts;
  auto str = [](const std::string& s) { return s.empty() ? nullptr : const_cast<char*>(s.c_str()); };
  c.images_dir_fd = o.images_dir_fd;
  if (o.work_dir_fd >= 0) c.has_work_dir_fd = true, c.work_dir_fd = o.work_dir_fd;
  if (o.pid) c.has_pid = true, c.pid = o.pid;
  c.has_log_level = true, c.log_level = 4;
  c.log_file = str(o.log_file);
  c.root = str(o.root);
  c.parent_img = str(o.parent_img);
  c.freeze_cgroup = str(o.freeze_cgroup);
  c.has_leave_running = true, c.leave_running = o.leave_running;
  c.has_tcp_established = true, c.tcp_established = o.tcp_established;
  c.has_ext_unix_sk = true, c.ext_unix_sk = o.ext_unix_sk;
  c.has_shell_job = true, c.shell_job = o.shell_job;
  c.has_file_locks = true, c.file_locks = o.file_locks;
  c.has_track_mem = true, c.track_mem = o.track_mem;
  c.has_auto_dedup = true, c.auto_dedup = o.auto_dedup;
  c.has_rst_sibling = true, c.rst_sibling = o.rst_sibling;
  c.has_notify_scripts = true, c.notify_scripts = true;
  c.has_manage_cgroups = true, c.manage_cgroups = true;
  if (o.manage_cgroups_mode)
    c.has_manage_cgroups_mode = true, c.manage_cgroups_mode = CriuCgMode(*o.manage_cgroups_mode);
  if (o.empty_ns) c.has_empty_ns = true, c.empty_ns = o.empty_ns;
  m.roots.reserve(o.cgroup_roots.size());
  for (const auto& path : o.cgroup_roots) {
    CgroupRoot r = CGROUP_ROOT__INIT;
    r.path = const_cast<char*>(path.c_str());
    m.roots.push_back(r);
  }
  for (auto& r : m.roots) m.root_ptrs.push_back(&r);
  c.n_cg_root = m.root_ptrs.size(), c.cg_root = m.root_ptrs.data();
  m.inherits.reserve(o.inherit_fds.size());
  for (const auto& [key, fd] : o.inherit_fds) {
    InheritFd i = INHERIT_FD__INIT;
    i.key = const_cast<char*>(key.c_str());
    i.fd = fd;
    m.inherits.push_back(i);
  }
  for (auto& i : m.inherits) m.inherit_ptrs.push_back(&i);
  c.n_inherit_fd = m.inherit_ptrs.size(), c.inherit_fd = m.inherit_ptrs.data();
  for (const auto& e : o.external) m.external.push_back(const_cast<char*>(e.c_str()));
  c.n_external = m.external.size(), c.external = m.external.data();
}

}  // namespace

Result<int> cgroup_mode(const std::string& word) {
  if (word == "soft") return int(CRIU_CG_MODE__SOFT);
  if (word == "full") return int(CRIU_CG_MODE__FULL);
  if (word == "strict") return int(CRIU_CG_MODE__STRICT);
  if (word == "ignore") return int(CRIU_CG_MODE__IGNORE);
  return fail("--manage-cgroups-mode \"" + word + "\": soft, full, strict or ignore");
}

Result<Answer> call(const std::string& criu, Request type, const Options& o, const Notify& notify) {
  const std::string what = std::string("criu ") + name_of(type);
  Swrk s = TRYC(what, spawn(criu, &o));
  Options spawned = o;
  if (o.on_spawn) TRYVC(what, o.on_spawn(s.pid, spawned));
  Message m;
  fill(m, spawned);
  CriuReq req = CRIU_REQ__INIT;
  req.type = type == Request::dump ? CRIU_REQ_TYPE__DUMP
             : type == Request::pre_dump ? CRIU_REQ_TYPE__PRE_DUMP
                                         : CRIU_REQ_TYPE__RESTORE;
  req.opts = &m.opts;
  TRYVC(what, send_req(s.sock.get(), req));
  std::optional<Error> refused;  // a notification we failed: CRIU gives up, we say why
  for (;;) {
    Resp r = TRYC(what, recv_resp(s.sock.get()));
    if (!r) {
      int status = s.wait();
      return fail(what + ": " + criu + " exited without an answer (" +
                  (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                     : "signal " + std::to_string(WTERMSIG(status))) +
                  (WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": not found or not executable" : "") + ")" +
                  log_errors(o));
    }
    if (r->type == CRIU_REQ_TYPE__NOTIFY) {
      std::string script = r->notify && r->notify->script ? r->notify->script : "";
      pid_t pid = r->notify && r->notify->has_pid ? r->notify->pid : 0;
      auto ok = notify ? notify(script, pid) : Result<void>{};
      if (!ok) refused = std::move(ok.error()).context(what + ": at " + script);
      CriuReq answer = CRIU_REQ__INIT;
      answer.type = CRIU_REQ_TYPE__NOTIFY;
      answer.has_notify_success = true;
      answer.notify_success = bool(ok);
      TRYVC(what, send_req(s.sock.get(), answer));
      continue;
    }
    s.sock.reset();
    s.wait();
    if (refused) return fail(std::move(*refused));
    if (!r->success) {
      std::string msg = what + " failed";
      if (r->cr_errmsg && *r->cr_errmsg) msg += ": " + std::string(r->cr_errmsg);
      if (r->has_cr_errno && r->cr_errno) return sys_error(msg + log_errors(o), r->cr_errno);
      return fail(msg + log_errors(o));
    }
    Answer a;
    if (r->restore) a.restored_pid = r->restore->pid;
    return a;
  }
}

Result<std::string> version(const std::string& criu) {
  Swrk s = TRYC("criu version", spawn(criu, nullptr));
  CriuReq req = CRIU_REQ__INIT;
  req.type = CRIU_REQ_TYPE__VERSION;
  TRYVC("criu version", send_req(s.sock.get(), req));
  Resp r = TRYC("criu version", recv_resp(s.sock.get()));
  s.sock.reset();
  int status = s.wait();
  if (!r || !r->success || !r->version)
    return fail("criu version: " + criu + " gave no version (" +
                (WIFEXITED(status) && WEXITSTATUS(status) == 127 ? std::string("not found or not executable")
                                                                  : "is it CRIU 3.0 or later?") + ")");
  std::string v = std::to_string(r->version->major_number) + "." + std::to_string(r->version->minor_number);
  if (r->version->has_sublevel) v += "." + std::to_string(r->version->sublevel);
  return v;
}

}  // namespace sh::criu
