// OCI mount options -> MS_* flags, propagation, recursive MOUNT_ATTR_* and fs data,
// with runc's vocabulary. Anything unknown is filesystem data ("mode=755,size=64k").
#include <sys/mount.h>

#include <string_view>

#include "runtime/linux/rootfs.hpp"

namespace sh::rootfs {
namespace {

struct FlagOption {
  std::string_view name;
  bool clear;          // the option removes the flag ("rw" removes MS_RDONLY)
  unsigned long flag;
};

constexpr FlagOption kFlagOptions[] = {
    {"defaults", false, 0},
    {"ro", false, MS_RDONLY},
    {"rw", true, MS_RDONLY},
    {"nosuid", false, MS_NOSUID},
    {"suid", true, MS_NOSUID},
    {"nodev", false, MS_NODEV},
    {"dev", true, MS_NODEV},
    {"noexec", false, MS_NOEXEC},
    {"exec", true, MS_NOEXEC},
    {"sync", false, MS_SYNCHRONOUS},
    {"async", true, MS_SYNCHRONOUS},
    {"dirsync", false, MS_DIRSYNC},
    {"remount", false, MS_REMOUNT},
    {"mand", false, MS_MANDLOCK},
    {"nomand", true, MS_MANDLOCK},
    {"noatime", false, MS_NOATIME},
    {"atime", true, MS_NOATIME},
    {"nodiratime", false, MS_NODIRATIME},
    {"diratime", true, MS_NODIRATIME},
    {"relatime", false, MS_RELATIME},
    {"norelatime", true, MS_RELATIME},
    {"strictatime", false, MS_STRICTATIME},
    {"nostrictatime", true, MS_STRICTATIME},
    {"lazytime", false, MS_LAZYTIME},
    {"nolazytime", true, MS_LAZYTIME},
    {"iversion", false, MS_I_VERSION},
    {"noiversion", true, MS_I_VERSION},
    {"silent", false, MS_SILENT},
    {"loud", true, MS_SILENT},
    {"nosymfollow", false, MS_NOSYMFOLLOW},
    {"symfollow", true, MS_NOSYMFOLLOW},
    {"bind", false, MS_BIND},
    {"rbind", false, MS_BIND | MS_REC},
};

struct PropagationOption {
  std::string_view name;
  unsigned long flags;
};

constexpr PropagationOption kPropagationOptions[] = {
    {"private", MS_PRIVATE},          {"rprivate", MS_PRIVATE | MS_REC},
    {"shared", MS_SHARED},            {"rshared", MS_SHARED | MS_REC},
    {"slave", MS_SLAVE},              {"rslave", MS_SLAVE | MS_REC},
    {"unbindable", MS_UNBINDABLE},    {"runbindable", MS_UNBINDABLE | MS_REC},
};

// Recursive attributes (mount_setattr with AT_RECURSIVE). The atime ones are an enum in
// the kernel, not bits: setting one must clear the whole MOUNT_ATTR__ATIME field.
struct RecursiveOption {
  std::string_view name;
  bool clear;
  uint64_t attr;
  bool atime;
};

constexpr RecursiveOption kRecursiveOptions[] = {
    {"rro", false, MOUNT_ATTR_RDONLY, false},
    {"rrw", true, MOUNT_ATTR_RDONLY, false},
    {"rnosuid", false, MOUNT_ATTR_NOSUID, false},
    {"rsuid", true, MOUNT_ATTR_NOSUID, false},
    {"rnodev", false, MOUNT_ATTR_NODEV, false},
    {"rdev", true, MOUNT_ATTR_NODEV, false},
    {"rnoexec", false, MOUNT_ATTR_NOEXEC, false},
    {"rexec", true, MOUNT_ATTR_NOEXEC, false},
    {"rnodiratime", false, MOUNT_ATTR_NODIRATIME, false},
    {"rdiratime", true, MOUNT_ATTR_NODIRATIME, false},
    {"rnosymfollow", false, MOUNT_ATTR_NOSYMFOLLOW, false},
    {"rsymfollow", true, MOUNT_ATTR_NOSYMFOLLOW, false},
    {"rnoatime", false, MOUNT_ATTR_NOATIME, true},
    {"rstrictatime", false, MOUNT_ATTR_STRICTATIME, true},
    {"rrelatime", false, MOUNT_ATTR_RELATIME, true},
    // Turning off noatime/strictatime/relatime falls back to the kernel default, relatime.
    {"ratime", false, MOUNT_ATTR_RELATIME, true},
    {"rnorelatime", false, MOUNT_ATTR_RELATIME, true},
    {"rnostrictatime", false, MOUNT_ATTR_RELATIME, true},
};

constexpr unsigned long kAtimeFlags = MS_NOATIME | MS_RELATIME | MS_STRICTATIME;

void apply_flag(MountFlags& f, const FlagOption& o) {
  if (o.clear) {
    f.flags &= ~o.flag;
    f.clear_flags |= o.flag;
    return;
  }
  // The atime modes exclude each other: the last one given wins, as with mount(8).
  if (o.flag & kAtimeFlags) f.flags &= ~kAtimeFlags;
  f.flags |= o.flag;
  f.clear_flags &= ~o.flag;
}

void apply_recursive(MountFlags& f, const RecursiveOption& o) {
  f.recursive_attrs = true;
  if (o.atime) {
    f.attr_clr |= MOUNT_ATTR__ATIME;
    f.attr_set = (f.attr_set & ~uint64_t(MOUNT_ATTR__ATIME)) | o.attr;
  } else if (o.clear) {
    f.attr_clr |= o.attr;
    f.attr_set &= ~o.attr;
  } else {
    f.attr_set |= o.attr;
    f.attr_clr &= ~o.attr;
  }
}

template <class Table>
auto find_option(const Table& table, std::string_view name) -> decltype(&table[0]) {
  for (const auto& o : table)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace

MountFlags parse_mount_options(const std::vector<std::string>& options) {
  MountFlags f;
  for (const std::string& opt : options) {
    if (opt.empty()) continue;
    if (auto* o = find_option(kFlagOptions, opt)) {
      apply_flag(f, *o);
    } else if (auto* p = find_option(kPropagationOptions, opt)) {
      f.propagation = p->flags;  // one propagation type per mount: the last one wins
    } else if (auto* r = find_option(kRecursiveOptions, opt)) {
      apply_recursive(f, *r);
    } else if (opt == "idmap") {
      f.idmap = true;
    } else if (opt == "ridmap") {
      f.ridmap = true;
    } else if (opt == "tmpcopyup") {
      f.tmpcopyup = true;
    } else {
      if (!f.data.empty()) f.data += ',';
      f.data += opt;
    }
  }
  return f;
}

}  // namespace sh::rootfs
