#include "kms/vault.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "base/fd.hpp"
#include "kms/protocol.hpp"

namespace sh::kms {
namespace {

constexpr std::string_view kVaultHead = "sharness-vault/1";

std::string entry_aad(std::string_view id) { return std::string(kVaultHead) + "|" + std::string(id); }
std::string credential_aad(std::string_view id) { return std::string(kVaultHead) + "|credential|" + std::string(id); }

Result<void> check_credential_value(std::span<const uint8_t> v) {
  if (v.empty()) return fail("empty");
  if (v.size() > kMaxSecretLen)
    return fail(std::to_string(v.size()) + " bytes, more than the limit of " + std::to_string(kMaxSecretLen) + " bytes");
  for (uint8_t c : v)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return fail("a control character (it goes into a header as it is)");
  return {};
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> parts;
  for (size_t sp; (sp = line.find(' ')) != std::string_view::npos; line.remove_prefix(sp + 1))
    parts.push_back(line.substr(0, sp));
  parts.push_back(line);
  return parts;
}

std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

template <size_t N>
Result<void> hex_into(std::string_view v, std::array<uint8_t, N>& out, const std::string& what) {
  auto b = TRY(from_hex(v, N, what));
  std::copy(b.begin(), b.end(), out.begin());
  return {};
}

}  // namespace

Result<void> read_kek(const std::string& path, ScrubbedKey& out) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return sys_error("open key-encryption key " + path);
  struct stat st{};
  if (fstat(fd.get(), &st) != 0) return sys_error("stat key-encryption key " + path);
  if (!S_ISREG(st.st_mode)) return fail("key-encryption key " + path + ": not a regular file");
  if (st.st_uid != 0) return fail("key-encryption key " + path + ": owned by uid " + std::to_string(st.st_uid) + ", not root");
  if (st.st_mode & 077) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
    return fail("key-encryption key " + path + ": mode " + mode + " lets others read it; must be 0400 or 0600");
  }
  if (st.st_size != static_cast<off_t>(kKeyLen))
    return fail("key-encryption key " + path + ": " + std::to_string(st.st_size) + " bytes, expected 32");
  size_t got = 0;
  while (got < kKeyLen) {
    ssize_t n = ::read(fd.get(), out.k.data() + got, kKeyLen - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("read key-encryption key " + path);
    got += static_cast<size_t>(n);
  }
  return {};
}

Result<void> create_kek(const std::string& path) {
  ScrubbedKey k;
  TRYV(random_bytes(k.k));
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0400));
  if (!fd) return sys_error("create key-encryption key " + path);
  if (::write(fd.get(), k.k.data(), k.k.size()) != static_cast<ssize_t>(k.k.size())) {
    ::unlink(path.c_str());
    return sys_error("write key-encryption key " + path);
  }
  return {};
}

Result<std::string> kek_id(std::span<const uint8_t> kek) {
  uint8_t md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (EVP_Digest(kek.data(), kek.size(), md, &n, EVP_sha256(), nullptr) != 1) return fail("sha256 of the KEK failed");
  return to_hex({md, 8});
}

Result<VaultEntry> seal_entry(std::span<const uint8_t> kek, std::string_view id, std::span<const uint8_t> master) {
  TRYVC("vault id", check_name("vault", id));
  VaultEntry e;
  e.id = std::string(id);
  TRYV(random_bytes(e.nonce));
  TRYV(aes_gcm_encrypt(kek, e.nonce, bytes(entry_aad(id)), master, e.ct, e.tag));
  return e;
}

Result<CredentialEntry> seal_credential(std::span<const uint8_t> kek, std::string_view id,
                                        std::span<const uint8_t> value) {
  TRYVC("credential id", check_name("credential", id));
  TRYVC("credential \"" + std::string(id) + "\"", check_credential_value(value));
  CredentialEntry e;
  e.id = std::string(id);
  e.ct.resize(value.size());
  TRYV(random_bytes(e.nonce));
  TRYV(aes_gcm_encrypt(kek, e.nonce, bytes(credential_aad(id)), value, e.ct, e.tag));
  return e;
}

std::string format_vault(std::string_view kid, const std::vector<VaultEntry>& entries,
                         const std::vector<CredentialEntry>& credentials) {
  std::string s = std::string(kVaultHead) + "\nkek=" + std::string(kid) + "\n";
  for (const auto& e : entries)
    s += "vault=" + e.id + " " + to_hex(e.nonce) + " " + to_hex(e.ct) + " " + to_hex(e.tag) + "\n";
  for (const auto& e : credentials)
    s += "credential=" + e.id + " " + to_hex(e.nonce) + " " + to_hex(e.ct) + " " + to_hex(e.tag) + "\n";
  return s;
}

Result<Vault> parse_vault(std::string_view text) {
  Vault v;
  size_t lineno = 0;
  bool head = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return fail("vault: line " + std::to_string(lineno + 1) + ": no newline");
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    std::string where = "vault: line " + std::to_string(++lineno);
    if (!head) {
      if (line != kVaultHead) return fail(where + ": expected \"" + std::string(kVaultHead) + "\"");
      head = true;
    } else if (line.starts_with("kek=")) {
      v.kek_id = std::string(line.substr(4));
    } else if (line.starts_with("vault=") || line.starts_with("credential=")) {
      const bool cred = line.starts_with("credential=");
      line.remove_prefix(cred ? 11 : 6);
      auto parts = words(line);
      if (parts.size() != 4)
        return fail(where + ": expected \"" + (cred ? "credential" : "vault") + "=<id> <nonce> <ciphertext> <tag>\"");
      std::string id(parts[0]);
      TRYVC(where, check_name(cred ? "credential" : "vault", id));
      for (const auto& o : v.entries)
        if (o.id == id) return fail(where + ": \"" + id + "\" given twice");
      for (const auto& o : v.credentials)
        if (o.id == id) return fail(where + ": \"" + id + "\" given twice");
      if (cred) {
        CredentialEntry e;
        e.id = std::move(id);
        if (parts[2].empty() || parts[2].size() % 2 || parts[2].size() / 2 > kMaxSecretLen)
          return fail(where + ": ciphertext: 1.." + std::to_string(kMaxSecretLen) + " bytes of hex");
        TRYV(hex_into(parts[1], e.nonce, where + ": nonce"));
        e.ct = TRY(from_hex(parts[2], parts[2].size() / 2, where + ": ciphertext"));
        TRYV(hex_into(parts[3], e.tag, where + ": tag"));
        v.credentials.push_back(std::move(e));
        continue;
      }
      VaultEntry e;
      e.id = std::move(id);
      TRYV(hex_into(parts[1], e.nonce, where + ": nonce"));
      TRYV(hex_into(parts[2], e.ct, where + ": ciphertext"));
      TRYV(hex_into(parts[3], e.tag, where + ": tag"));
      v.entries.push_back(std::move(e));
    } else {
      return fail(where + ": unknown line");
    }
  }
  if (!head) return fail("vault: empty");
  if (v.kek_id.empty()) return fail("vault: no \"kek=\" line");
  return v;
}

Result<void> open_entry(std::span<const uint8_t> kek, const VaultEntry& e, std::span<uint8_t> out) {
  TRYVC("vault \"" + e.id + "\"", aes_gcm_decrypt(kek, e.nonce, bytes(entry_aad(e.id)), e.ct, e.tag, out));
  return {};
}

Result<void> open_credential(std::span<const uint8_t> kek, const CredentialEntry& e, std::span<uint8_t> out) {
  if (out.size() != e.ct.size()) return fail("credential \"" + e.id + "\": output is not as long as the ciphertext");
  TRYVC("credential \"" + e.id + "\"", aes_gcm_decrypt(kek, e.nonce, bytes(credential_aad(e.id)), e.ct, e.tag, out));
  return {};
}

}  // namespace sh::kms
