// sync: an error larger than one SOCK_SEQPACKET datagram still arrives (cut, saying so)
// instead of being lost with EMSGSIZE (BUG-4); other messages keep every byte.
#define BOOST_TEST_MODULE sync
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <boost/test/unit_test.hpp>

#include "runtime/lifecycle/internal.hpp"
#include "runtime/lifecycle/sync.hpp"

using namespace sh;

namespace {

struct Pair {
  Fd a, b;
  Pair() {
    int sp[2];
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
    a.reset(sp[0]);
    b.reset(sp[1]);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_huge_error_arrives_cut) {
  Pair p;
  std::string text = "sethostname " + std::string(1000000, 'a') + ": Invalid argument";
  auto r = sync::send(p.a.get(), sync::Msg::error, text);
  BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().what()));
  auto m = sync::expect(p.b.get(), sync::Msg::ready, "init");
  BOOST_REQUIRE(!m.has_value());
  std::string got = m.error().what();
  BOOST_TEST(got.size() <= sync::kMaxErrorText);
  BOOST_TEST(got.starts_with("sethostname aaaa"));
  BOOST_TEST(got.find("aaa ... (" + std::to_string(text.size()) + " bytes in all, cut) ... aaa") != std::string::npos);
  BOOST_TEST(got.ends_with("aaaa: Invalid argument"));  // the reason survives
}

BOOST_AUTO_TEST_CASE(a_small_error_is_untouched) {
  Pair p;
  BOOST_REQUIRE(sync::send(p.a.get(), sync::Msg::error, "exec: \"x\": not found").has_value());
  auto m = sync::recv(p.b.get());
  BOOST_REQUIRE(m.has_value() && m->has_value());
  BOOST_TEST((*m)->payload == "exec: \"x\": not found");
}

BOOST_AUTO_TEST_CASE(other_messages_are_never_cut) {
  Pair p;
  std::string state(100000, 's');  // more than kMaxErrorText, less than a socket buffer
  BOOST_REQUIRE(sync::send(p.a.get(), sync::Msg::go, state).has_value());
  auto m = sync::recv(p.b.get());
  BOOST_REQUIRE(m.has_value() && m->has_value());
  BOOST_TEST((*m)->payload == state);
  // Too large for one datagram: an error that says how large, not a silent cut.
  auto r = sync::send(p.a.get(), sync::Msg::go, std::string(8u << 20, 's'));
  BOOST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().what().find("8388609 bytes") != std::string::npos, r.error().what());
}

BOOST_AUTO_TEST_CASE(cut_on_a_utf8_boundary) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "\xc3\xa9";  // é
  std::string cut = sync::truncate_text(text, 101);
  BOOST_TEST(cut.size() <= 101u);
  auto head = cut.substr(0, cut.find(" ... "));
  auto tail = cut.substr(cut.rfind(" ... ") + 5);
  BOOST_TEST(head.size() % 2 == 0u);  // whole characters only
  BOOST_TEST(tail.size() % 2 == 0u);
  BOOST_TEST(!tail.empty());
  BOOST_TEST(sync::truncate_text("short", 101) == "short");
}

BOOST_AUTO_TEST_CASE(wait_status_in_words) {
  pid_t pid = ::fork();
  if (pid == 0) _exit(1);
  int st = 0;
  BOOST_REQUIRE(::waitpid(pid, &st, 0) == pid);
  BOOST_TEST(lifecycle::describe_wait_status(st) == "exit code 1");
  pid = ::fork();
  if (pid == 0) {
    ::pause();
    _exit(0);
  }
  ::kill(pid, SIGKILL);
  BOOST_REQUIRE(::waitpid(pid, &st, 0) == pid);
  BOOST_TEST(lifecycle::describe_wait_status(st) == "killed by signal 9 (Killed)");
}
