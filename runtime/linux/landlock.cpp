#include "runtime/linux/landlock.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/linux/safe_path.hpp"

namespace sh::landlock {

namespace {

using oci::LandlockKind;

// Debian 12's linux-libc-dev ships the ABI 2 header: no network rules, no scopes, and a
// one-field landlock_ruleset_attr. The structs below are the ABI 6+ layouts from the
// kernel's uapi linux/landlock.h, under our own names so they cannot clash with the header.
// A larger struct with zeroed tail fields is accepted by older kernels (copy_struct_from_user).
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};
struct PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));  // packed in the uapi too: 12 bytes
struct NetPortAttr {
  uint64_t allowed_access;
  uint64_t port;  // host endianness
};
static_assert(sizeof(PathBeneathAttr) == 12 && sizeof(NetPortAttr) == 16 && sizeof(RulesetAttr) == 24);

constexpr uint32_t kCreateRulesetVersion = 1u << 0;  // LANDLOCK_CREATE_RULESET_VERSION
constexpr int kRulePathBeneath = 1;                  // LANDLOCK_RULE_PATH_BENEATH
constexpr int kRuleNetPort = 2;                      // LANDLOCK_RULE_NET_PORT (ABI 4)
constexpr int kMaxKnownAbi = 7;                      // ABI 7: audit logging flags, no new right

// Our table (oci/landlock.cpp) against whatever the installed header does define.
constexpr uint64_t bit_of(LandlockKind k, std::string_view name) {
  for (auto& r : oci::kLandlockRights)
    if (r.kind == k && r.name == name) return r.bit;
  return 0;
}
static_assert(bit_of(LandlockKind::fs, "execute") == LANDLOCK_ACCESS_FS_EXECUTE);
static_assert(bit_of(LandlockKind::fs, "make_sym") == LANDLOCK_ACCESS_FS_MAKE_SYM);
#ifdef LANDLOCK_ACCESS_FS_REFER
static_assert(bit_of(LandlockKind::fs, "refer") == LANDLOCK_ACCESS_FS_REFER);
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
static_assert(bit_of(LandlockKind::fs, "truncate") == LANDLOCK_ACCESS_FS_TRUNCATE);
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
static_assert(bit_of(LandlockKind::fs, "ioctl_dev") == LANDLOCK_ACCESS_FS_IOCTL_DEV);
#endif
#ifdef LANDLOCK_ACCESS_NET_CONNECT_TCP
static_assert(bit_of(LandlockKind::net, "connect_tcp") == LANDLOCK_ACCESS_NET_CONNECT_TCP);
#endif
#ifdef LANDLOCK_SCOPE_SIGNAL
static_assert(bit_of(LandlockKind::scope, "signal") == LANDLOCK_SCOPE_SIGNAL);
#endif

long sys_create_ruleset(const RulesetAttr* attr, size_t size, uint32_t flags) {
  return ::syscall(SYS_landlock_create_ruleset, attr, size, flags);
}
long sys_add_rule(int ruleset_fd, int type, const void* attr) {
  return ::syscall(SYS_landlock_add_rule, ruleset_fd, type, attr, 0u);
}
// ABI 7 audits denials, but by default only those of the program that restricted itself; the
// runtime restricts and then execs the workload, whose denials the reader must see
// (docs/denials.md). Audit disabled on the host, the kernel logs nothing either way.
constexpr unsigned kLogNewExecOn = 1u << 1;  // LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (Linux 6.15)
long sys_restrict_self(int ruleset_fd) {
  return ::syscall(SYS_landlock_restrict_self, ruleset_fd, abi_version() >= 7 ? kLogNewExecOn : 0u);
}

const char* kind_word(LandlockKind k) { return k == LandlockKind::scope ? "scope" : "right"; }

// The config's mask for one kind, and where the negotiated one goes.
uint64_t asked(const oci::LandlockConfig& c, LandlockKind k) {
  return k == LandlockKind::fs ? c.handled_fs : k == LandlockKind::net ? c.handled_net : c.scoped;
}
uint64_t& granted(Negotiated& n, LandlockKind k) {
  return k == LandlockKind::fs ? n.fs_handled : k == LandlockKind::net ? n.net_handled : n.scoped;
}

int abi_of(std::string_view name) {
  for (auto& r : oci::landlock_rights())
    if (r.name == name) return r.abi;
  return 0;
}

// Open a rule's path as the runtime (root, before the uid change), inside the current root.
// A policy's block (canonical_paths) follows no symlink at all: its composition compares
// paths lexically, which only matches the kernel's "beneath" without symlinks.
Result<Fd> open_rule_path(int root_fd, const std::string& path, bool canonical) {
  return rootfs::open_in_root(root_fd, path, O_PATH, canonical ? RESOLVE_NO_SYMLINKS : 0);
}

Result<void> add_path_rule(int ruleset, int fd, uint64_t allowed, const std::string& path) {
  // The kernel refuses directory-only rights on a file (EINVAL): keep what applies to one.
  // Only a rule with such a right needs to know which it is (file rights fit both).
  if (allowed & ~oci::kLandlockFileRights) {
    struct stat st;
    if (::fstat(fd, &st) < 0) return sys_error("landlock: stat \"" + path + "\"");
    if (!S_ISDIR(st.st_mode)) allowed &= oci::kLandlockFileRights;
  }
  if (!allowed) return {};
  PathBeneathAttr a{allowed, fd};
  if (sys_add_rule(ruleset, kRulePathBeneath, &a) < 0) return sys_error("landlock: add rule for \"" + path + "\"");
  return {};
}

Result<void> add_path_rules(int ruleset, const oci::LandlockConfig& c, Negotiated& n) {
  Fd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return sys_error("landlock: open /");
  for (size_t i = 0; i < c.path_beneath.size(); ++i) {
    auto& rule = c.path_beneath[i];
    uint64_t allowed = rule.allowed & n.fs_handled;  // dropped rights leave the rule too
    if (!allowed) continue;
    for (auto& path : rule.paths) {
      auto fd = open_rule_path(root.get(), path, c.canonical_paths);
      if (!fd && fd.error().err == ELOOP && c.canonical_paths)
        fd = fail(std::move(fd.error()).context("a policy's rule path must not pass through a symlink"));
      if (!fd && (fd.error().err == ENOENT || (fd.error().err == ELOOP && c.canonical_paths)) &&
          !c.disable_best_effort) {
        n.skipped_paths.push_back(path);
        continue;
      }
      if (!fd)
        return fail(std::move(fd.error())
                        .context("landlock: rules.pathBeneath[" + std::to_string(i) + "]: path \"" + path + "\""));
      TRYV(add_path_rule(ruleset, fd->get(), allowed, path));
    }
  }
  return {};
}

Result<void> add_port_rules(int ruleset, const oci::LandlockConfig& c, const Negotiated& n) {
  for (auto& rule : c.net_port) {
    uint64_t allowed = rule.allowed & n.net_handled;
    if (!allowed) continue;
    for (auto port : rule.ports) {
      NetPortAttr a{allowed, port};
      if (sys_add_rule(ruleset, kRuleNetPort, &a) < 0)
        return sys_error("landlock: add rule for TCP port " + std::to_string(port));
    }
  }
  return {};
}

std::string names(LandlockKind k, uint64_t mask) {
  std::string s;
  for (auto& name : oci::landlock_names(k, mask)) s += (s.empty() ? "" : " ") + name;
  return "[" + s + "]";
}

}  // namespace

int abi_version() {
  static const int abi = [] {
    long v = sys_create_ruleset(nullptr, 0, kCreateRulesetVersion);
    return v < 0 ? 0 : int(v);  // ENOSYS: not built in; EOPNOTSUPP: disabled at boot
  }();
  return abi;
}

Result<Negotiated> negotiate(const oci::LandlockConfig& c, int abi) {
  Negotiated n;
  n.abi = abi;
  auto stood_in_by = [&](const oci::LandlockRight& r) -> const std::string* {
    for (auto& s : c.stand_ins)
      if (s.kind == r.kind && s.bit == r.bit) return &s.by;
    return nullptr;
  };
  bool all_stood_in = true;
  for (auto& r : oci::landlock_rights())
    if ((asked(c, r.kind) & r.bit) && !stood_in_by(r)) all_stood_in = false;
  if (abi <= 0 && c.disable_best_effort && !all_stood_in)
    return fail("landlock: the kernel has no Landlock (unsupported or disabled at boot) and disableBestEffort is set");
  for (auto& r : oci::landlock_rights()) {
    if (!(asked(c, r.kind) & r.bit)) continue;
    if (r.abi <= abi) {
      granted(n, r.kind) |= r.bit;
    } else if (auto* by = stood_in_by(r)) {
      n.stood_in.emplace_back(std::string(r.name), *by);
    } else if (c.disable_best_effort) {
      return fail("landlock: " + std::string(kind_word(r.kind)) + " \"" + std::string(r.name) + "\" needs ABI " +
                  std::to_string(r.abi) + ", kernel has " + std::to_string(abi));
    } else {
      n.dropped.emplace_back(r.name);
    }
  }
  return n;
}

Result<Fd> build_ruleset(const oci::LandlockConfig& c, Negotiated* out) { return build_ruleset(c, out, abi_version()); }

Result<Fd> build_ruleset(const oci::LandlockConfig& c, Negotiated* out, int abi) {
  Negotiated n = TRY(negotiate(c, abi));
  Fd ruleset;
  if (!n.enforces_nothing()) {
    RulesetAttr attr{n.fs_handled, n.net_handled, n.scoped};
    ruleset.reset(int(sys_create_ruleset(&attr, sizeof attr, 0)));  // O_CLOEXEC by the kernel
    if (!ruleset) return sys_error("landlock: create ruleset");
    TRYV(add_path_rules(ruleset.get(), c, n));
    TRYV(add_port_rules(ruleset.get(), c, n));
  }
  if (out) *out = std::move(n);
  return ruleset;
}

Result<void> restrict_self(int ruleset_fd) {
  if (ruleset_fd < 0) return {};
  if (sys_restrict_self(ruleset_fd) == 0) return {};
  if (errno == EPERM)
    return sys_error("landlock: restrict_self needs no_new_privs or CAP_SYS_ADMIN (set process.noNewPrivileges, "
                     "or enforce before capabilities are dropped)");
  return sys_error("landlock: restrict_self");
}

std::string describe(const Negotiated& n) {
  std::string s = "landlock ABI " + std::to_string(n.abi) + ": ";
  if (n.enforces_nothing()) {
    s += "nothing enforced";
  } else {
    s += "fs " + names(LandlockKind::fs, n.fs_handled) + ", net " + names(LandlockKind::net, n.net_handled) +
         ", scoped " + names(LandlockKind::scope, n.scoped);
  }
  if (!n.dropped.empty()) {
    s += "; NOT enforced (kernel lacks):";
    for (size_t i = 0; i < n.dropped.size(); ++i)
      s += (i ? ", " : " ") + n.dropped[i] + " (ABI " + std::to_string(abi_of(n.dropped[i])) + ")";
  }
  if (!n.stood_in.empty()) {
    s += "; stood in for (kernel lacks):";
    for (size_t i = 0; i < n.stood_in.size(); ++i)
      s += (i ? ", " : " ") + n.stood_in[i].first + " (ABI " + std::to_string(abi_of(n.stood_in[i].first)) + ") by " +
           n.stood_in[i].second;
  }
  if (!n.skipped_paths.empty()) {
    s += "; allow rules for missing paths skipped:";
    for (auto& p : n.skipped_paths) s += " " + p;
  }
  return s;
}

std::vector<AbiRights> rights_per_abi() {
  std::vector<AbiRights> out;
  for (int abi = 1; abi <= kMaxKnownAbi; ++abi) {
    AbiRights a;
    a.abi = abi;
    for (auto& r : oci::landlock_rights()) {
      if (r.abi != abi) continue;
      auto& list = r.kind == LandlockKind::fs ? a.fs : r.kind == LandlockKind::net ? a.net : a.scoped;
      list.emplace_back(r.name);
    }
    out.push_back(std::move(a));
  }
  return out;
}

AbiRights supported(int abi) {
  AbiRights a;
  a.abi = abi;
  for (auto& r : oci::landlock_rights()) {
    if (r.abi > abi) continue;
    auto& list = r.kind == LandlockKind::fs ? a.fs : r.kind == LandlockKind::net ? a.net : a.scoped;
    list.emplace_back(r.name);
  }
  return a;
}

AbiRights supported() { return supported(abi_version()); }

}  // namespace sh::landlock
