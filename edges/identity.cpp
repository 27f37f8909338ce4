#include "edges/identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "base/file.hpp"
#include "base/sha256.hpp"

namespace sh::identity {
namespace {

using Bio = ossl::Ptr<BIO, BIO_free>;

constexpr const char* kCaKey = "ca.key";
constexpr const char* kCaCert = "ca.pem";
constexpr int64_t kCaSeconds = 10ll * 365 * 24 * 3600;

std::string bio_text(BIO* b) {
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  return n > 0 ? std::string(data, size_t(n)) : std::string();
}

Result<Pkey> new_key() {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!k) return fail("generate Ed25519 key: " + tls::errors());
  return k;
}

Result<void> add_ext(X509* issuer, X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return fail(std::string("certificate extension ") + OBJ_nid2sn(nid) + "=" + value + ": " + tls::errors());
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (!ok) return fail(std::string("add extension ") + OBJ_nid2sn(nid) + ": " + tls::errors());
  return {};
}

Result<void> random_serial(X509* cert) {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return fail("random serial: " + tls::errors());
  bytes[0] &= 0x7f;  // positive
  bytes[0] |= 0x40;  // and 16 bytes long, always
  BIGNUM* bn = BN_bin2bn(bytes, sizeof bytes, nullptr);
  bool ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
  BN_free(bn);
  if (!ok) return fail("set serial: " + tls::errors());
  return {};
}

// A certificate for `key` with subject CN `cn`, valid [now-backdate, now-backdate+seconds].
Result<Cert> new_cert(EVP_PKEY* key, const std::string& cn, int64_t backdate, int64_t seconds) {
  Cert c(X509_new());
  if (!c) return fail("X509_new: " + tls::errors());
  X509_set_version(c.get(), X509_VERSION_3);
  TRYV(random_serial(c.get()));
  time_t now = ::time(nullptr);
  if (!X509_time_adj_ex(X509_getm_notBefore(c.get()), 0, -long(backdate), &now) ||
      !X509_time_adj_ex(X509_getm_notAfter(c.get()), 0, long(seconds - backdate), &now))
    return fail("certificate validity: " + tls::errors());
  X509_NAME* name = X509_get_subject_name(c.get());
  if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                                  -1, 0))
    return fail("certificate subject CN=" + cn + ": " + tls::errors());
  if (!X509_set_pubkey(c.get(), key)) return fail("certificate public key: " + tls::errors());
  return c;
}

Result<Pkey> create_ca_files(const std::string& dir, Cert& cert_out) {
  Pkey key = TRY(new_key());
  Cert c = TRY(self_signed_ca(key.get(), "sharness CA", kCaSeconds));
  // Key first, then the certificate that makes the pair visible: a crash in between leaves
  // no ca.pem, and the next ensure() starts over.
  TRYV(write_file_atomic(dir + "/" + kCaKey, key_pem(key.get()), 0600));
  TRYV(write_file_atomic(dir + "/" + kCaCert, cert_pem(c.get()), 0644));
  cert_out = std::move(c);
  return key;
}

// The CA directory: created 0700, and refused unless it is a root-owned directory no one
// else can write or read.
Result<void> ensure_dir(const std::string& dir) {
  if (dir.empty() || dir[0] != '/') return fail("CA directory \"" + dir + "\": not an absolute path");
  // Parents as needed (0755, like /etc/sharness), the CA directory itself 0700.
  for (size_t p = 1; (p = dir.find('/', p)) != std::string::npos; ++p)
    if (::mkdir(dir.substr(0, p).c_str(), 0755) < 0 && errno != EEXIST) return sys_error("mkdir " + dir.substr(0, p));
  if (::mkdir(dir.c_str(), 0700) < 0 && errno != EEXIST) return sys_error("mkdir " + dir);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) < 0) return sys_error("stat " + dir);
  if (!S_ISDIR(st.st_mode)) return fail("CA directory " + dir + ": not a directory");
  if (st.st_uid != ::geteuid() || (st.st_mode & 077))
    return fail("CA directory " + dir + ": must be owned by uid " + std::to_string(::geteuid()) +
                " with mode 0700 (it is uid " + std::to_string(st.st_uid) + ", mode 0" +
                std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                std::to_string(st.st_mode & 7) + ")");
  return {};
}

bool exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

}  // namespace

Result<Cert> self_signed_ca(EVP_PKEY* key, const std::string& cn, int64_t seconds) {
  Cert c = TRY(new_cert(key, cn, 60, seconds));
  X509_set_issuer_name(c.get(), X509_get_subject_name(c.get()));
  TRYV(add_ext(c.get(), c.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
  TRYV(add_ext(c.get(), c.get(), NID_key_usage, "critical,keyCertSign,cRLSign"));
  TRYV(add_ext(c.get(), c.get(), NID_subject_key_identifier, "hash"));
  // Ed25519 signs the message itself: no digest; other keys sign SHA-256.
  const EVP_MD* md = EVP_PKEY_get_id(key) == EVP_PKEY_ED25519 ? nullptr : EVP_sha256();
  if (X509_sign(c.get(), key, md) <= 0) return fail("self-sign CA certificate: " + tls::errors());
  return c;
}

Result<std::string> role_of(X509* cert) { return TRY(parse_spiffe_uri(TRY(uri_san(cert)))).role; }

std::string fingerprint(X509* cert) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!X509_digest(cert, EVP_sha256(), md, &n)) return "";
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out.push_back(hex[md[i] >> 4]);
    out.push_back(hex[md[i] & 15]);
  }
  return out;
}

// The DER is the base64 between the first certificate's BEGIN and END lines; only the base64
// decoder and SHA-256 are used, so `state` (the one caller in the runtime binary) does not pull
// the X.509 code into it (bench/results/profile.md "OpenSSL out of the runtime").
Result<std::string> pem_fingerprint(std::string_view pem, const std::string& what) {
  constexpr std::string_view kBegin = "-----BEGIN CERTIFICATE-----", kEnd = "-----END CERTIFICATE-----";
  size_t b = pem.find(kBegin), e = b == std::string_view::npos ? b : pem.find(kEnd, b);
  if (e == std::string_view::npos) return fail(what + ": no PEM certificate");
  std::string b64;
  for (char c : pem.substr(b + kBegin.size(), e - b - kBegin.size()))
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') b64.push_back(c);
  if (b64.empty() || b64.size() % 4 != 0) return fail(what + ": malformed PEM certificate");
  std::string der(b64.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(der.data()), reinterpret_cast<const unsigned char*>(b64.data()),
                          int(b64.size()));
  if (n < 0) return fail(what + ": malformed PEM certificate");
  der.resize(size_t(n) - (b64.ends_with("==") ? 2 : b64.ends_with("=") ? 1 : 0));  // DecodeBlock keeps the padding
  return sha256_hex(der);
}

std::string cert_pem(X509* cert) {
  Bio b(BIO_new(BIO_s_mem()));
  if (!b || !PEM_write_bio_X509(b.get(), cert)) return "";
  return bio_text(b.get());
}

std::string key_pem(EVP_PKEY* key) {
  Bio b(BIO_new(BIO_s_mem()));
  if (!b || !PEM_write_bio_PrivateKey(b.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) return "";
  return bio_text(b.get());
}

Result<Cert> cert_from_pem(std::string_view pem, const std::string& what) {
  Bio b(BIO_new_mem_buf(pem.data(), int(pem.size())));
  Cert c(b ? PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!c) return fail(what + ": not a PEM certificate: " + tls::errors());
  return c;
}

Result<Pkey> key_from_pem(std::string_view pem, const std::string& what) {
  Bio b(BIO_new_mem_buf(pem.data(), int(pem.size())));
  Pkey k(b ? PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!k) return fail(what + ": not a PEM private key: " + tls::errors());
  return k;
}

Result<Ca> Ca::load(const std::string& dir) {
  std::string kp = dir + "/" + kCaKey, cp = dir + "/" + kCaCert;
  if (!exists(cp)) return fail("no CA in " + dir + " (run `sharness-runtime ca init`)");
  struct stat st {};
  if (::stat(kp.c_str(), &st) < 0) return sys_error("stat " + kp);
  if (st.st_mode & 077) return fail("CA key " + kp + ": readable by others (mode must be 0600)");
  Ca ca;
  ca.dir_ = dir;
  ca.key_ = TRY(key_from_pem(TRY(read_file(kp, 1 << 16)), kp));
  ca.cert_ = TRY(cert_from_pem(TRY(read_file(cp, 1 << 16)), cp));
  if (X509_check_private_key(ca.cert_.get(), ca.key_.get()) != 1)
    return fail("CA " + dir + ": " + kCaKey + " does not match " + kCaCert);
  return ca;
}

Result<Ca> Ca::ensure(const std::string& dir, bool* created) {
  TRYV(ensure_dir(dir));
  if (created) *created = false;
  if (exists(dir + "/" + kCaCert)) return load(dir);
  Ca ca;
  ca.dir_ = dir;
  ca.key_ = TRYC("CA " + dir, create_ca_files(dir, ca.cert_));
  if (created) *created = true;
  return ca;
}

Result<Ca> Ca::rotate(const std::string& dir) {
  TRYV(ensure_dir(dir));
  for (const char* f : {kCaKey, kCaCert}) {
    std::string p = dir + "/" + f;
    if (exists(p) && ::rename(p.c_str(), (p + ".prev").c_str()) < 0) return sys_error("rename " + p);
  }
  return ensure(dir);
}

Result<Leaf> issue_leaf(const Ca& ca, const LeafRequest& req) {
  TRYV(validate_role(req.role));
  if (req.name.empty() || req.name.find('/') != std::string::npos || req.name.size() > 200)
    return fail("leaf certificate: bad name \"" + req.name + "\"");
  if (req.seconds <= 0) return fail("leaf certificate: validity must be positive");
  Pkey key = TRY(new_key());
  Cert c = TRY(new_cert(key.get(), req.name, req.backdate, req.seconds));
  X509_set_issuer_name(c.get(), X509_get_subject_name(ca.cert_.get()));
  std::string uri = spiffe_uri(req.role, req.name);
  TRYV(add_ext(ca.cert_.get(), c.get(), NID_basic_constraints, "critical,CA:FALSE"));
  TRYV(add_ext(ca.cert_.get(), c.get(), NID_key_usage, "critical,digitalSignature"));
  TRYV(add_ext(ca.cert_.get(), c.get(), NID_ext_key_usage, "serverAuth,clientAuth"));
  TRYV(add_ext(ca.cert_.get(), c.get(), NID_subject_alt_name, ("URI:" + uri).c_str()));
  TRYV(add_ext(ca.cert_.get(), c.get(), NID_authority_key_identifier, "keyid:always"));
  if (X509_sign(c.get(), ca.key_.get(), nullptr) <= 0) return fail("sign leaf certificate: " + tls::errors());
  Leaf l;
  l.cert_pem = cert_pem(c.get());
  l.key_pem = key_pem(key.get());
  l.ca_pem = ca.pem();
  l.uri = uri;
  l.fingerprint = fingerprint(c.get());
  l.not_after = int64_t(::time(nullptr)) - req.backdate + req.seconds;
  if (l.cert_pem.empty() || l.key_pem.empty()) return fail("encode leaf certificate: " + tls::errors());
  return l;
}

Result<void> write_leaf(int dirfd, const Leaf& leaf, uint32_t uid, uint32_t gid) {
  for (auto [name, text] : {std::pair{kCertFile, &leaf.cert_pem}, {kKeyFile, &leaf.key_pem}, {kCaFile, &leaf.ca_pem}}) {
    Fd f = TRY(openat_file(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0400));
    TRYV(write_all(f.get(), *text, name));
    if (::fchown(f.get(), uid, gid) < 0) return sys_error(std::string("chown ") + name);
  }
  return {};
}

Result<void> replace_leaf(int dirfd, const Leaf& leaf, uint32_t uid, uint32_t gid) {
  // The key first: a reader between the two renames pairs the old certificate with the new key,
  // which fails loudly, rather than keeping a key that is about to be useless.
  for (auto [name, text] : {std::pair{kKeyFile, &leaf.key_pem}, {kCertFile, &leaf.cert_pem}, {kCaFile, &leaf.ca_pem}}) {
    std::string tmp = std::string(name) + ".new";
    ::unlinkat(dirfd, tmp.c_str(), 0);
    {
      Fd f = TRY(openat_file(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0400));
      TRYV(write_all(f.get(), *text, tmp));
      if (::fchown(f.get(), uid, gid) < 0) return sys_error("chown " + tmp);
    }
    if (::renameat(dirfd, tmp.c_str(), dirfd, name) < 0) return sys_error(std::string("rename ") + tmp + " to " + name);
  }
  return {};
}

int64_t seconds_left(X509* cert) {
  int days = 0, secs = 0;
  if (!ASN1_TIME_diff(&days, &secs, nullptr, X509_get0_notAfter(cert))) return 0;
  return int64_t(days) * 86400 + secs;
}

}  // namespace sh::identity
