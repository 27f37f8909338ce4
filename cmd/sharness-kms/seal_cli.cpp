// `sharness-kms seal` (also as `sharness-runtime kms seal`, which runs this): make a sealed vault
// for sharness-kms (docs/kms.md "Vault").
//   seal --kek FILE --out VAULT [--credential ID=FILE]... ID[=KEYFILE]...
// A missing KEK file is created (32 random bytes, root-only 0400). Each ID gets the 32-byte
// master key in KEYFILE (raw, or 64 hex digits), or a fresh random one that no one ever sees.
// Each --credential ID gets the static credential in FILE (an API token the egress door injects:
// its bytes, one trailing newline dropped, at most kMaxSecretLen: 8 KiB).
#include "cmd/sharness-kms/seal_cli.hpp"

#include <sys/stat.h>

#include <cstdio>

#include "base/file.hpp"
#include "kms/vault.hpp"
#include "runtime/cli/args.hpp"

namespace sh::kms {
namespace {

// A master key file: 32 raw bytes, or 64 hex digits (a trailing newline allowed).
Result<void> read_master(const std::string& path, ScrubbedKey& out) {
  std::string s = TRY(read_file(path, 256));
  auto wipe = [&] { scrub(s.data(), s.size()); };
  if (s.size() == kKeyLen) {
    std::copy(s.begin(), s.end(), out.k.begin());
    wipe();
    return {};
  }
  std::string_view v = s;
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.remove_suffix(1);
  auto b = from_hex(v, kKeyLen, "master key file " + path);
  wipe();
  if (!b) return fail(std::move(b.error()).context("expected 32 raw bytes or 64 hex digits"));
  std::copy(b->begin(), b->end(), out.k.begin());
  scrub(b->data(), b->size());
  return {};
}

Result<int> seal(const cli::Parsed& p) {
  if (!p.has("kek") || !p.has("out")) return fail(std::string("kms seal: --kek and --out are required (usage: ") + kSealUsage + ")");
  if (p.positional.empty() && !p.has("credential")) return fail(std::string("kms seal: name at least one vault id (usage: ") + kSealUsage + ")");
  const std::string kek_path = p.get("kek");
  struct stat st{};
  if (::lstat(kek_path.c_str(), &st) != 0) {
    if (errno != ENOENT) return sys_error("kms seal: stat " + kek_path);
    TRYVC("kms seal", create_kek(kek_path));
    std::fprintf(stderr, "kms seal: created key-encryption key %s (root only, mode 0400)\n", kek_path.c_str());
  }
  ScrubbedKey kek;
  TRYVC("kms seal", read_kek(kek_path, kek));
  std::vector<VaultEntry> entries;
  for (const auto& arg : p.positional) {
    size_t eq = arg.find('=');
    std::string id = arg.substr(0, eq);
    ScrubbedKey master;
    if (eq == std::string::npos)
      TRYVC("kms seal", random_bytes(master.k));
    else
      TRYVC("kms seal", read_master(arg.substr(eq + 1), master));
    for (const auto& e : entries)
      if (e.id == id) return fail("kms seal: vault id \"" + id + "\" given twice");
    entries.push_back(TRYC("kms seal: vault \"" + id + "\"", seal_entry(kek.k, id, master.k)));
  }
  std::vector<CredentialEntry> credentials;
  for (const auto& arg : p.all("credential")) {
    size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) return fail("kms seal: --credential " + arg + ": expected ID=FILE");
    std::string id = arg.substr(0, eq), file = arg.substr(eq + 1);
    for (const auto& e : entries)
      if (e.id == id) return fail("kms seal: \"" + id + "\" given twice");
    for (const auto& e : credentials)
      if (e.id == id) return fail("kms seal: \"" + id + "\" given twice");
    std::string v = TRYC("kms seal: credential \"" + id + "\"", read_file(file, 64 * 1024));
    if (v.ends_with('\n')) v.pop_back();
    auto e = seal_credential(kek.k, id, {reinterpret_cast<const uint8_t*>(v.data()), v.size()});
    scrub(v.data(), v.size());
    credentials.push_back(TRYC("kms seal", std::move(e)));
  }
  std::string text = format_vault(TRY(kek_id(kek.k)), entries, credentials);
  TRYVC("kms seal", write_file_atomic(p.get("out"), text, 0600));
  std::printf("sealed %zu vault(s) and %zu credential(s) into %s under key-encryption key %s\n", entries.size(),
              credentials.size(), p.get("out").c_str(), kek_path.c_str());
  return 0;
}

}  // namespace

Result<int> seal_command(const std::vector<std::string>& args, size_t from) {
  return seal(TRY(cli::parse({{{"kek"}, true}, {{"out", "o"}, true}, {{"credential"}, true, true}}, args, from)));
}

}  // namespace sh::kms
