// `policy pin --bundle DIR POLICY [--out FILE]` and `policy pin --rootfs DIR POLICY [--out FILE]`:
// refresh the SHA-256 pins of a policy's exec section from the files a rootfs has now
// (spec-mapping/pin rewrites the document; runtime/linux/exec_allowlist opens the files safely),
// and say what changed. The policy goes to FILE, or to stdout; the file given is never edited
// unless --out names it. With --bundle the rootfs is the bundle's, and a pin with a symlink on
// its way (Debian 12's /bin -> usr/bin) moves to the canonical path resolved inside the rootfs,
// the path create checks; --rootfs (an install step pinning the host's own build for busybox
// bundles: `--rootfs /`) resolves symlinks inside that root, never out of it, and keeps the path.
#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>

#include "base/file.hpp"
#include "cmd/sharness-runtime/cmd_policy.hpp"
#include "runtime/linux/exec_allowlist.hpp"
#include "spec-mapping/pin.hpp"

namespace sh::cli {

Result<int> cmd_policy_pin(const Args& args, size_t from) {
  auto p = TRY(parse(kPolicyTable, args, from, "pin"));
  if (p.positional.size() != 1)
    return fail("policy pin: requires exactly 1 argument, the policy file (got " + std::to_string(p.positional.size()) +
                "; usage: " + kPolicyPinUsage + ")");
  if (p.has("bundle") == p.has("rootfs")) return fail(std::string("policy pin: give one of --bundle DIR or --rootfs DIR (usage: ") + kPolicyPinUsage + ")");
  const std::string& file = p.positional[0];
  std::string rootfs;
  if (p.has("bundle")) rootfs = TRY(lifecycle::load_bundle(p.get("bundle"))).rootfs;
  else rootfs = p.get("rootfs");
  Fd root(::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return sys_error("policy pin: rootfs " + rootfs);
  const auto symlinks = p.has("rootfs") ? exec_allowlist::Symlinks::follow : exec_allowlist::Symlinks::canonicalize;
  std::string text = TRY(read_file(file, 1u << 20));
  auto r = TRY(policy::repin(text, file, [&](const std::string& path) -> Result<policy::Pin> {
    return TRYC("policy pin: rootfs " + rootfs, exec_allowlist::hash_in_root(root.get(), path, symlinks));
  }));
  std::string report = policy::format_changes(r);
  if (!p.has("out")) {
    std::fwrite(r.text.data(), 1, r.text.size(), stdout);
    std::fflush(stdout);
    std::fwrite(report.data(), 1, report.size(), stderr);
    return 0;
  }
  const std::string out = p.get("out");
  struct stat st {};
  mode_t mode = ::stat(out.c_str(), &st) == 0 ? (st.st_mode & 07777) : ::stat(file.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  TRYV(write_file_atomic(out, r.text, mode));
  std::fwrite(report.data(), 1, report.size(), stdout);
  return 0;
}

}  // namespace sh::cli
