#include "egress/trust_store.hpp"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <openssl/err.h>

#include <memory>
#include <string_view>
#include <unordered_map>

#include "base/file.hpp"
#include "base/openssl_ptr.hpp"
#include "tls/tls.hpp"

namespace sh::egress {
namespace {

constexpr size_t kMaxTrustFile = 8u << 20;

// Subject name hash -> the DER (i2d_X509_AUX: trust settings kept) of each certificate.
using Index = std::unordered_multimap<unsigned long, std::string>;

void free_mem(void* p) { OPENSSL_free(p); }

unsigned long name_hash(const X509_NAME* n, bool* ok) {
  int good = 0;
  unsigned long h = X509_NAME_hash_ex(n, nullptr, nullptr, &good);
  *ok = good == 1;
  return h;
}

// On a miss of the store: every certificate named `name` parsed and added to the store; one of
// them handed back. OpenSSL's own caller takes a reference of what it gets and never drops the
// one X509_OBJECT_set1_X509 holds: one reference per certificate, held as long as the store
// holds the certificate anyway.
int by_subject(X509_LOOKUP* lu, X509_LOOKUP_TYPE type, const X509_NAME* name, X509_OBJECT* ret) {
  if (type != X509_LU_X509) return 0;
  auto* index = static_cast<const Index*>(X509_LOOKUP_get_method_data(lu));
  X509_STORE* store = X509_LOOKUP_get_store(lu);
  bool ok = false;
  unsigned long h = name_hash(name, &ok);
  if (!index || !store || !ok) return 0;
  int found = 0;
  auto [b, e] = index->equal_range(h);
  for (auto it = b; it != e; ++it) {
    const auto* p = reinterpret_cast<const unsigned char*>(it->second.data());
    ossl::Ptr<X509, X509_free> x(d2i_X509_AUX(nullptr, &p, long(it->second.size())));
    if (!x || X509_NAME_cmp(X509_get_subject_name(x.get()), name) != 0) continue;  // a hash collision
    if (!X509_STORE_add_cert(store, x.get())) continue;
    if (!found && !X509_OBJECT_set1_X509(ret, x.get())) continue;
    ++found;
  }
  return found ? 1 : 0;
}

void free_index(X509_LOOKUP* lu) { delete static_cast<Index*>(X509_LOOKUP_get_method_data(lu)); }

X509_LOOKUP_METHOD* on_demand_method() {
  static X509_LOOKUP_METHOD* m = [] {
    X509_LOOKUP_METHOD* x = X509_LOOKUP_meth_new("sharness-egress trust on demand");
    if (x && (!X509_LOOKUP_meth_set_get_by_subject(x, by_subject) || !X509_LOOKUP_meth_set_free(x, free_index))) {
      X509_LOOKUP_meth_free(x);
      x = nullptr;
    }
    return x;
  }();
  return m;
}

}  // namespace

Result<void> trust_on_demand(SSL_CTX* ctx, const std::string& path) {
  std::string pem = TRY(read_file(path, kMaxTrustFile));
  ossl::Ptr<BIO, BIO_free> bio(BIO_new_mem_buf(pem.data(), int(pem.size())));
  if (!bio) return fail("upstream trust " + path + ": " + tls::errors());
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  auto index = std::make_unique<Index>();
  size_t crls = 0;
  // The blocks X509_load_cert_crl_file takes (what SSL_CTX_load_verify_file reads), one at a
  // time: certificates, trusted certificates, CRLs; any other block is not trust.
  for (;;) {
    char *name = nullptr, *header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &len) != 1) {
      // The end of the text reads as "no start line"; anything else is a broken block.
      unsigned long err = ERR_peek_last_error();
      if (ERR_GET_LIB(err) == ERR_LIB_PEM && ERR_GET_REASON(err) == PEM_R_NO_START_LINE) break;
      return fail("upstream trust " + path + ": " + tls::errors());
    }
    ossl::Ptr<char, free_mem> n(name), hd(header);
    ossl::Ptr<unsigned char, free_mem> d(data);
    std::string_view kind(name);
    const unsigned char* p = data;
    if (kind == PEM_STRING_X509 || kind == PEM_STRING_X509_OLD || kind == PEM_STRING_X509_TRUSTED) {
      ossl::Ptr<X509, X509_free> x(kind == PEM_STRING_X509_TRUSTED ? d2i_X509_AUX(nullptr, &p, len) : d2i_X509(nullptr, &p, len));
      if (!x) return fail("upstream trust " + path + ": a certificate: " + tls::errors());
      bool ok = false;
      unsigned long h = name_hash(X509_get_subject_name(x.get()), &ok);
      unsigned char* der = nullptr;
      int dl = i2d_X509_AUX(x.get(), &der);
      if (!ok || dl <= 0) return fail("upstream trust " + path + ": a certificate: " + tls::errors());
      index->emplace(h, std::string(reinterpret_cast<char*>(der), size_t(dl)));
      OPENSSL_free(der);
    } else if (kind == PEM_STRING_X509_CRL) {
      ossl::Ptr<X509_CRL, X509_CRL_free> c(d2i_X509_CRL(nullptr, &p, len));
      if (!c || !X509_STORE_add_crl(store, c.get())) return fail("upstream trust " + path + ": a CRL: " + tls::errors());
      ++crls;
    }
  }
  ERR_clear_error();
  if (index->empty() && !crls) return fail("upstream trust " + path + ": no certificate or CRL in it");
  X509_LOOKUP_METHOD* m = on_demand_method();
  X509_LOOKUP* lu = m ? X509_STORE_add_lookup(store, m) : nullptr;
  if (!lu || !X509_LOOKUP_set_method_data(lu, index.get())) return fail("upstream trust lookup: " + tls::errors());
  index.release();  // the lookup's now (free_index)
  return {};
}

}  // namespace sh::egress
