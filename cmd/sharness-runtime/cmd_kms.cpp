// `kms seal --kek FILE --out VAULT ID[=KEYFILE]...`: make a sealed vault for sharness-kms. The
// work is `sharness-kms seal` (kms/seal_cli.cpp), where the KMS's cryptography lives.
#include "kms/seal_cli.hpp"
#include "cmd/sharness-runtime/commands.hpp"
#include "runtime/linux/sealed_exe.hpp"

namespace sh::cli {

Result<int> cmd_kms(const lifecycle::Globals&, const Args& args, size_t from) {
  if (from >= args.size()) return fail(std::string("kms: missing subcommand (usage: ") + kms::kSealUsage + ")");
  if (args[from] != "seal") return fail("kms: unknown subcommand \"" + args[from] + "\" (usage: " + kms::kSealUsage + ")");
  TRYV(sealed_exe::exec_sibling("sharness-kms", std::vector<std::string>(args.begin() + long(from), args.end())));
  return 1;
}

}  // namespace sh::cli
