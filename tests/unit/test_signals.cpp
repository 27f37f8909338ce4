#define BOOST_TEST_MODULE signals
#include <boost/test/unit_test.hpp>
#include <csignal>

#include "runtime/linux/signals.hpp"

using sh::signals::parse;

BOOST_AUTO_TEST_CASE(numbers_names_any_case) {
  BOOST_TEST(*parse("9") == SIGKILL);
  BOOST_TEST(*parse("KILL") == SIGKILL);
  BOOST_TEST(*parse("SIGKILL") == SIGKILL);
  BOOST_TEST(*parse("sigkill") == SIGKILL);
  BOOST_TEST(*parse("term") == SIGTERM);
  BOOST_TEST(*parse("SigHup") == SIGHUP);
  BOOST_TEST(*parse("15") == SIGTERM);
  BOOST_TEST(*parse("WINCH") == SIGWINCH);
}

BOOST_AUTO_TEST_CASE(realtime) {
  BOOST_TEST(*parse("RTMIN") == SIGRTMIN);
  BOOST_TEST(*parse("SIGRTMIN+2") == SIGRTMIN + 2);
  BOOST_TEST(*parse("RTMAX-1") == SIGRTMAX - 1);
  BOOST_TEST(!parse("RTMAX+1"));
}

BOOST_AUTO_TEST_CASE(invalid) {
  for (auto s : {"", "0", "65", "99999", "SIGNOPE", "KILLL", "-9", "9x"}) {
    auto r = parse(s);
    BOOST_TEST(!r, "accepted " << s);
    if (!r) BOOST_TEST(r.error().what().find("invalid signal") != std::string::npos);
  }
}
