// `sharness-runtime kms seal`: make a sealed vault for sharness-kms (docs/kms.md "Vault").
//   kms seal --kek FILE --out VAULT ID[=KEYFILE]...
// A missing KEK file is created (32 random bytes, root-only 0400). Each ID gets the 32-byte
// master key in KEYFILE (raw, or 64 hex digits), or a fresh random one that no one ever sees.
#include <sys/stat.h>

#include <cstdio>

#include "base/file.hpp"
#include "kms/vault.hpp"
#include "runtime/cli/commands.hpp"

namespace sh::cli {
namespace {

constexpr const char* kUsage = "kms seal --kek FILE --out VAULT ID[=KEYFILE]...";

// A master key file: 32 raw bytes, or 64 hex digits (a trailing newline allowed).
Result<void> read_master(const std::string& path, kms::ScrubbedKey& out) {
  std::string s = TRY(read_file(path, 256));
  auto wipe = [&] { kms::scrub(s.data(), s.size()); };
  if (s.size() == kms::kKeyLen) {
    std::copy(s.begin(), s.end(), out.k.begin());
    wipe();
    return {};
  }
  std::string_view v = s;
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.remove_suffix(1);
  auto b = kms::from_hex(v, kms::kKeyLen, "master key file " + path);
  wipe();
  if (!b) return fail(std::move(b.error()).context("expected 32 raw bytes or 64 hex digits"));
  std::copy(b->begin(), b->end(), out.k.begin());
  kms::scrub(b->data(), b->size());
  return {};
}

Result<int> seal(const Parsed& p) {
  if (!p.has("kek") || !p.has("out")) return fail(std::string("kms seal: --kek and --out are required (usage: ") + kUsage + ")");
  if (p.positional.empty()) return fail(std::string("kms seal: name at least one vault id (usage: ") + kUsage + ")");
  const std::string kek_path = p.get("kek");
  struct stat st{};
  if (::lstat(kek_path.c_str(), &st) != 0) {
    if (errno != ENOENT) return sys_error("kms seal: stat " + kek_path);
    TRYVC("kms seal", kms::create_kek(kek_path));
    std::fprintf(stderr, "kms seal: created key-encryption key %s (root only, mode 0400)\n", kek_path.c_str());
  }
  kms::ScrubbedKey kek;
  TRYVC("kms seal", kms::read_kek(kek_path, kek));
  std::vector<kms::VaultEntry> entries;
  for (const auto& arg : p.positional) {
    size_t eq = arg.find('=');
    std::string id = arg.substr(0, eq);
    kms::ScrubbedKey master;
    if (eq == std::string::npos)
      TRYVC("kms seal", kms::random_bytes(master.k));
    else
      TRYVC("kms seal", read_master(arg.substr(eq + 1), master));
    for (const auto& e : entries)
      if (e.id == id) return fail("kms seal: vault id \"" + id + "\" given twice");
    entries.push_back(TRYC("kms seal: vault \"" + id + "\"", kms::seal_entry(kek.k, id, master.k)));
  }
  std::string text = kms::format_vault(TRY(kms::kek_id(kek.k)), entries);
  TRYVC("kms seal", write_file_atomic(p.get("out"), text, 0600));
  std::printf("sealed %zu vault(s) into %s under key-encryption key %s\n", entries.size(), p.get("out").c_str(),
              kek_path.c_str());
  return 0;
}

}  // namespace

Result<int> cmd_kms(const lifecycle::Globals&, const Args& args, size_t from) {
  if (from >= args.size()) return fail(std::string("kms: missing subcommand (usage: ") + kUsage + ")");
  const std::string& sub = args[from];
  auto p = TRY(parse({{{"kek"}, true}, {{"out", "o"}, true}}, args, from + 1));
  if (sub == "seal") return seal(p);
  return fail("kms: unknown subcommand \"" + sub + "\" (usage: " + kUsage + ")");
}

}  // namespace sh::cli
