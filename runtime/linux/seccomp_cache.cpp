#include "runtime/linux/seccomp_cache.hpp"

#include <linux/seccomp.h>

#include <cstring>

#include "base/build_id.hpp"
#include "base/log.hpp"
#include "base/private_cache.hpp"
#include "base/sha256.hpp"

namespace sh::seccomp {
namespace {

// Entry layout: 64 hex chars of SHA-256(key, flags word, program), the seccomp(2) flags as a
// little-endian u32, 4 zero bytes, then the sock_filter array. The header is a multiple of
// sizeof(sock_filter), so the whole file is too.
constexpr size_t kDigestLen = 64;
constexpr size_t kHeaderLen = kDigestLen + 8;
constexpr unsigned kKnownFlags = SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW;
static_assert(kHeaderLen % sizeof(sock_filter) == 0);

// Length-prefixed, so no two different inputs serialize alike.
void put(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}
void put(std::string& out, uint64_t v) { put(out, std::to_string(v)); }
void put(std::string& out, const std::optional<uint32_t>& v) { put(out, v ? "+" + std::to_string(*v) : "-"); }

std::string serialize(const oci::Seccomp& s) {
  std::string out = "sharness-seccomp-cache-v1\n";
  const scmp_version* v = seccomp_version();
  put(out, uint64_t(v->major));
  put(out, uint64_t(v->minor));
  put(out, uint64_t(v->micro));
  put(out, uint64_t(seccomp_api_get()));  // the generated code depends on what the kernel supports
  put(out, uint64_t(seccomp_arch_native()));
  put(out, SHARNESS_VERSION);
  put(out, build_id());
  put(out, s.default_action);
  put(out, s.default_errno_ret);
  put(out, uint64_t(s.architectures.size()));
  for (auto& a : s.architectures) put(out, a);
  put(out, uint64_t(s.flags.size()));
  for (auto& f : s.flags) put(out, f);
  put(out, uint64_t(s.syscalls.size()));
  for (auto& sc : s.syscalls) {
    put(out, uint64_t(sc.names.size()));
    for (auto& n : sc.names) put(out, n);
    put(out, sc.action);
    put(out, sc.errno_ret);
    put(out, uint64_t(sc.args.size()));
    for (auto& a : sc.args) {
      put(out, uint64_t(a.index));
      put(out, a.value);
      put(out, a.value_two);
      put(out, a.op);
    }
  }
  return out;
}

std::string_view bytes(const std::vector<sock_filter>& p) {
  return {reinterpret_cast<const char*>(p.data()), p.size() * sizeof(sock_filter)};
}

std::string flags_word(unsigned flags) {
  std::string w(8, '\0');
  for (int i = 0; i < 4; ++i) w[size_t(i)] = char((flags >> (8 * i)) & 0xff);
  return w;
}

std::string digest(const std::string& key, const std::string& flags, std::string_view prog) {
  std::string all = key;
  all += flags;
  all += prog;
  return sha256_hex(all);
}

struct Entry {
  std::vector<sock_filter> prog;
  unsigned flags = 0;
};

Result<Entry> read_entry(int dir, const std::string& key, const std::string& name) {
  std::string data = TRY(read_private(dir, name, kHeaderLen + BPF_MAXINSNS * sizeof(sock_filter)));
  size_t size = data.size();
  if (size <= kHeaderLen || size % sizeof(sock_filter) != 0)
    return fail(name + ": " + std::to_string(size) + " bytes is not a cached BPF program");
  std::string_view prog(data.data() + kHeaderLen, size - kHeaderLen);
  std::string flags = data.substr(kDigestLen, 8);
  if (data.compare(0, kDigestLen, digest(key, flags, prog)) != 0) return fail(name + ": digest mismatch");
  Entry e;
  for (int i = 0; i < 4; ++i) e.flags |= unsigned(uint8_t(flags[size_t(i)])) << (8 * i);
  if (e.flags & ~kKnownFlags) return fail(name + ": unexpected seccomp flags");
  e.prog.resize(prog.size() / sizeof(sock_filter));
  std::memcpy(e.prog.data(), prog.data(), prog.size());
  return e;
}

Result<void> write_entry(int dir, const std::string& key, const std::string& name, const Entry& e) {
  std::string flags = flags_word(e.flags);
  std::string data = digest(key, flags, bytes(e.prog)) + flags;
  data += bytes(e.prog);
  return write_private(dir, name, data);
}

}  // namespace

std::string cache_key(const oci::Seccomp& s) { return sha256_hex(serialize(s)); }

bool cacheable(const oci::Seccomp& s) {
  for (auto& sc : s.syscalls)
    if (sc.action == "SCMP_ACT_NOTIFY") return false;
  return true;
}

Result<Filter> compile_cached(const oci::Seccomp& s, const std::string& state_root) {
  if (state_root.empty() || !cacheable(s)) return Filter::compile(s);
  std::string key = cache_key(s);
  std::string name = key + ".bpf";
  auto dir = open_private_cache(state_root, "seccomp");
  if (!dir) log::debug("seccomp cache: not used: " + dir.error().what());
  if (dir) {
    auto hit = read_entry(dir->get(), key, name);
    if (hit) return Filter::from_program(std::move(hit->prog), hit->flags);
    if (hit.error().err != ENOENT) log::debug("seccomp cache: entry ignored: " + hit.error().what());
  }
  Filter f = TRY(Filter::compile(s));
  auto prog = f.export_bpf();
  if (!prog) {
    log::debug("seccomp cache: " + prog.error().what());
    return f;
  }
  // Too long for the kernel: let seccomp_load say so, as without the cache.
  if (prog->empty() || prog->size() > BPF_MAXINSNS) return f;
  Entry e{std::move(*prog), f.load_flags()};
  if (dir) {
    if (auto w = write_entry(dir->get(), key, name, e); !w)
      log::debug("seccomp cache: not stored: " + w.error().what());
    prune_private(dir->get(), kCacheBounds);
  }
  return Filter::from_program(std::move(e.prog), e.flags);
}

}  // namespace sh::seccomp
