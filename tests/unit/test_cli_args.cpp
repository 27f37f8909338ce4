#define BOOST_TEST_MODULE cli_args
#include <boost/test/unit_test.hpp>

#include "runtime/cli/args.hpp"

using namespace sh::cli;

static const std::vector<FlagSpec> kSpecs = {
    {{"bundle", "b"}, true}, {{"detach", "d"}, false}, {{"env", "e"}, true, true}, {{"root"}, true}};

static Parsed must(const std::vector<std::string>& a, bool stop = false) {
  auto p = parse(kSpecs, a, 0, stop);
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.error().what()));
  return *p;
}

BOOST_AUTO_TEST_CASE(space_and_equals_forms) {
  auto p = must({"--bundle", "/b", "id"});
  BOOST_TEST(p.get("bundle") == "/b");
  BOOST_TEST(p.positional == std::vector<std::string>{"id"});
  BOOST_TEST(must({"--bundle=/c", "id"}).get("bundle") == "/c");
  BOOST_TEST(must({"-b", "/d", "id"}).get("bundle") == "/d");
  BOOST_TEST(must({"-bundle", "/e", "id"}).get("bundle") == "/e");
}

BOOST_AUTO_TEST_CASE(booleans) {
  BOOST_TEST(must({"-d", "x"}).flag("detach"));
  BOOST_TEST(must({"--detach=true", "x"}).flag("detach"));
  BOOST_TEST(!must({"--detach=false", "x"}).flag("detach"));
  BOOST_TEST(!must({"x"}).flag("detach"));
  BOOST_TEST(!parse(kSpecs, {"--detach=maybe"}, 0));
}

BOOST_AUTO_TEST_CASE(repeatable_and_last_wins) {
  auto p = must({"--env", "A=1", "-e", "B=2", "--bundle", "x", "--bundle", "y"});
  BOOST_TEST(p.all("env") == (std::vector<std::string>{"A=1", "B=2"}));
  BOOST_TEST(p.get("bundle") == "y");
}

BOOST_AUTO_TEST_CASE(errors_name_the_flag) {
  auto p = parse(kSpecs, {"--nope"}, 0);
  BOOST_REQUIRE(!p);
  BOOST_TEST(p.error().what().find("-nope") != std::string::npos);
  auto q = parse(kSpecs, {"--bundle"}, 0);
  BOOST_REQUIRE(!q);
  BOOST_TEST(q.error().what().find("needs an argument") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(stop_at_positional_keeps_command_flags) {
  auto p = must({"-d", "ctr", "sh", "-c", "--bundle"}, true);
  BOOST_TEST(p.flag("detach"));
  BOOST_TEST(p.positional == (std::vector<std::string>{"ctr", "sh", "-c", "--bundle"}));
}

BOOST_AUTO_TEST_CASE(double_dash_ends_flags) {
  auto p = must({"--", "-d"});
  BOOST_TEST(!p.flag("detach"));
  BOOST_TEST(p.positional == std::vector<std::string>{"-d"});
}

BOOST_AUTO_TEST_CASE(unsigned_values) {
  BOOST_TEST(*to_unsigned("preserve-fds", "3") == 3u);
  BOOST_TEST(!to_unsigned("preserve-fds", "-1"));
  BOOST_TEST(!to_unsigned("preserve-fds", "x"));
  BOOST_TEST(!to_unsigned("preserve-fds", "99999999999"));
}
