#include "edges/live.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "base/file.hpp"

namespace sh::edges::live {
namespace {

std::string short_fp(std::string_view fp) { return std::string(fp.substr(0, 16)); }

// dir/name as a directory of ours: made 0755 when absent, then refused unless it is a directory
// owned by our euid that no one else can write (a registry others could write would let them
// make any leaf live).
Result<Fd> own_dir(int dirfd, const std::string& name, const std::string& what, bool create) {
  if (create && ::mkdirat(dirfd, name.c_str(), 0755) < 0 && errno != EEXIST) return sys_error("mkdir " + what);
  Fd d(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d) return sys_error("open " + what);
  struct stat st {};
  if (::fstat(d.get(), &st) < 0) return sys_error("stat " + what);
  if (st.st_uid != ::geteuid() || (st.st_mode & 022))
    return fail(what + ": not a directory owned by uid " + std::to_string(::geteuid()) + " that only it can write");
  // mkdir's mode went through the umask; every proxy (each its own uid) must search it.
  if ((st.st_mode & 07777) != 0755 && ::fchmod(d.get(), 0755) < 0) return sys_error("chmod " + what);
  return d;
}

Result<Fd> make_registry(const std::string& state_root) {
  Fd root = TRY(open_file(state_root, O_RDONLY | O_DIRECTORY));
  Fd mesh = TRY(own_dir(root.get(), ".edges", state_root + "/.edges", true));
  return own_dir(mesh.get(), ".live", registry_dir(state_root), true);
}

// Unlink every entry of the holder directory `d` but `keep`.
Result<void> unlink_entries(int d, const std::string& what, std::string_view keep) {
  Fd dup(::openat(d, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dup) return sys_error("open " + what);
  DIR* dir = ::fdopendir(dup.release());
  if (!dir) return sys_error("opendir " + what);
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(dir)) {
    std::string n = e->d_name;
    if (n != "." && n != ".." && n != keep) names.push_back(std::move(n));
  }
  ::closedir(dir);
  for (const auto& n : names)
    if (::unlinkat(d, n.c_str(), 0) < 0 && errno != ENOENT) return sys_error("revoke " + what + "/" + n);
  return {};
}

}  // namespace

std::string registry_dir(const std::string& state_root) { return state_root + "/.edges/.live"; }

Result<Fd> open_registry(const std::string& state_root) {
  std::string what = registry_dir(state_root);
  Fd root = TRY(open_file(state_root, O_RDONLY | O_DIRECTORY));
  Fd mesh = TRY(own_dir(root.get(), ".edges", state_root + "/.edges", false));
  return TRYC("the live registry of edge leaves", own_dir(mesh.get(), ".live", what, false));
}

Result<void> validate_name(std::string_view name) {
  if (name.empty() || name.size() > 200 || name == "." || name == ".." ||
      name.find_first_of(std::string_view("/\0", 2)) != std::string_view::npos)
    return fail("\"" + std::string(name) + "\" is not a leaf holder's name");
  return {};
}

Result<void> validate_fingerprint(std::string_view fp) {
  bool ok = fp.size() == 64;
  for (char c : fp) ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!ok) return fail("\"" + std::string(fp) + "\" is not a SHA-256 fingerprint");
  return {};
}

Result<void> add(const std::string& state_root, std::string_view name, std::string_view fp) {
  Fd reg = TRY(make_registry(state_root));
  return add_at(reg.get(), name, fp);
}

Result<void> add_at(int registry, std::string_view name, std::string_view fp) {
  TRYV(validate_name(name));
  TRYV(validate_fingerprint(fp));
  std::string n(name), f(fp);
  Fd holder = TRY(own_dir(registry, n, "the live registry's " + n, true));
  Fd e(::openat(holder.get(), f.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!e) return sys_error("register leaf " + short_fp(fp) + " of " + n + " live");
  if (::fchmod(e.get(), 0644) < 0) return sys_error("chmod the live registry's " + n + "/" + short_fp(fp));
  return {};
}

Result<void> revoke_others_at(int registry, std::string_view name, std::string_view keep) {
  TRYV(validate_name(name));
  std::string n(name), what = "the live registry's " + n;
  Fd holder(::openat(registry, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!holder) return errno == ENOENT ? Result<void>{} : sys_error("open " + what);
  return unlink_entries(holder.get(), what, keep);
}

Result<void> revoke_at(int registry, std::string_view name) {
  // No leaf can be registered under a name the registry does not take (a container id may be
  // longer than a leaf's name): nothing to revoke, and delete must not fail for it.
  if (!validate_name(name)) return {};
  TRYV(revoke_others_at(registry, name, {}));
  std::string n(name);
  if (::unlinkat(registry, n.c_str(), AT_REMOVEDIR) < 0 && errno != ENOENT)
    return sys_error("revoke the leaves of " + n + ": rmdir");
  return {};
}

Result<void> revoke(const std::string& state_root, std::string_view name) {
  Fd mesh(::open((state_root + "/.edges").c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!mesh && errno == ENOENT) return {};
  if (!mesh) return sys_error("open " + state_root + "/.edges");
  Fd reg(::openat(mesh.get(), ".live", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!reg && errno == ENOENT) return {};
  if (!reg) return sys_error("open " + registry_dir(state_root));
  return revoke_at(reg.get(), name);
}

Result<void> check(int registry, std::string_view name, std::string_view fp, bool* revoked) {
  if (revoked) *revoked = false;
  TRYV(validate_name(name));
  TRYV(validate_fingerprint(fp));
  std::string n(name), f(fp), leaf = "leaf " + short_fp(fp) + " of " + n;
  auto gone = [&]() -> Result<void> {
    if (revoked) *revoked = true;
    return fail(leaf + " is not live (revoked: its holder was deleted or stopped, or the leaf was renewed)");
  };
  // O_PATH and stat: the proxy opens no file (Landlock does not mediate either).
  Fd holder(::openat(registry, n.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!holder) return errno == ENOENT ? gone() : sys_error("the live registry: open " + n);
  struct stat st {};
  if (::fstatat(holder.get(), f.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno == ENOENT ? gone() : sys_error("the live registry: stat " + n + "/" + short_fp(fp));
  if (!S_ISREG(st.st_mode)) return fail("the live registry: " + n + "/" + short_fp(fp) + " is not a regular file");
  return {};
}

}  // namespace sh::edges::live
