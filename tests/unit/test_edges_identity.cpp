// The edge CA and leaf certificates (edges/identity.hpp), and the TLS checks of the proxies
// (tls/tls.hpp, edges/peer.hpp) exercised with real OpenSSL handshakes over socketpairs.
#define BOOST_TEST_MODULE edges_identity
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "base/file.hpp"
#include "edges/identity.hpp"
#include "edges/provision.hpp"
#include "edges/peer.hpp"
#include "tls_pair.hpp"

using namespace sh;
using namespace sh::identity;

namespace {

using test::IgnoreSigpipe;
BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/sharness-ca-test.XXXXXX";
    path = ::mkdtemp(t);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

Cert leaf_cert(const Leaf& l) { return std::move(*cert_from_pem(l.cert_pem, "leaf")); }

// Does `leaf` verify against `ca` (chain and validity, as the proxies check)?
bool verifies(const Ca& ca, X509* leaf) {
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca.cert());
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf, nullptr);
  bool ok = X509_verify_cert(ctx) == 1;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return ok;
}

// The client sends "ping" after the handshake; `server_got` is what the server read.
test::Handshake run(const Leaf& client, const Leaf& server, const std::string& client_ca, const std::string& server_ca,
                    std::vector<std::string> accepted, std::vector<std::string> want, std::string* server_got = nullptr) {
  return test::handshake_pair(client, server, client_ca, server_ca, {accepted, want}, server_got);
}

}  // namespace

BOOST_AUTO_TEST_CASE(roles_and_uris) {
  BOOST_TEST(bool(validate_role("db")));
  BOOST_TEST(bool(validate_role("web-1")));
  for (auto bad : {"", "DB", "a/b", "-x", "a_b", "a.b", "x y"}) BOOST_TEST(!validate_role(bad), bad);
  BOOST_TEST(!validate_role(std::string(64, 'a')));
  BOOST_TEST(spiffe_uri("db", "c1") == "spiffe://sharness.local/role/db/c1");
  auto id = parse_spiffe_uri("spiffe://sharness.local/role/db/c1");
  BOOST_REQUIRE(id);
  BOOST_TEST(id->role == "db");
  BOOST_TEST(id->name == "c1");
  for (auto bad : {"spiffe://other.domain/role/db/c1", "spiffe://sharness.local/role/db", "spiffe://sharness.local/role/DB/c",
                   "spiffe://sharness.local/role/db/a/b", "https://sharness.local/role/db/c1", "spiffe://sharness.local/role//c"})
    BOOST_TEST(!parse_spiffe_uri(bad), bad);
}

BOOST_AUTO_TEST_CASE(ca_created_once_root_only_and_rotated) {
  TempDir t;
  std::string dir = t.path + "/ca";
  bool created = false;
  auto ca = Ca::ensure(dir, &created);
  BOOST_REQUIRE_MESSAGE(ca, (ca ? "" : ca.error().what()));
  BOOST_TEST(created);
  struct stat st {};
  BOOST_REQUIRE(::stat(dir.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0700u);
  BOOST_REQUIRE(::stat((dir + "/ca.key").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
  std::string fp = fingerprint(ca->cert());
  BOOST_TEST(fp.size() == 64u);
  // Second use: the same CA.
  auto again = Ca::ensure(dir, &created);
  BOOST_REQUIRE(again);
  BOOST_TEST(!created);
  BOOST_TEST(fingerprint(again->cert()) == fp);
  // A CA is a CA: basicConstraints CA:TRUE, self-signed.
  BOOST_TEST(X509_check_ca(ca->cert()) >= 1);
  // Rotation: a new CA; leaves of the old one no longer verify.
  auto old_leaf = issue_leaf(*ca, {"db", "c1"});
  BOOST_REQUIRE(old_leaf);
  auto rotated = Ca::rotate(dir);
  BOOST_REQUIRE(rotated);
  BOOST_TEST(fingerprint(rotated->cert()) != fp);
  BOOST_TEST(!verifies(*rotated, leaf_cert(*old_leaf).get()));
  BOOST_TEST(verifies(*ca, leaf_cert(*old_leaf).get()));
  BOOST_TEST(::access((dir + "/ca.pem.prev").c_str(), F_OK) == 0);
}

BOOST_AUTO_TEST_CASE(ca_dir_open_to_others_is_refused) {
  TempDir t;
  std::string dir = t.path + "/ca";
  BOOST_REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  BOOST_REQUIRE(::chmod(dir.c_str(), 0755) == 0);
  auto ca = Ca::ensure(dir);
  BOOST_REQUIRE(!ca);
  BOOST_TEST(ca.error().what().find("mode 0700") != std::string::npos, ca.error().what());
  BOOST_TEST(!Ca::load(t.path + "/none"));
}

// `state` reads the fingerprint from cert.pem without the X.509 parser: it must be the same
// digest, whatever base64 padding the DER's length gives (20 leaves and the CA cover all three).
BOOST_AUTO_TEST_CASE(pem_fingerprint_matches_the_x509_digest) {
  TempDir t;
  auto ca = Ca::ensure(t.path + "/ca");
  BOOST_REQUIRE(ca);
  BOOST_TEST(*pem_fingerprint(ca->pem(), "ca") == fingerprint(ca->cert()));
  std::set<size_t> paddings;
  for (int i = 0; i < 20; ++i) {
    auto l = issue_leaf(*ca, {"app", "c" + std::to_string(i)});
    BOOST_REQUIRE(l);
    auto fp = pem_fingerprint(l->cert_pem, "leaf");
    BOOST_REQUIRE(fp);
    BOOST_TEST(*fp == l->fingerprint);
    paddings.insert(l->cert_pem.find("=") == std::string::npos ? 0 : l->cert_pem.find("==") == std::string::npos ? 1 : 2);
  }
  BOOST_TEST_MESSAGE("base64 paddings seen: " << paddings.size());
  BOOST_TEST(!pem_fingerprint("no certificate here", "x"));
  BOOST_TEST(!pem_fingerprint("-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n", "x"));
  BOOST_TEST(!pem_fingerprint("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n", "x"));
}

BOOST_AUTO_TEST_CASE(leaf_names_role_and_container_with_a_fresh_key) {
  TempDir t;
  auto ca = Ca::ensure(t.path + "/ca");
  BOOST_REQUIRE(ca);
  auto a = issue_leaf(*ca, {"app", "c1"});
  auto b = issue_leaf(*ca, {"app", "c1"});
  BOOST_REQUIRE(a);
  BOOST_REQUIRE(b);
  BOOST_TEST(a->uri == "spiffe://sharness.local/role/app/c1");
  auto cert = leaf_cert(*a);
  BOOST_TEST(*uri_san(cert.get()) == a->uri);
  BOOST_TEST(*role_of(cert.get()) == "app");
  BOOST_TEST(fingerprint(cert.get()) == a->fingerprint);
  BOOST_TEST(verifies(*ca, cert.get()));
  BOOST_TEST(X509_check_ca(cert.get()) == 0);  // a leaf cannot sign
  // Same role and id twice: a different key and certificate every time.
  BOOST_TEST(a->key_pem != b->key_pem);
  BOOST_TEST(a->fingerprint != b->fingerprint);
  // The key matches its certificate.
  auto key = key_from_pem(a->key_pem, "key");
  BOOST_REQUIRE(key);
  BOOST_TEST(X509_check_private_key(cert.get(), key->get()) == 1);
  // Short-lived by default.
  BOOST_TEST(a->not_after - ::time(nullptr) <= kDefaultLeafSeconds);
  BOOST_TEST(!issue_leaf(*ca, {"Bad Role", "c1"}));
  BOOST_TEST(!issue_leaf(*ca, {"app", "a/b"}));
}

BOOST_AUTO_TEST_CASE(expired_leaf_does_not_verify) {
  TempDir t;
  auto ca = Ca::ensure(t.path + "/ca");
  BOOST_REQUIRE(ca);
  auto old = issue_leaf(*ca, {"app", "c1", 60, 3600});  // valid for a minute, an hour ago
  BOOST_REQUIRE(old);
  BOOST_TEST(!verifies(*ca, leaf_cert(*old).get()));
}

BOOST_AUTO_TEST_CASE(tls_mutual_and_role_checked_both_ways) {
  TempDir t;
  auto ca = Ca::ensure(t.path + "/ca");
  auto other = Ca::ensure(t.path + "/other");
  BOOST_REQUIRE(ca && other);
  auto app = *issue_leaf(*ca, {"app", "a"});
  auto db = *issue_leaf(*ca, {"db", "b"});
  auto intruder = *issue_leaf(*ca, {"intruder", "x"});
  auto foreign = *issue_leaf(*other, {"app", "f"});
  auto expired = *issue_leaf(*ca, {"app", "e", 60, 3600});

  // The control: app -> db, both accepted, the payload arrives.
  std::string got;
  auto ok = run(app, db, ca->pem(), ca->pem(), {"app"}, {"db"}, &got);
  BOOST_TEST(ok.client_ok, ok.client_err);
  BOOST_TEST(ok.server_ok, ok.server_err);
  BOOST_TEST(got == "ping");

  // The server refuses a client of a role it does not accept, from another CA, or expired;
  // and reads nothing.
  for (auto* bad : {&intruder, &foreign, &expired}) {
    std::string none;
    auto h = run(*bad, db, ca->pem(), ca->pem(), {"app"}, {"db"}, &none);
    BOOST_TEST(!h.server_ok);
    BOOST_TEST(none.empty());
  }
  auto h = run(intruder, db, ca->pem(), ca->pem(), {"app"}, {"db"});
  BOOST_TEST(h.server_err.find("role") != std::string::npos, h.server_err);
  h = run(expired, db, ca->pem(), ca->pem(), {"app"}, {"db"});
  BOOST_TEST(h.server_err.find("expired") != std::string::npos, h.server_err);

  // The client refuses a server that is not the role its edge goes to.
  h = run(app, intruder, ca->pem(), ca->pem(), {"app"}, {"db"});
  BOOST_TEST(!h.client_ok);
  BOOST_TEST(h.client_err.find("role") != std::string::npos, h.client_err);
  // ...or one from another CA.
  h = run(app, foreign, ca->pem(), other->pem(), {"app"}, {"app"});
  BOOST_TEST(!h.client_ok);
}

BOOST_AUTO_TEST_CASE(leaf_files_are_owner_read_only) {
  TempDir t;
  auto ca = Ca::ensure(t.path + "/ca");
  BOOST_REQUIRE(ca);
  auto leaf = issue_leaf(*ca, {"app", "c1"});
  BOOST_REQUIRE(leaf);
  auto d = open_file(t.path, O_RDONLY | O_DIRECTORY);
  BOOST_REQUIRE(d);
  BOOST_REQUIRE(write_leaf(d->get(), *leaf, ::geteuid(), ::getegid()));
  for (auto f : {kCertFile, kKeyFile, kCaFile}) {
    struct stat st {};
    BOOST_REQUIRE(::stat((t.path + "/" + f).c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0400u, f);
  }
  BOOST_TEST(*read_file(t.path + "/" + kKeyFile) == leaf->key_pem);
  // Never overwritten: a second write fails rather than replacing a key.
  BOOST_TEST(!write_leaf(d->get(), *leaf, ::geteuid(), ::getegid()));
}

// Renewal (docs/edges.md "Renewal"): a short lifetime is valid now and expires on time; the
// replacement has a new key, keeps the mode and leaves no temporary file.
BOOST_AUTO_TEST_CASE(renewal_replaces_the_leaf_with_a_fresh_key) {
  TempDir t;
  auto ca = Ca::ensure(t.path + "/ca");
  BOOST_REQUIRE(ca);
  auto req = sh::edges::leaf_request("db", "c1", 20);
  BOOST_TEST(req.backdate == 5);
  BOOST_TEST(sh::edges::leaf_request("db", "c1", 86400).backdate == 60);
  auto first = issue_leaf(*ca, req);
  BOOST_REQUIRE(first);
  auto x = cert_from_pem(first->cert_pem, "first");
  BOOST_REQUIRE(x);
  int64_t left = seconds_left(x->get());
  BOOST_TEST(left > 0);
  BOOST_TEST(left <= 15);
  auto d = open_file(t.path, O_RDONLY | O_DIRECTORY);
  BOOST_REQUIRE(d);
  BOOST_REQUIRE(write_leaf(d->get(), *first, ::geteuid(), ::getegid()));
  auto second = issue_leaf(*ca, req);
  BOOST_REQUIRE(second);
  BOOST_REQUIRE(replace_leaf(d->get(), *second, ::geteuid(), ::getegid()));
  BOOST_TEST(*read_file(t.path + "/" + kKeyFile) == second->key_pem);
  BOOST_TEST(*read_file(t.path + "/" + kCertFile) == second->cert_pem);
  BOOST_TEST(second->key_pem != first->key_pem);
  BOOST_TEST(second->fingerprint != first->fingerprint);
  for (auto f : {kCertFile, kKeyFile, kCaFile}) {
    struct stat st {};
    BOOST_REQUIRE(::stat((t.path + "/" + f).c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0400u, f);
    BOOST_TEST(::access((t.path + "/" + f + ".new").c_str(), F_OK) != 0, f);
  }
}
