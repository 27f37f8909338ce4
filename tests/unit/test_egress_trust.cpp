// The door's upstream trust, parsed on demand (egress/trust_store.hpp): the same certificates
// are trusted as with SSL_CTX_load_verify_file, parsed only when a verification asks for their
// name; a file without trust, or with a broken block, is refused.
#define BOOST_TEST_MODULE egress_trust
#include <boost/test/unit_test.hpp>

#include <openssl/x509_vfy.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "base/file.hpp"
#include "egress/ca.hpp"
#include "egress/leaf.hpp"
#include "egress/trust_store.hpp"

using namespace sh;
using namespace sh::egress;

namespace {

struct Dir {
  std::string path;
  Dir() {
    char t[] = "/tmp/test_egress_trust.XXXXXX";
    path = ::mkdtemp(t);
  }
  ~Dir() { std::filesystem::remove_all(path); }
};

struct Pki {
  std::string ca_pem;
  std::unique_ptr<LeafMint> mint;
};

Pki make_ca(const Dir& d, const std::string& name) {
  auto made = make_door_ca(d.path + "/" + name, d.path + "/" + name + ".trust", name);
  BOOST_REQUIRE(made);
  std::string cert = d.path + "/" + name + "/" + kCaCertFile;
  auto mint = LeafMint::load(cert, d.path + "/" + name + "/" + kCaKeyFile);
  BOOST_REQUIRE(mint);
  return {*read_file(cert), std::move(*mint)};
}

// X509_verify_cert of `leaf` against the context's store.
bool verifies(SSL_CTX* ctx, X509* leaf) {
  X509_STORE_CTX* v = X509_STORE_CTX_new();
  BOOST_REQUIRE(v);
  BOOST_REQUIRE(X509_STORE_CTX_init(v, SSL_CTX_get_cert_store(ctx), leaf, nullptr) == 1);
  bool ok = X509_verify_cert(v) == 1;
  X509_STORE_CTX_free(v);
  return ok;
}

int stored(SSL_CTX* ctx) { return sk_X509_OBJECT_num(X509_STORE_get0_objects(SSL_CTX_get_cert_store(ctx))); }

}  // namespace

BOOST_AUTO_TEST_CASE(trusted_on_demand_and_only_what_the_file_holds) {
  Dir d;
  Pki a = make_ca(d, "a"), b = make_ca(d, "b"), c = make_ca(d, "c");
  BOOST_REQUIRE(write_file_atomic(d.path + "/trust.pem", "junk before\n" + a.ca_pem + c.ca_pem, 0644));
  tls::Ctx ctx(SSL_CTX_new(TLS_client_method()));
  auto ok = trust_on_demand(ctx.get(), d.path + "/trust.pem");
  BOOST_REQUIRE_MESSAGE(ok.has_value(), (ok ? std::string() : ok.error().what()));
  BOOST_TEST(stored(ctx.get()) == 0);  // nothing parsed yet
  auto la = a.mint->leaf("api.example.com"), lb = b.mint->leaf("api.example.com");
  BOOST_REQUIRE(la);
  BOOST_REQUIRE(lb);
  BOOST_TEST(verifies(ctx.get(), la->get()));
  BOOST_TEST(stored(ctx.get()) == 1);  // a's CA, and only it
  BOOST_TEST(!verifies(ctx.get(), lb->get()));
  BOOST_TEST(verifies(ctx.get(), la->get()));  // again, from the store
  BOOST_TEST(stored(ctx.get()) == 1);
}

BOOST_AUTO_TEST_CASE(files_without_trust_refused) {
  Dir d;
  Pki a = make_ca(d, "a");
  std::string broken = a.ca_pem;
  broken.replace(broken.find('\n') + 5, 4, "!!!!");  // base64 no more
  for (const auto& [name, text] : std::initializer_list<std::pair<std::string, std::string>>{
           {"empty", ""}, {"text", "no PEM here\n"}, {"broken", broken + a.ca_pem}}) {
    BOOST_REQUIRE(write_file_atomic(d.path + "/" + name, text, 0644));
    tls::Ctx ctx(SSL_CTX_new(TLS_client_method()));
    BOOST_TEST(!trust_on_demand(ctx.get(), d.path + "/" + name).has_value(), name);
  }
  tls::Ctx ctx(SSL_CTX_new(TLS_client_method()));
  BOOST_TEST(!trust_on_demand(ctx.get(), d.path + "/missing").has_value());
}
