#include "spec-mapping/prepared_codec.hpp"

#include <cstring>
#include <limits>
#include <type_traits>

namespace sh::policy {
namespace {

// A field added to these structures must be added to fields() below and to Policy::same_rules
// (the cache stores an entry only if it reads back equal): this trips when one is added.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Policy) == 968, "a Policy field was added: add it to prepared_codec.cpp and same_rules");
#endif

class Out {
 public:
  void num(uint64_t v) {
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = char((v >> (8 * i)) & 0xff);
    s_.append(b, 8);
  }
  void str(std::string_view v) {
    num(v.size());
    s_ += v;
  }
  std::string take() { return std::move(s_); }

 private:
  std::string s_;
};

class In {
 public:
  explicit In(std::string_view b) : rest_(b) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && rest_.empty(); }
  uint64_t num(uint64_t max = std::numeric_limits<uint64_t>::max()) {
    if (!ok_ || rest_.size() < 8) return bad();
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(rest_[size_t(i)])) << (8 * i);
    rest_.remove_prefix(8);
    return v > max ? bad() : v;
  }
  std::string str() {
    uint64_t n = num(rest_.size());
    if (!ok_) return {};
    std::string v(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return v;
  }
  // A count of items, each at least 8 bytes: a corrupt count cannot make us allocate.
  size_t count() { return size_t(num(rest_.size() / 8)); }

  void refuse() { ok_ = false; }

 private:
  uint64_t bad() {
    refuse();
    return 0;
  }
  std::string_view rest_;
  bool ok_ = true;
};

// One function per structure lists its fields for both directions (Out never writes to the
// object: encode_prepared's const_cast is only so that one list serves both). Static members of
// one struct, so that each sees every other whatever their order.
template <class T>
concept Number = std::is_integral_v<T> || std::is_enum_v<T>;

// The largest value of each enum: a number past it is refused.
constexpr uint64_t enum_max(Network) { return uint64_t(Network::host); }
constexpr uint64_t enum_max(DefaultAction) { return uint64_t(DefaultAction::kill); }
constexpr uint64_t enum_max(Inject) { return uint64_t(Inject::header); }

struct Codec {
  static void io(Out& o, std::string& v) { o.str(v); }
  static void io(In& i, std::string& v) { v = i.str(); }

  template <Number T>
  static void io(Out& o, T& v) {
    if constexpr (std::is_enum_v<T>) o.num(uint64_t(v));
    else o.num(uint64_t(int64_t(v)));  // signed values sign-extended
  }
  template <Number T>
  static void io(In& i, T& v) {
    if constexpr (std::is_enum_v<T>) {
      v = T(i.num(enum_max(T{})));
    } else if constexpr (std::is_same_v<T, bool>) {
      v = i.num(1) != 0;
    } else if constexpr (std::is_unsigned_v<T>) {
      v = T(i.num(std::numeric_limits<T>::max()));
    } else {
      auto x = int64_t(i.num());
      if (x < int64_t(std::numeric_limits<T>::min()) || x > int64_t(std::numeric_limits<T>::max())) i.refuse();
      v = T(x);
    }
  }

  static void io(Out& o, std::set<std::string>& v) {
    o.num(v.size());
    for (auto& s : v) o.str(s);
  }
  static void io(In& i, std::set<std::string>& v) {
    v.clear();
    for (size_t n = i.count(); n > 0 && i.ok(); --n) v.insert(i.str());
  }

  template <class IO, class T>
  static void io(IO& x, std::optional<T>& v) {
    if constexpr (std::is_same_v<IO, Out>) {
      x.num(v ? 1 : 0);
      if (v) io(x, *v);
    } else if (x.num(1)) {
      io(x, v.emplace());
    } else {
      v.reset();
    }
  }

  template <class IO, class T>
  static void io(IO& x, std::vector<T>& v) {
    if constexpr (std::is_same_v<IO, Out>) {
      x.num(v.size());
      for (auto& e : v) io(x, e);
    } else {
      v.clear();
      for (size_t n = x.count(); n > 0 && x.ok(); --n) io(x, v.emplace_back());
    }
  }

  template <class IO, class... F>
  static void fields(IO& x, F&... f) {
    (io(x, f), ...);
  }

  template <class IO> static void io(IO& x, Uid& v) { fields(x, v.ephemeral, v.value); }
  template <class IO> static void io(IO& x, Identity& v) { fields(x, v.uid, v.gid, v.capabilities, v.no_new_privileges); }
  template <class IO> static void io(IO& x, Memory& v) { fields(x, v.limit, v.address_space, v.deny_write_execute); }
  template <class IO> static void io(IO& x, Cpu& v) { fields(x, v.quota, v.period); }
  template <class IO> static void io(IO& x, Pids& v) { fields(x, v.limit, v.fork); }
  template <class IO> static void io(IO& x, Syscalls& v) { fields(x, v.allow, v.default_action); }
  template <class IO> static void io(IO& x, Tmpfs& v) { fields(x, v.path, v.size, v.exec); }
  template <class IO> static void io(IO& x, Bind& v) { fields(x, v.source, v.destination); }
  template <class IO> static void io(IO& x, Mounts& v) {
    fields(x, v.readonly_root, v.binds_readonly, v.tmpfs, v.readonly_binds, v.masked_paths, v.readonly_paths);
  }
  template <class IO> static void io(IO& x, Priority& v) { fields(x, v.oom_score_adj_min, v.nice_min, v.realtime); }
  template <class IO> static void io(IO& x, FileRule& v) { fields(x, v.path, v.access); }
  template <class IO> static void io(IO& x, Ports& v) { fields(x, v.bind, v.connect); }
  template <class IO> static void io(IO& x, Pin& v) { fields(x, v.path, v.sha256); }
  template <class IO> static void io(IO& x, Edge& v) { fields(x, v.to, v.tcp, v.port); }
  template <class IO> static void io(IO& x, Accepts& v) { fields(x, v.roles, v.tcp, v.port); }
  template <class IO> static void io(IO& x, Mesh& v) { fields(x, v.role, v.edges, v.accepts); }
  template <class IO> static void io(IO& x, SecretsPolicy& v) {
    fields(x, v.vaults, v.hosts, v.operations, v.ttl, v.allow_weaker_memory);
  }
  template <class IO> static void io(IO& x, Credential& v) { fields(x, v.vault, v.inject, v.header, v.env); }
  template <class IO> static void io(IO& x, EgressRule& v) {
    fields(x, v.host, v.port, v.methods, v.path_prefixes, v.credential);
  }
  template <class IO> static void io(IO& x, EgressBudgets& v) { fields(x, v.requests, v.bytes, v.requests_per_second); }
  template <class IO> static void io(IO& x, EgressPolicy& v) { fields(x, v.rules, v.budgets); }
  template <class IO> static void io(IO& x, Policy& v) {
    fields(x, v.id, v.version, v.description, v.best_effort, v.identity, v.namespaces, v.network, v.memory, v.cpu,
           v.pids, v.wall_clock_seconds, v.priority, v.syscalls, v.devices, v.mounts, v.mesh, v.files, v.ports,
           v.scope, v.exec, v.secrets, v.egress, v.hooks_from_config, v.hash);
  }
  template <class IO> static void io(IO& x, Bound& v) { fields(x, v.mechanism, v.available, v.applied_by, v.note); }
  template <class IO> static void io(IO& x, Prepared& v) { fields(x, v.policy, v.allowed, v.explained); }
};

}  // namespace

std::string encode_prepared(const Prepared& p) {
  Out o;
  Codec::io(o, const_cast<Prepared&>(p));
  return o.take();
}

Result<Prepared> decode_prepared(std::string_view bytes) {
  In i(bytes);
  Prepared p;
  Codec::io(i, p);
  if (!i.done()) return fail("prepared policy: " + std::to_string(bytes.size()) + " bytes do not read as one");
  return p;
}

}  // namespace sh::policy
