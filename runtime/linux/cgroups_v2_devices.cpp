// Device rules on cgroup v2: an eBPF program of type BPF_PROG_TYPE_CGROUP_DEVICE attached to
// the container's cgroup (v2 has no devices.allow/deny files; runc and crun do the same).
//
// Semantics are those of the v1 list, per access bit: a rule "a *:* rwm" (allow or deny)
// resets everything before it and sets the default; otherwise, for each of m, r and w the
// request asks, the last rule naming that bit and matching type, major and minor decides, and
// the default decides where none does. A request is allowed only when every bit it asks is.
// (runc's filter matches a rule only when the request is a subset of its access, so "deny w"
// does not stop an open for "rw" there; per bit, it does here.) An access bit the kernel adds
// one day is refused.
//
// The program is attached with BPF_F_ALLOW_MULTI: a program higher up (systemd's, a
// client's) still runs, and every attached program must allow a request, so nothing here can
// loosen what a parent enforces.
#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/fd.hpp"
#include "base/log.hpp"
#include "runtime/linux/cgroups.hpp"
#include "runtime/linux/cgroups_impl.hpp"

namespace sh::cgroups::detail::v2 {
namespace {

std::string rule_path(size_t i) { return "linux.resources.devices[" + std::to_string(i) + "]"; }

uint32_t access_bits(const std::string& access) {
  uint32_t bits = 0;
  for (char c : access)
    bits |= c == 'm' ? BPF_DEVCG_ACC_MKNOD : c == 'r' ? BPF_DEVCG_ACC_READ : c == 'w' ? BPF_DEVCG_ACC_WRITE : 0;
  return bits;
}

bool wildcard(const std::optional<int64_t>& v) { return !v || *v < 0; }

// The instructions, and forward jumps patched once their labels are placed.
struct Asm {
  std::vector<bpf_insn> code;
  std::vector<std::pair<size_t, int>> jumps;  // (instruction, label)
  std::vector<long> labels;

  int label() {
    labels.push_back(-1);
    return int(labels.size() - 1);
  }
  void place(int l) { labels[size_t(l)] = long(code.size()); }
  void emit(uint8_t op, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    bpf_insn i{};
    i.code = op;
    i.dst_reg = dst & 0xf;
    i.src_reg = src & 0xf;
    i.off = off;
    i.imm = imm;
    code.push_back(i);
  }
  void jump(uint8_t op, uint8_t dst, int32_t imm, int target) {
    jumps.emplace_back(code.size(), target);
    emit(op, dst, 0, 0, imm);
  }
  void ret(int32_t v) {
    emit(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, v);
    emit(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
  }
  std::vector<bpf_insn> finish() {
    for (auto [at, l] : jumps) code[at].off = int16_t(labels[size_t(l)] - long(at) - 1);
    return std::move(code);
  }
};

// Registers once the context is read: r2 device type, r3 access, r4 major, r5 minor.
constexpr uint8_t kType = BPF_REG_2, kAccess = BPF_REG_3, kMajor = BPF_REG_4, kMinor = BPF_REG_5, kTmp = BPF_REG_1;

}  // namespace

Result<DeviceFilter> device_filter(const std::vector<oci::DeviceRule>& rules) {
  DeviceFilter f;
  for (size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    if (r.type != "a" && r.type != "b" && r.type != "c") return fail(rule_path(i) + ".type: must be a, b or c");
    if (r.access.empty() || r.access.find_first_not_of("rwm") != std::string::npos)
      return fail(rule_path(i) + ".access: must be a combination of r, w and m");
    for (auto [v, name] : {std::pair{&r.major, ".major"}, {&r.minor, ".minor"}})
      if (*v && **v > INT32_MAX) return fail(rule_path(i) + name + ": " + std::to_string(**v) + " is out of range");
    if (r.type == "a" && wildcard(r.major) && wildcard(r.minor) && access_bits(r.access) == 7) {
      f.default_allow = r.allow;
      f.rules.clear();
      continue;
    }
    f.rules.push_back(r);
  }
  return f;
}

bool allows(const DeviceFilter& f, char type, int64_t major, int64_t minor, const std::string& access) {
  uint32_t asked = access_bits(access);
  for (uint32_t bit : {BPF_DEVCG_ACC_MKNOD, BPF_DEVCG_ACC_READ, BPF_DEVCG_ACC_WRITE}) {
    if (!(asked & bit)) continue;
    bool allowed = f.default_allow;
    for (auto it = f.rules.rbegin(); it != f.rules.rend(); ++it) {
      const auto& r = *it;
      if (!(access_bits(r.access) & bit)) continue;
      if (r.type != "a" && r.type[0] != type) continue;
      if (!wildcard(r.major) && *r.major != major) continue;
      if (!wildcard(r.minor) && *r.minor != minor) continue;
      allowed = r.allow;
      break;
    }
    if (!allowed) return false;
  }
  return true;
}

std::vector<bpf_insn> device_program(const DeviceFilter& f) {
  Asm a;
  // struct bpf_cgroup_dev_ctx { u32 access_type (access << 16 | type); u32 major; u32 minor; }
  a.emit(BPF_LDX | BPF_MEM | BPF_W, kType, BPF_REG_1, 0, 0);
  a.emit(BPF_LDX | BPF_MEM | BPF_W, kMajor, BPF_REG_1, 4, 0);
  a.emit(BPF_LDX | BPF_MEM | BPF_W, kMinor, BPF_REG_1, 8, 0);
  a.emit(BPF_ALU | BPF_MOV | BPF_X, kAccess, kType, 0, 0);
  a.emit(BPF_ALU | BPF_RSH | BPF_K, kAccess, 0, 0, 16);
  a.emit(BPF_ALU | BPF_AND | BPF_K, kType, 0, 0, 0xffff);
  // An access bit this program does not know: refused.
  int known = a.label();
  a.emit(BPF_ALU | BPF_MOV | BPF_X, kTmp, kAccess, 0, 0);
  a.emit(BPF_ALU | BPF_AND | BPF_K, kTmp, 0, 0, ~int32_t(7));
  a.jump(BPF_JMP | BPF_JEQ | BPF_K, kTmp, 0, known);
  a.ret(0);
  a.place(known);
  for (uint32_t bit : {BPF_DEVCG_ACC_MKNOD, BPF_DEVCG_ACC_READ, BPF_DEVCG_ACC_WRITE}) {
    int next_bit = a.label();
    a.emit(BPF_ALU | BPF_MOV | BPF_X, kTmp, kAccess, 0, 0);
    a.emit(BPF_ALU | BPF_AND | BPF_K, kTmp, 0, 0, int32_t(bit));
    a.jump(BPF_JMP | BPF_JEQ | BPF_K, kTmp, 0, next_bit);  // not asked
    bool decided = false;  // a rule matching every device: what follows is unreachable (the verifier refuses that)
    for (auto it = f.rules.rbegin(); it != f.rules.rend() && !decided; ++it) {
      const auto& r = *it;
      if (!(access_bits(r.access) & bit)) continue;
      int next_rule = a.label();
      decided = r.type == "a" && wildcard(r.major) && wildcard(r.minor);
      if (r.type != "a")
        a.jump(BPF_JMP | BPF_JNE | BPF_K, kType, r.type == "b" ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR, next_rule);
      if (!wildcard(r.major)) a.jump(BPF_JMP | BPF_JNE | BPF_K, kMajor, int32_t(*r.major), next_rule);
      if (!wildcard(r.minor)) a.jump(BPF_JMP | BPF_JNE | BPF_K, kMinor, int32_t(*r.minor), next_rule);
      if (r.allow)
        a.jump(BPF_JMP | BPF_JA, 0, 0, next_bit);
      else
        a.ret(0);
      a.place(next_rule);
    }
    if (!decided && !f.default_allow) a.ret(0);
    a.place(next_bit);
  }
  a.ret(1);
  return a.finish();
}

Result<void> devices(const Dir& d, const std::vector<oci::DeviceRule>& rules) {
  DeviceFilter f = TRY(device_filter(rules));
  if (f.default_allow && f.rules.empty()) return {};  // "a *:* rwm" last: nothing to refuse
  std::vector<bpf_insn> prog = device_program(f);
  static const char kLicense[] = "Apache-2.0";
  std::vector<char> verifier_log;
  auto load_prog = [&](bool with_log) {
    union bpf_attr load;
    std::memset(&load, 0, sizeof load);
    load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    load.insns = uint64_t(uintptr_t(prog.data()));
    load.insn_cnt = uint32_t(prog.size());
    load.license = uint64_t(uintptr_t(kLicense));
    if (with_log) {  // only to say why it failed: a successful load needs no log (and a short one is ENOSPC)
      verifier_log.assign(1 << 20, '\0');
      load.log_buf = uint64_t(uintptr_t(verifier_log.data()));
      load.log_size = uint32_t(verifier_log.size());
      load.log_level = 1;
    }
    std::memcpy(load.prog_name, "sharness_dev", sizeof "sharness_dev");
    return Fd(int(::syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof load)));
  };
  Fd p = load_prog(false);
  if (!p) {
    int e = errno;
    if (e == EINVAL || e == EACCES) (void)load_prog(true);
    std::string log(verifier_log.empty() ? "" : verifier_log.data());
    if (log.size() > 400) log = "..." + log.substr(log.size() - 400);
    return sys_error("linux.resources.devices: load the eBPF device program (" + std::to_string(prog.size()) +
                         " instructions) for " + d.path + (log.empty() ? "" : ": verifier: " + log),
                     e);
  }
  // BPF_PROG_ATTACH wants a real file, not our O_PATH handle: reopen the same directory.
  Fd dir(::openat(d.fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return sys_error("open " + d.path);
  union bpf_attr attach;
  std::memset(&attach, 0, sizeof attach);
  attach.target_fd = uint32_t(dir.get());
  attach.attach_bpf_fd = uint32_t(p.get());
  attach.attach_type = BPF_CGROUP_DEVICE;
  attach.attach_flags = BPF_F_ALLOW_MULTI;
  if (::syscall(SYS_bpf, BPF_PROG_ATTACH, &attach, sizeof attach) < 0)
    return sys_error("linux.resources.devices: attach the eBPF device program to " + d.path);
  log::debug("cgroup " + d.path + ": eBPF device program attached (" + std::to_string(f.rules.size()) + " rules, " +
             "default " + (f.default_allow ? "allow" : "deny") + ")");
  return {};
}

}  // namespace sh::cgroups::detail::v2
