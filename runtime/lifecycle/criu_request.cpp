// The image and work directories and CRIU's options (criu_request.hpp).
#include "runtime/lifecycle/criu_request.hpp"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.hpp"
#include "base/log.hpp"

namespace sh::lifecycle {
namespace {

std::string octal(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(m & 07777));
  return buf;
}

Result<Fd> open_held(const std::string& path, const char* what, bool create) {
  if (path.empty()) return fail(std::string(what) + ": no path given");
  if (create && ::mkdir(path.c_str(), 0700) < 0 && errno != EEXIST) return sys_error("make the " + std::string(what) + " " + path);
  auto fd = open_file(path, O_RDONLY | O_DIRECTORY);
  if (!fd) {
    if (fd.error().err == ENOENT) return fail(std::string(what) + " " + path + " does not exist");
    return fail(std::move(fd.error()).context(what));
  }
  struct stat st;
  if (::fstat(fd->get(), &st) < 0) return sys_error("stat the " + std::string(what) + " " + path);
  if (st.st_uid != ::geteuid())
    return fail(std::string(what) + " " + path + " is owned by uid " + std::to_string(st.st_uid) + ", not uid " +
                std::to_string(::geteuid()) + ": an image holds the container's memory and is trusted like root");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fail(std::string(what) + " " + path + " is writable by group or others (mode " + octal(st.st_mode) +
                "): an image holds the container's memory and is trusted like root");
  if (create && (st.st_mode & (S_IRWXG | S_IRWXO))) {
    log::warn(std::string(what) + " " + path + " was mode " + octal(st.st_mode) +
              "; made 0700: it will hold the container's memory, secrets included");
    if (::fchmod(fd->get(), 0700) < 0) return sys_error("chmod 0700 the " + std::string(what) + " " + path);
  }
  return std::move(*fd);
}

}  // namespace

Result<ImageDirs> open_image_dirs(const std::string& image_path, const std::string& work_path, bool create) {
  ImageDirs d;
  d.images = TRY(open_held(image_path, "image path", create));
  if (!work_path.empty()) d.work = TRY(open_held(work_path, "work path", true));
  return d;
}

Result<criu::Options> criu_options(const CriuFlags& f, const ImageDirs& dirs, const char* log) {
  criu::Options o;
  o.images_dir_fd = dirs.images.get();
  o.work_dir_fd = dirs.work ? dirs.work.get() : -1;
  o.log_file = log;
  o.tcp_established = f.tcp_established;
  o.ext_unix_sk = f.ext_unix_sk;
  o.shell_job = f.shell_job;
  o.file_locks = f.file_locks;
  o.auto_dedup = f.auto_dedup;
  if (!f.manage_cgroups_mode.empty()) o.manage_cgroups_mode = TRY(criu::cgroup_mode(f.manage_cgroups_mode));
  for (const auto& ns : f.empty_ns) {
    if (ns != "network") return fail("--empty-ns " + ns + ": only network is supported (as in runc)");
    o.empty_ns |= CLONE_NEWNET;
  }
  return o;
}

}  // namespace sh::lifecycle
