#include "kms/worker.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <time.h>
#include <unistd.h>

#include "base/file.hpp"
#include "kms/kms_log.hpp"
#include "runtime/linux/self_sandbox.hpp"
#include "kms/vault.hpp"

namespace sh::kms {
namespace {

std::string respond(const Config& c, Keyring& k, std::string_view caller, std::string_view text, uint64_t now,
                    std::string* log, bool warm);

// The worker's whole syscall surface once sandboxed: read a request, write a response,
// allocate, get randomness and the time. No open, no socket, no exec, no fork.
std::vector<std::string> worker_syscalls() { return sandbox::base_syscalls(); }

Result<void> send_msg(int chan, std::string_view s) {
  // write(2), not send(2): one syscall fewer in the allowlist (SEQPACKET keeps the boundary).
  if (::write(chan, s.data(), s.size()) != static_cast<ssize_t>(s.size())) return sys_error("send to gate");
  return {};
}

// Everything up to the request loop; the error goes to the gate as "error <text>".
Result<Keyring> setup(const Config& c, int chan, int log_fd, uid_t uid) {
  char go = 0;
  if (::read(chan, &go, 1) != 1 || go != 'g') return fail("worker: no go from the gate");
  Keyring k = TRY(open_keyring(c));
  log_line(log_fd, c.name, "worker", "master keys of " + std::to_string(k.ids.size()) + " vault(s) in " + k.mem.describe());
  TRYVC("worker", sandbox::empty_root());
  TRYVC("worker", sandbox::harden(8));
  // Warm up every algorithm once, so OpenSSL's lazy loading happens before the seccomp filter.
  std::string warm =
      respond(c, k, "", format_request(Request{Kind::derive, "-", "-", "-", 1, TRY(x25519_generate()).pub}), 1, nullptr, true);
  scrub(warm.data(), warm.size());
  TRYVC("worker", derive(k.scratch(), "warm", "up", "x", k.scratch()));
  scrub(k.scratch().data(), kKeyLen);
  TRYVC("worker", sandbox::drop_to(uid, uid));
  std::string ll = TRYC("worker", sandbox::confine(worker_syscalls()));
  log_line(log_fd, c.name, "worker",
           "sandboxed: uid " + std::to_string(uid) + ", empty root, no capabilities, no_new_privs, seccomp, " + ll);
  return k;
}

}  // namespace

Result<Keyring> open_keyring(const Config& c) {
  Vault v = TRYC("vault " + c.vault, parse_vault(TRY(read_file(c.vault, 1 << 20))));
  ScrubbedKey kek;
  TRYV(read_kek(c.kek, kek));
  if (TRY(kek_id(kek.k)) != v.kek_id)
    return fail("vault " + c.vault + ": sealed under another key-encryption key than " + c.kek);
  Keyring k;
  // The credentials the door may ask for, each once (two hosts may share one).
  std::vector<const CredentialEntry*> creds;
  for (const auto& g : c.credentials) {
    auto e = std::ranges::find(v.credentials, g.vault, &CredentialEntry::id);
    if (e == v.credentials.end()) return fail("vault " + c.vault + ": no credential \"" + g.vault + "\" (an egress rule names it)");
    if (std::ranges::find(creds, &*e) == creds.end()) creds.push_back(&*e);
  }
  k.mem = TRY(SecretMem::create((v.entries.size() + 1) * kKeyLen + creds.size() * kMaxSecretLen, c.allow_weaker_memory));
  for (const auto& e : v.entries) {
    // Decrypted straight into the secret pages: no other copy of a master key.
    TRYVC("vault " + c.vault, open_entry(kek.k, e, k.master(k.ids.size())));
    k.ids.push_back(e.id);
  }
  for (const auto* e : creds) {
    TRYVC("vault " + c.vault, open_credential(kek.k, *e, k.credential(k.cred_ids.size(), e->ct.size())));
    k.cred_ids.push_back(e->id);
    k.cred_lens.push_back(e->ct.size());
  }
  for (const auto& want : c.allow.vaults)
    if (std::find(k.ids.begin(), k.ids.end(), want) == k.ids.end())
      return fail("vault " + c.vault + ": no vault \"" + want + "\" (the config allows it)");
  return k;
}

namespace {

// Who may ask what (docs/kms.md "Callers"): the door credentials, the workload derived keys
// only when the policy said workloadMayAsk.
Result<void> admit(const Config& c, std::string_view caller, const Request& r) {
  if (caller == kDoorRole) {
    if (r.kind != Kind::credential) return fail("the egress door asks for credentials only");
    return check_credential(c.credentials, r);
  }
  if (caller.empty() || caller != c.caller_role) return fail("caller role \"" + std::string(caller) + "\" is not served");
  if (r.kind != Kind::derive) return fail("a credential goes to the egress door only, not to role \"" + std::string(caller) + "\"");
  if (!c.workload_may_ask)
    return fail("the workload may not ask this KMS (its policy's secrets.workloadMayAsk is false): it answers the egress door only");
  return check(c.allow, r);
}

// The one path every request takes. `warm` (only the warm-up before the sandbox, on a made-up
// request) skips the allowlists and the vault lookup but runs every algorithm; it is a
// separate flag, never a clock value, so no reading of the clock can select it.
std::string respond(const Config& c, Keyring& k, std::string_view caller, std::string_view text, uint64_t now,
                    std::string* log, bool warm) {
  Response resp;
  auto refuse = [&](std::string why) {
    if (log) *log = "refused: " + why;
    resp.reason = std::move(why);
    return format_response(resp);
  };
  auto req = parse_request(text);
  if (!req) return refuse(req.error().what());
  if (!warm)
    if (auto ok = admit(c, caller, *req); !ok) return refuse(ok.error().what());
  if (req->kind == Kind::credential) {
    auto it = std::find(k.cred_ids.begin(), k.cred_ids.end(), req->vault);
    if (it == k.cred_ids.end()) return refuse("credential \"" + req->vault + "\" is not in the sealed vault");
    size_t i = static_cast<size_t>(it - k.cred_ids.begin());
    resp.expires = now;  // released at: bound into the seal
    auto sealed = seal(k.credential(i, k.cred_lens[i]), req->pub, response_aad(*req, resp.expires));
    if (!sealed) return refuse("seal failed");
    resp.ok = true;
    resp.sealed = std::move(*sealed);
    if (log) *log = "released credential " + req->vault + " for host=" + req->host + " to the egress door";
    return format_response(resp);
  }
  size_t slot = 0;
  auto it = std::find(k.ids.begin(), k.ids.end(), req->vault);
  if (it != k.ids.end()) slot = static_cast<size_t>(it - k.ids.begin());
  else if (!warm) return refuse("vault \"" + req->vault + "\" is not in the sealed vault");
  auto derived = k.scratch();
  std::span<const uint8_t> master = k.ids.empty() ? std::span<const uint8_t>(derived) : k.master(slot);
  if (auto d = derive(master, req->vault, req->host, req->op, derived); !d) return refuse("derive failed");
  resp.expires = now + req->ttl;
  auto sealed = seal(derived, req->pub, response_aad(*req, resp.expires));
  scrub(derived.data(), derived.size());
  if (!sealed) return refuse("seal failed");
  resp.ok = true;
  resp.sealed = std::move(*sealed);
  if (log) *log = "derived for vault=" + req->vault + " host=" + req->host + " op=" + req->op + " ttl=" + std::to_string(req->ttl);
  return format_response(resp);
}

}  // namespace

std::optional<int64_t> wall_clock_seconds(int (*clock)(clockid_t, struct timespec*)) {
  struct timespec ts{};
  if (clock(CLOCK_REALTIME, &ts) != 0 || ts.tv_sec <= 0) return std::nullopt;
  return int64_t(ts.tv_sec);
}

std::string answer(const Config& c, Keyring& k, std::string_view caller, std::string_view text,
                   std::optional<int64_t> now, std::string* log) {
  if (!now || *now <= 0) {
    // Fail closed: without the time neither the allowlists' TTL nor the expiry mean anything.
    if (log) *log = "refused: the clock could not be read";
    Response resp;
    resp.reason = "the KMS clock could not be read";
    return format_response(resp);
  }
  return respond(c, k, caller, text, uint64_t(*now), log, false);
}

void worker_main(const Config& c, int chan, int log_fd, uid_t uid) {
  auto k = setup(c, chan, log_fd, uid);
  if (!k) {
    (void)send_msg(chan, "error " + k.error().what());
    ::_exit(1);
  }
  if (!send_msg(chan, "ready")) ::_exit(1);
  char buf[kMaxRequest + 64];  // a request and the caller's role line
  for (uint64_t n = 1;; ++n) {
    ssize_t got = ::read(chan, buf, sizeof buf);
    if (got <= 0) ::_exit(0);  // the gate closed the channel: stop
    // The gate's message: the caller's verified role, a newline, the request.
    std::string_view msg(buf, static_cast<size_t>(got));
    size_t nl = msg.find('\n');
    std::string_view caller = nl == std::string_view::npos ? std::string_view() : msg.substr(0, nl);
    std::string what;
    std::string out = answer(c, *k, caller, nl == std::string_view::npos ? msg : msg.substr(nl + 1), wall_clock_seconds(), &what);
    scrub(buf, sizeof buf);
    log_line(log_fd, c.name, "worker", "request " + std::to_string(n) + " " + what);
    if (!send_msg(chan, out)) ::_exit(1);
  }
}

}  // namespace sh::kms
