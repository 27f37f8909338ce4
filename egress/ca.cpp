#include "egress/ca.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/x509.h>

#include <cstdio>

#include "base/file.hpp"
#include "edges/identity.hpp"

namespace sh::egress {
namespace {

// The container lives as long as it runs; its CA is deleted with it.
constexpr int64_t kCaSeconds = 10ll * 365 * 24 * 3600;

Result<void> new_dir(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) < 0) return sys_error("mkdir " + path);
  if (::chmod(path.c_str(), mode) < 0) return sys_error("chmod " + path);  // past the umask
  return {};
}

}  // namespace

Result<void> make_door_ca(const std::string& ca_dir, const std::string& trust_dir, const std::string& id) {
  identity::Pkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) return fail("generate the door's CA key (ECDSA P-256): " + tls::errors());
  identity::Cert cert = TRY(identity::self_signed_ca(key.get(), "sharness egress door CA " + id, kCaSeconds));
  std::string pem = identity::cert_pem(cert.get());
  TRYV(new_dir(ca_dir, 0700));
  TRYV(write_file_atomic(ca_dir + "/" + kCaKeyFile, identity::key_pem(key.get()), 0400));
  TRYV(write_file_atomic(ca_dir + "/" + kCaCertFile, pem, 0400));
  TRYV(new_dir(trust_dir, 0755));
  TRYV(write_file_atomic(trust_dir + "/" + kTrustBundle, pem, 0444));
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08lx.0", X509_subject_name_hash(cert.get()));
  if (::symlink(kTrustBundle, (trust_dir + "/" + hash).c_str()) < 0) return sys_error("link " + trust_dir + "/" + hash);
  return {};
}

}  // namespace sh::egress
