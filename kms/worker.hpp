// The worker: the only process that ever holds a master key. Cloned by the gate into fresh
// pid, network, mount, ipc and uts namespaces, alone in a frozen cgroup (memory, pids 1). It
// reads the vault while still root, keeps the master keys in secret memory, sandboxes itself,
// then answers requests the gate forwards over a SOCK_SEQPACKET channel: one message in (the
// request text), one message out (the response text, the key sealed to the caller).
#pragma once
#include <sys/types.h>
#include <time.h>

#include <optional>

#include <string>

#include "base/error.hpp"
#include "kms/config.hpp"
#include "kms/secret_mem.hpp"

namespace sh::kms {

// The worker's state once the vault is open: ids in vault order, each id's master key in
// slot i of `mem`, one more slot for the key being derived, then the credentials the door may
// ask for (only those: a credential no egress rule names is never decrypted), kMaxSecretLen each.
struct Keyring {
  std::vector<std::string> ids;
  std::vector<std::string> cred_ids;
  std::vector<size_t> cred_lens;
  SecretMem mem;
  std::span<uint8_t> master(size_t i) { return mem.slot(i, kKeyLen); }
  std::span<uint8_t> scratch() { return mem.slot(ids.size(), kKeyLen); }
  std::span<uint8_t> credential(size_t i, size_t len) {
    return mem.at((ids.size() + 1) * kKeyLen + i * kMaxSecretLen, len);
  }
};
Result<Keyring> open_keyring(const Config& c);

// Answer one request text from a caller of role `caller` (the gate read it from the caller's
// verified certificate); the response text (refusals included). The workload's role gets
// derived keys only, and only when the config says workloadMayAsk; the door's role gets
// credentials only, for the (vault, host) pairs of the config. `now` is unix seconds,
// nullopt when the clock could not be read: then, and for a clock reading 0 or less, every
// request is refused (the allowlists and expiry need the time; nothing is served without).
std::string answer(const Config& c, Keyring& k, std::string_view caller, std::string_view request,
                   std::optional<int64_t> now, std::string* log);
// The wall clock in unix seconds, nullopt on any clock_gettime error or a reading <= 0.
std::optional<int64_t> wall_clock_seconds(int (*clock)(clockid_t, struct timespec*) = ::clock_gettime);

// The worker process after clone(): waits for the gate's "go", then never returns.
[[noreturn]] void worker_main(const Config& c, int chan, int log_fd, uid_t uid);

}  // namespace sh::kms
