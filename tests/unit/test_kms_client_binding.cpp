// The door's side of the container binding (kms/client.hpp): the door asks its KMS only when
// the KMS's leaf names the door's own container, as the KMS answers only the door's leaf that
// names its own. A KMS leaf of another container (same CA, role kms) is refused in the
// handshake, before any request is sent; the control, the door's own container's KMS, is asked.
#define BOOST_TEST_MODULE kms_client_binding
#include <boost/test/unit_test.hpp>

#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>
#include <thread>

#include "base/fd.hpp"
#include "base/file.hpp"
#include "edges/identity.hpp"
#include "kms/client.hpp"
#include "kms/config.hpp"
#include "temp_dir.hpp"
#include "tls_pair.hpp"

using namespace sh;

namespace {

using test::IgnoreSigpipe;
BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);

// A stand-in KMS on a UNIX socket presenting `leaf`: one connection, the door's leaf of
// container "a" accepted, any request answered with a refusal. Sets `asked` if a request came.
struct FakeKms {
  Fd listener;
  std::thread t;
  bool asked = false;
  FakeKms(const std::string& path, const identity::Leaf& leaf) {
    listener = Fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    BOOST_REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
    BOOST_REQUIRE(::listen(listener.get(), 1) == 0);
    t = std::thread([this, leaf] {
      auto ctx = tls::make_ctx(true, tls::Pem{leaf.cert_pem, leaf.key_pem, leaf.ca_pem});
      if (!ctx) return;
      Fd c(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!c) return;
      auto ssl = tls::handshake(ctx->get(), c.get(), true, tls::Peer{{kms::kDoorRole}, "a", {}}, 5);
      if (!ssl) return;
      char buf[kms::kMaxRequest];
      size_t n = 0;
      if (SSL_read_ex(ssl->get(), buf, sizeof buf, &n) != 1) return;
      asked = true;
      const std::string no = "sharness-kms/1 refused\nreason=stand-in\n\n";
      SSL_write_ex(ssl->get(), no.data(), no.size(), &n);
      SSL_shutdown(ssl->get());
    });
  }
  // Wait for the connection to end (a client that never connected: accept fails).
  void finish() {
    ::shutdown(listener.get(), SHUT_RDWR);
    if (t.joinable()) t.join();
  }
  ~FakeKms() { finish(); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_door_asks_only_its_own_containers_kms) {
  test::TempDir d("sharness-kms-binding");
  auto ca = identity::Ca::ensure(d / "ca");
  BOOST_REQUIRE(ca);
  auto door = identity::issue_leaf(*ca, {kms::kDoorRole, "a"});
  auto kms_a = identity::issue_leaf(*ca, {"kms", "a"});
  auto kms_b = identity::issue_leaf(*ca, {"kms", "b"});
  BOOST_REQUIRE(door && kms_a && kms_b);
  BOOST_REQUIRE(write_file_atomic(d / "cert.pem", door->cert_pem, 0600));
  BOOST_REQUIRE(write_file_atomic(d / "key.pem", door->key_pem, 0600));
  BOOST_REQUIRE(write_file_atomic(d / "ca.pem", door->ca_pem, 0600));
  const tls::Files files{d / "ca.pem", d / "cert.pem", d / "key.pem"};

  // Container b's KMS (same CA, role kms): refused in the handshake, no request sent.
  {
    FakeKms other(d / "b.sock", *kms_b);
    auto r = kms::fetch_credential(d / "b.sock", files, "a", "github", "api.test");
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().what().find("peer id \"b\", expected \"a\"") != std::string::npos, r.error().what());
    other.finish();
    BOOST_TEST(!other.asked);
  }
  // Control: container a's KMS is asked (and its refusal comes back as the error).
  {
    FakeKms own(d / "a.sock", *kms_a);
    auto r = kms::fetch_credential(d / "a.sock", files, "a", "github", "api.test");
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().what().find("stand-in") != std::string::npos, r.error().what());
    own.finish();
    BOOST_TEST(own.asked);
  }
}
