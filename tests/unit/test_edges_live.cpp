// Revocation of edge leaves (edges/live.hpp): the live registry's layout and rules,
// and the proxies' handshake refusing a leaf that is not registered, on both ends, before the
// server reads a byte.
#define BOOST_TEST_MODULE edges_live
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/file.hpp"
#include "edges/identity.hpp"
#include "edges/live.hpp"
#include "edges/peer.hpp"
#include "temp_dir.hpp"
#include "tls_pair.hpp"

using namespace sh;
namespace live = sh::edges::live;

namespace {

using test::IgnoreSigpipe;
BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

const std::string kFp1(64, 'a'), kFp2(64, 'b');

bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

mode_t mode_of(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(layout_add_check_revoke) {
  test::TempDir t("sharness-live");
  std::string root = t.path.string(), reg = live::registry_dir(root);
  BOOST_TEST(reg == root + "/.edges/.live");
  // No registry yet: a proxy cannot open it (fails closed), revoking is a no-op.
  BOOST_TEST(!live::open_registry(root));
  BOOST_TEST(bool(live::revoke(root, "c1")));

  ::umask(077);  // the registry's modes are exact whatever the umask
  BOOST_REQUIRE(live::add(root, "c1", kFp1));
  ::umask(022);
  BOOST_TEST(mode_of(root + "/.edges") == 0755u);
  BOOST_TEST(mode_of(reg) == 0755u);
  BOOST_TEST(mode_of(reg + "/c1") == 0755u);
  BOOST_TEST(mode_of(reg + "/c1/" + kFp1) == 0644u);

  auto fd = live::open_registry(root);
  BOOST_REQUIRE(fd);
  bool revoked = true;
  BOOST_TEST(bool(live::check(fd->get(), "c1", kFp1, &revoked)));
  BOOST_TEST(!revoked);
  // Another leaf of the same holder, or the same leaf under another name: not live.
  auto other = live::check(fd->get(), "c1", kFp2, &revoked);
  BOOST_TEST(!other);
  BOOST_TEST(revoked);
  BOOST_TEST(other.error().what().find("not live") != std::string::npos, other.error().what());
  BOOST_TEST(!live::check(fd->get(), "c2", kFp1, &revoked));
  BOOST_TEST(revoked);

  // Renewal: the new leaf in, then every other one out.
  BOOST_REQUIRE(live::add_at(fd->get(), "c1", kFp2));
  BOOST_TEST(bool(live::check(fd->get(), "c1", kFp1)));
  BOOST_TEST(bool(live::check(fd->get(), "c1", kFp2)));
  BOOST_REQUIRE(live::revoke_others_at(fd->get(), "c1", kFp2));
  BOOST_TEST(!live::check(fd->get(), "c1", kFp1));
  BOOST_TEST(bool(live::check(fd->get(), "c1", kFp2)));

  // Delete: the holder's directory goes; twice is fine; the fd a proxy holds sees it.
  BOOST_REQUIRE(live::add(root, "c3", kFp1));
  BOOST_REQUIRE(live::revoke(root, "c1"));
  BOOST_TEST(bool(live::revoke(root, "c1")));
  BOOST_TEST(!exists(reg + "/c1"));
  BOOST_TEST(!live::check(fd->get(), "c1", kFp2, &revoked));
  BOOST_TEST(revoked);
  BOOST_TEST(bool(live::check(fd->get(), "c3", kFp1)), "another holder is untouched");
}

BOOST_AUTO_TEST_CASE(names_and_fingerprints_are_checked) {
  test::TempDir t("sharness-live");
  std::string root = t.path.string();
  BOOST_REQUIRE(live::add(root, "ok", kFp1));
  auto fd = live::open_registry(root);
  BOOST_REQUIRE(fd);
  for (const std::string& bad :
       std::vector<std::string>{"", ".", "..", "a/b", "../ok", std::string("a\0b", 3), std::string(201, 'x')}) {
    BOOST_TEST(!live::validate_name(bad), bad);
    BOOST_TEST(!live::add(root, bad, kFp1), bad);
    bool revoked = true;
    BOOST_TEST(!live::check(fd->get(), bad, kFp1, &revoked), bad);
    BOOST_TEST(!revoked, "a bad name is an error, not a revoked leaf");
  }
  for (const std::string& bad : std::vector<std::string>{"", std::string(63, 'a'), std::string(65, 'a'),
                                                         std::string(64, 'A'), "../" + std::string(61, 'a')}) {
    BOOST_TEST(!live::validate_fingerprint(bad), bad);
    BOOST_TEST(!live::add(root, "ok", bad), bad);
    BOOST_TEST(!live::check(fd->get(), "ok", bad), bad);
  }
  BOOST_TEST(bool(live::validate_name("my-container_1.2")));
  // delete revokes under every container id, even one no leaf can be named after.
  BOOST_TEST(bool(live::revoke(root, std::string(1024, 'x'))));
  BOOST_TEST(bool(live::revoke(root, "..")));
  BOOST_TEST(bool(live::check(fd->get(), "ok", kFp1)), "and revokes nothing else");
}

BOOST_AUTO_TEST_CASE(what_is_not_a_live_entry_is_refused) {
  test::TempDir t("sharness-live");
  std::string root = t.path.string(), reg = live::registry_dir(root);
  BOOST_REQUIRE(live::add(root, "c1", kFp1));
  auto fd = live::open_registry(root);
  BOOST_REQUIRE(fd);
  // A directory, or a symlink to a live entry, where the entry should be: refused.
  BOOST_REQUIRE(::mkdir((reg + "/c1/" + kFp2).c_str(), 0755) == 0);
  BOOST_TEST(!live::check(fd->get(), "c1", kFp2));
  BOOST_REQUIRE(::mkdir((reg + "/c2").c_str(), 0755) == 0);
  BOOST_REQUIRE(::symlink((reg + "/c1/" + kFp1).c_str(), (reg + "/c2/" + kFp1).c_str()) == 0);
  BOOST_TEST(!live::check(fd->get(), "c2", kFp1));
  // A holder that is a symlink to another holder's directory: refused.
  BOOST_REQUIRE(::symlink((reg + "/c1").c_str(), (reg + "/c3").c_str()) == 0);
  BOOST_TEST(!live::check(fd->get(), "c3", kFp1));
  // A bad registry fd refuses everything.
  BOOST_TEST(!live::check(-1, "c1", kFp1));
  BOOST_TEST(bool(live::check(fd->get(), "c1", kFp1)), "control: the real entry is live");
}

BOOST_AUTO_TEST_CASE(a_registry_others_can_write_is_refused) {
  test::TempDir t("sharness-live");
  std::string root = t.path.string(), reg = live::registry_dir(root);
  BOOST_REQUIRE(live::add(root, "c1", kFp1));
  BOOST_REQUIRE(::chmod(reg.c_str(), 0777) == 0);
  BOOST_TEST(!live::open_registry(root));
  BOOST_TEST(!live::add(root, "c2", kFp1));
  BOOST_REQUIRE(::chmod(reg.c_str(), 0755) == 0);
  BOOST_REQUIRE(::chmod((root + "/.edges").c_str(), 0775) == 0);
  BOOST_TEST(!live::open_registry(root));
  BOOST_REQUIRE(::chmod((root + "/.edges").c_str(), 0755) == 0);
  BOOST_TEST(bool(live::open_registry(root)), "control");
  // A holder directory others could write: add refuses to use it.
  BOOST_REQUIRE(::chmod((reg + "/c1").c_str(), 0757) == 0);
  BOOST_TEST(!live::add(root, "c1", kFp2));
}

// The proxies' handshake: a leaf chaining to the CA, of the right role, is still refused unless
// it is live; the server reads nothing from a revoked client, the client refuses a revoked
// server; a renewal's new leaf is accepted and the old one refused.
BOOST_AUTO_TEST_CASE(handshake_refuses_a_leaf_that_is_not_live) {
  test::TempDir t("sharness-live");
  std::string root = t.path.string();
  auto ca = identity::Ca::ensure(t / "ca");
  BOOST_REQUIRE(ca);
  auto app = *identity::issue_leaf(*ca, {"app", "a1"});
  auto db = *identity::issue_leaf(*ca, {"db", "b1"});
  BOOST_REQUIRE(live::add(root, "a1", app.fingerprint));
  BOOST_REQUIRE(live::add(root, "b1", db.fingerprint));
  auto reg = live::open_registry(root);
  BOOST_REQUIRE(reg);
  test::Ends both{{"app"}, {"db"}, edges::Liveness(reg->get()), edges::Liveness(reg->get())};

  std::string got;
  auto h = test::handshake_pair(app, db, ca->pem(), ca->pem(), both, &got);
  BOOST_TEST(h.client_ok, h.client_err);
  BOOST_TEST(h.server_ok, h.server_err);
  BOOST_TEST(got == "ping", "control: both live, the payload arrives");

  // The client's holder is deleted: the server refuses it and reads nothing.
  BOOST_REQUIRE(live::revoke(root, "a1"));
  got.clear();
  h = test::handshake_pair(app, db, ca->pem(), ca->pem(), both, &got);
  BOOST_TEST(!h.server_ok);
  BOOST_TEST(got.empty());
  BOOST_TEST(h.server_err.find("not live") != std::string::npos, h.server_err);

  // The server's: the client refuses it before it sends a byte.
  BOOST_REQUIRE(live::add(root, "a1", app.fingerprint));
  BOOST_REQUIRE(live::revoke(root, "b1"));
  got.clear();
  h = test::handshake_pair(app, db, ca->pem(), ca->pem(), both, &got);
  BOOST_TEST(!h.client_ok);
  BOOST_TEST(h.client_err.find("not live") != std::string::npos, h.client_err);
  BOOST_TEST(got.empty());

  // Renewal: b1's new leaf is live, its old one is not.
  auto db2 = *identity::issue_leaf(*ca, {"db", "b1"});
  BOOST_REQUIRE(live::add(root, "b1", db2.fingerprint));
  h = test::handshake_pair(app, db2, ca->pem(), ca->pem(), both, &got);
  BOOST_TEST(h.client_ok, h.client_err);
  BOOST_TEST(got == "ping");
  h = test::handshake_pair(app, db, ca->pem(), ca->pem(), both);
  BOOST_TEST(!h.client_ok, "the leaf before the renewal is refused");

  // A registry the proxy cannot use (a bad fd): every peer is refused.
  test::Ends broken{{"app"}, {"db"}, edges::Liveness(-1), edges::Liveness::unchecked()};
  got.clear();
  h = test::handshake_pair(app, db2, ca->pem(), ca->pem(), broken, &got);
  BOOST_TEST(!h.server_ok);
  BOOST_TEST(got.empty());
  // Unchecked (the `connect` tool's choice) does not consult it: the revoked server is accepted.
  test::Ends tool{{"app"}, {"db"}, edges::Liveness(reg->get()), edges::Liveness::unchecked()};
  h = test::handshake_pair(app, db, ca->pem(), ca->pem(), tool);
  BOOST_TEST(h.client_ok, h.client_err);
}

// The cost per connection: one O_PATH open, one stat, one close, for each end.
BOOST_AUTO_TEST_CASE(the_check_is_cheap) {
  test::TempDir t("sharness-live");
  std::string root = t.path.string();
  BOOST_REQUIRE(live::add(root, "c1", kFp1));
  auto fd = live::open_registry(root);
  BOOST_REQUIRE(fd);
  constexpr int n = 20000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) BOOST_REQUIRE(live::check(fd->get(), "c1", kFp1));
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
  BOOST_TEST_MESSAGE("live::check: " << us << " us per call");
  BOOST_TEST(us < 200.0);
  // Next to what a connection costs anyway: a whole handshake over a socketpair, both ends checked
  // (two checks) or neither.
  auto ca = identity::Ca::ensure(t / "ca");
  BOOST_REQUIRE(ca);
  auto app = *identity::issue_leaf(*ca, {"app", "a1"});
  auto db = *identity::issue_leaf(*ca, {"db", "b1"});
  BOOST_REQUIRE(live::add(root, "a1", app.fingerprint));
  BOOST_REQUIRE(live::add(root, "b1", db.fingerprint));
  test::Ends checked{{"app"}, {"db"}, edges::Liveness(fd->get()), edges::Liveness(fd->get())};
  test::Ends unchecked{{"app"}, {"db"}};
  auto per_handshake = [&](const test::Ends& e) {
    constexpr int m = 40;
    auto s0 = std::chrono::steady_clock::now();
    for (int i = 0; i < m; ++i) BOOST_REQUIRE(test::handshake_pair(app, db, ca->pem(), ca->pem(), e).server_ok);
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s0).count() / m;
  };
  double with = per_handshake(checked), without = per_handshake(unchecked);
  BOOST_TEST_MESSAGE("handshake: " << with << " us with both checks, " << without << " us without");
}
