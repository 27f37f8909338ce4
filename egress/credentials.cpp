#include "egress/credentials.hpp"

#include <openssl/crypto.h>

#include "base/file.hpp"
#include "kms/client.hpp"
#include "kms/crypto.hpp"
#include "spec-mapping/secrets.hpp"

namespace sh::egress {
namespace {

// PATH/<vault>: the file's bytes, one trailing newline dropped (what `echo` writes).
class DirSource : public CredentialSource {
 public:
  explicit DirSource(std::string dir) : dir_(std::move(dir)) {}
  Result<std::string> fetch(const std::string& vault, const std::string&) override {
    if (!policy::valid_secrets_name(vault) || vault == "." || vault == "..")
      return fail("credential \"" + vault + "\": not a vault name");
    Fd dir = TRY(open_file(dir_, O_RDONLY | O_DIRECTORY));
    std::string v = TRYC("credential " + vault, read_file_at(dir.get(), vault, 64 * 1024));
    if (v.ends_with('\n')) v.pop_back();
    if (auto ok = check_value(vault, v); !ok) {
      OPENSSL_cleanse(v.data(), v.size());
      return fail(ok.error());
    }
    return v;
  }

 private:
  std::string dir_;
};

// The KMS: it answers the door's leaf only, and only for a (vault, host) pair of the rules.
class KmsSource : public CredentialSource {
 public:
  KmsSource(std::string socket, tls::Files files, std::string container)
      : socket_(std::move(socket)), files_(std::move(files)), container_(std::move(container)) {}
  Result<std::string> fetch(const std::string& vault, const std::string& host) override {
    return kms::fetch_credential(socket_, files_, container_, vault, host);
  }

 private:
  std::string socket_;
  tls::Files files_;
  std::string container_;  // the KMS's leaf must name it, as the KMS checks that the door's does
};

Result<std::string> abs_path(const json::Value& o, std::string_view key) {
  auto v = TRY(o.need(key));
  std::string s = TRY(v.as_string());
  if (s.empty() || s[0] != '/') return fail(v.path() + ": an absolute path");
  return s;
}

}  // namespace

Result<void> check_value(const std::string& vault, const std::string& value) {
  if (value.empty()) return fail("credential " + vault + ": empty");
  if (value.size() > kms::kMaxSecretLen)  // the KMS's limit: one bound whichever source holds it
    return fail("credential " + vault + ": " + std::to_string(value.size()) + " bytes, more than the limit of " +
                std::to_string(kms::kMaxSecretLen) + " bytes");
  for (char c : value)
    if (c == '\r' || c == '\n' || c == '\0' || (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
      return fail("credential " + vault + ": a control character (it goes into a header as it is)");
  return {};
}

Result<std::unique_ptr<CredentialSource>> make_source(const json::Value& v, const std::string& container) {
  TRYV(v.expect_object());
  TRYV(v.only_keys({"dir", "kms"}));
  if (v.get("dir") && v.get("kms")) return fail(v.path() + ": one source, \"dir\" or \"kms\"");
  if (auto k = v.get("kms")) {
    TRYV(k->only_keys({"socket", "ca", "cert", "key"}));
    tls::Files f{TRY(abs_path(*k, "ca")), TRY(abs_path(*k, "cert")), TRY(abs_path(*k, "key"))};
    return std::unique_ptr<CredentialSource>(new KmsSource(TRY(abs_path(*k, "socket")), std::move(f), container));
  }
  if (auto d = v.get("dir")) {
    std::string dir = TRY(d->as_string());
    if (dir.empty() || dir[0] != '/') return fail(d->path() + ": an absolute path");
    return std::unique_ptr<CredentialSource>(new DirSource(dir));
  }
  return fail(v.path() + ": name a source (\"dir\" or \"kms\")");
}

}  // namespace sh::egress
