#include "runtime/lifecycle/policy_cache.hpp"

#include "base/build_id.hpp"
#include "base/log.hpp"
#include "base/sha256.hpp"
#include "spec-mapping/prepared_codec.hpp"

namespace sh::lifecycle {
namespace {

// Entry layout: 64 hex chars of SHA-256(key, payload), then the payload (prepared_codec).
constexpr size_t kDigestLen = 64;
constexpr size_t kEntryLimit = 1u << 20;

// A field added to host::Facts may change what explain says: add it to the key below.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(host::Facts) == 272, "a host::Facts field was added: add it to the policy cache key");
#endif

// Length-prefixed, so no two different inputs serialize alike.
void put(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}
void put(std::string& out, uint64_t v) { put(out, std::to_string(v)); }
void put(std::string& out, const std::optional<PolicySource>& s) {
  put(out, uint64_t(s.has_value()));
  if (s) {
    put(out, s->path);
    put(out, s->text);
  }
}

std::string serialize(const RuntimeConfig& rc, const PolicyChoice& ch, const host::Facts& h) {
  std::string out = "sharness-policy-cache-v1\n";
  put(out, SHARNESS_VERSION);
  put(out, build_id());
  put(out, rc.source);
  put(out, ch.floor);
  put(out, ch.client);
  put(out, ch.client_name);
  for (bool g : {ch.grants.mesh.role, ch.grants.mesh.edges, ch.grants.mesh.accepts, ch.grants.secrets, ch.grants.egress})
    put(out, uint64_t(g));
  put(out, h.kernel);
  put(out, uint64_t(h.landlock_abi));
  put(out, uint64_t(h.namespaces.size()));
  for (auto& n : h.namespaces) put(out, n);
  for (bool b : {h.memory_cgroup, h.cpu_cgroup, h.pids_cgroup, h.devices_cgroup, h.seccomp, h.no_new_privs, h.pidfd,
                 h.memfd_noexec, h.memfd_secret, h.mdwe, h.apparmor, h.idmap_mounts, h.seccomp_detail.has_value()})
    put(out, uint64_t(b));
  put(out, uint64_t(h.capabilities.size()));
  for (auto& c : h.capabilities) put(out, c);
  return out;
}

Result<policy::Prepared> read_entry(int dir, const std::string& key, const std::string& name) {
  std::string data = TRY(read_private(dir, name, kEntryLimit));
  if (data.size() < kDigestLen) return fail(name + ": " + std::to_string(data.size()) + " bytes is not an entry");
  std::string_view payload = std::string_view(data).substr(kDigestLen);
  if (data.compare(0, kDigestLen, sha256_hex(key + std::string(payload))) != 0) return fail(name + ": digest mismatch");
  return TRYC(name, policy::decode_prepared(payload));
}

void store(int dir, const std::string& key, const std::string& name, const policy::Prepared& pp) {
  std::string payload = policy::encode_prepared(pp);
  if (payload.size() > kEntryLimit - kDigestLen) return;  // never read back: not worth a write per create
  // What reads back is what create would use: an entry that does not is never written.
  auto back = policy::decode_prepared(payload);
  if (!back || !back->same(pp)) return log::debug("policy cache: " + name + " does not read back as written: not stored");
  if (auto w = write_private(dir, name, sha256_hex(key + payload) + payload); !w)
    log::debug("policy cache: not stored: " + w.error().what());
  prune_private(dir, kPolicyCacheBounds);
}

}  // namespace

std::string policy_cache_key(const RuntimeConfig& rc, const PolicyChoice& choice, const host::Facts& host) {
  return sha256_hex(serialize(rc, choice, host));
}

Result<std::optional<policy::Prepared>> prepared_policy(const RuntimeConfig& rc, const PolicyChoice& choice,
                                                        const host::Facts& host, const std::string& state_root) {
  if (choice.empty()) return std::optional<policy::Prepared>();
  std::string key, name;
  std::optional<Fd> dir;
  if (!state_root.empty()) {
    key = policy_cache_key(rc, choice, host);
    name = key + ".pol";
    if (auto d = open_private_cache(state_root, "policy"); d) dir = std::move(*d);
    else log::debug("policy cache: not used: " + d.error().what());
  }
  if (dir) {
    auto hit = read_entry(dir->get(), key, name);
    if (hit) return std::optional<policy::Prepared>(std::move(*hit));
    if (hit.error().err != ENOENT) log::debug("policy cache: entry ignored: " + hit.error().what());
  }
  auto p = TRY(select_policy(choice));
  auto pp = TRYC("policy " + p->id, policy::prepare(std::move(*p), host));
  if (dir) store(dir->get(), key, name, pp);
  return std::optional<policy::Prepared>(std::move(pp));
}

}  // namespace sh::lifecycle
