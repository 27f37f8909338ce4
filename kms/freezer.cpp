#include "kms/freezer.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace sh::kms {
namespace {

double now_ms() {
  struct timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

Result<std::string> pread_all(int fd, const std::string& what) {
  char buf[512];
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n < 0) return sys_error("read " + what);
  return std::string(buf, static_cast<size_t>(n));
}

Result<void> pwrite_str(int fd, std::string_view s, const std::string& what) {
  if (::pwrite(fd, s.data(), s.size(), 0) != static_cast<ssize_t>(s.size())) return sys_error("write " + what);
  return {};
}

}  // namespace

Result<Freezer> Freezer::open(const cgroups::Cgroup& cg) {
  Freezer f;
  std::string v1 = cg.dir_for("freezer");
  std::string dir = v1.empty() ? cg.dir_for("") : v1;
  if (dir.empty()) return fail("freezer: no v1 freezer hierarchy and no cgroup2 for " + cg.path());
  // A hybrid host with a v1 freezer uses it (the v2 hierarchy there does not hold the tasks).
  f.v2_ = v1.empty() || cg.layout().mode == cgroups::Mode::v2;
  if (f.v2_) dir = cg.dir_for("");
  f.path_ = dir + (f.v2_ ? "/cgroup.freeze" : "/freezer.state");
  f.state_ = Fd(::open(f.path_.c_str(), O_RDWR | O_CLOEXEC));
  if (!f.state_) return sys_error("freezer: open " + f.path_);
  if (f.v2_) {
    std::string ev = dir + "/cgroup.events";
    f.events_ = Fd(::open(ev.c_str(), O_RDONLY | O_CLOEXEC));
    if (!f.events_) return sys_error("freezer: open " + ev);
  }
  return f;
}

Result<double> Freezer::set(bool frozen) {
  const double t0 = now_ms();
  // Bounded: a freeze that does not take within 2 s is an error (the worker is stuck in
  // the kernel), never an endless spin.
  while (now_ms() - t0 < 2000) {
    if (v2_) {
      TRYV(pwrite_str(state_.get(), frozen ? "1" : "0", path_));
      std::string ev = TRY(pread_all(events_.get(), "cgroup.events"));
      if (ev.find(frozen ? "frozen 1" : "frozen 0") != std::string::npos) return now_ms() - t0;
    } else {
      TRYV(pwrite_str(state_.get(), frozen ? "FROZEN" : "THAWED", path_));
      std::string st = TRY(pread_all(state_.get(), path_));
      if (st.starts_with(frozen ? "FROZEN" : "THAWED")) return now_ms() - t0;
    }
  }
  return std::unexpected(Error{ETIMEDOUT, "freezer: " + path_ + " not " + (frozen ? "frozen" : "thawed") + " after 2 s"});
}

}  // namespace sh::kms
