#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "base/file.hpp"
#include "runtime/lifecycle/container.hpp"

namespace sh::lifecycle {

namespace {
Result<std::string> real_path(const std::string& p, const std::string& what) {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return sys_error(what + " " + p);
  return std::string(buf);
}
}  // namespace

Result<Bundle> load_bundle(const std::string& dir) {
  Bundle b;
  b.path = TRY(real_path(dir.empty() ? "." : dir, "bundle"));
  b.config_text = TRYC("bundle " + b.path, read_file(b.path + "/config.json", 32u << 20));
  b.config = TRY(oci::parse_config(b.config_text, "config.json"));
  TRYV(oci::validate_config(b.config, "config.json"));
  std::string root = b.config.root.path;
  if (root.empty() || root[0] != '/') root = b.path + "/" + root;
  b.rootfs = TRYC("config.json: root.path", real_path(root, "rootfs"));
  // Bind sources may be relative to the bundle, as in runc.
  for (auto& m : b.config.mounts) {
    bool bind = m.type == "bind" || std::find(m.options.begin(), m.options.end(), "bind") != m.options.end() ||
                std::find(m.options.begin(), m.options.end(), "rbind") != m.options.end();
    if (bind && !m.source.empty() && m.source[0] != '/') m.source = b.path + "/" + m.source;
  }
  struct stat st;
  if (::stat(b.rootfs.c_str(), &st) < 0) return sys_error("rootfs " + b.rootfs);
  if (!S_ISDIR(st.st_mode)) return fail("rootfs " + b.rootfs + ": not a directory");
  return b;
}

}  // namespace sh::lifecycle
