// `kms seal --kek FILE --out VAULT [--credential ID=FILE]... ID[=KEYFILE]...`: make a sealed vault
// for sharness-kms (master keys, and credentials for the egress door). The
// work is `sharness-kms seal` (cmd/sharness-kms/seal_cli.cpp), where the KMS's cryptography lives.
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::cli {
namespace {
constexpr std::array kArgs{
    Arg{.name = "seal", .help = "the subcommand", .completes = Completes::choices, .choices = "seal"},
    Arg{.name = "ID[=KEYFILE]...", .help = "vault ids, each with its key file (default: a new random key)",
        .completes = Completes::file}};
constexpr std::array kFlags{
    Flag{.name = "kek", .value = "FILE", .help = "the key-encryption key the vault is sealed with",
         .completes = Completes::file},
    Flag{.name = "out", .alias = "o", .value = "VAULT", .help = "the sealed vault to write", .completes = Completes::file},
    Flag{.name = "credential", .value = "ID=FILE",
         .help = "a static credential (API token) the egress door injects, sealed from FILE (at most 256 bytes)",
         .completes = Completes::file, .repeatable = true}};
}  // namespace

// The flags are parsed by `sharness-kms seal` (cmd/sharness-kms/seal_cli.cpp); conformance/suites/cli.sh
// checks that its parser and this table agree.
const CommandTable kKmsTable{
    .name = "kms",
    .summary = "seal master keys and credentials into a vault for sharness-kms",
    .args = kArgs,
    .flags = kFlags,
    .usage = "seal --kek FILE --out VAULT [--credential ID=FILE]... ID[=KEYFILE]...",
};

Result<int> cmd_kms(const lifecycle::Globals&, const Args& args, size_t from) {
  std::string usage = "kms " + std::string(kKmsTable.usage);
  if (from >= args.size()) return fail("kms: missing subcommand (usage: " + usage + ")");
  if (args[from] != "seal") return fail("kms: unknown subcommand \"" + args[from] + "\" (usage: " + usage + ")");
  TRYV(sealed_exe::exec_sibling("sharness-kms", std::vector<std::string>(args.begin() + long(from), args.end())));
  return 1;
}

}  // namespace sh::cli
