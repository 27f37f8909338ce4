// The door's HTTP/1.1 (egress/http.hpp): strict heads, one framing per body, chunked bodies
// decoded whatever way they are cut.
#define BOOST_TEST_MODULE egress_http
#include <boost/test/unit_test.hpp>

#include <string>

#include "egress/http.hpp"

using namespace sh::egress;

BOOST_AUTO_TEST_CASE(request_heads) {
  auto h = parse_request_head("GET /a?b=1 HTTP/1.1\r\nHost: x.example.com\r\nX-A:  v  \r\n\r\n");
  BOOST_REQUIRE(h);
  BOOST_TEST(h->method == "GET");
  BOOST_TEST(h->target == "/a?b=1");
  BOOST_TEST(h->minor == 1);
  BOOST_TEST(h->fields.list.size() == 2u);
  BOOST_TEST(h->fields.list[1].name == "x-a");
  BOOST_TEST(h->fields.list[1].value == "v");
  BOOST_TEST(*h->fields.one("host").value() == "x.example.com");
  BOOST_TEST(parse_request_head("GET / HTTP/1.0\r\n\r\n")->minor == 0);
  // Refused: what could be read two ways, or is not HTTP/1.x.
  for (const char* bad : {"GET / HTTP/1.1\nHost: a\r\n\r\n",          // bare LF
                          "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",  // obs-fold
                          "GET / HTTP/1.1\r\nHost : a\r\n\r\n",        // space before the colon
                          "GET / HTTP/1.1\r\nHo st: a\r\n\r\n", "GET / HTTP/1.1\r\nnocolon\r\n\r\n",
                          "GET / HTTP/2.0\r\n\r\n", "PRI * HTTP/2.0\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n",
                          "GET /a b HTTP/1.1\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nA: b\rc\r\n\r\n",
                          "GET / HTTP/1.1\r\nA: \x01\r\n\r\n", "GET / HTTP/1.1\r\n"})
    BOOST_TEST(!parse_request_head(bad).has_value(), bad);
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "a" + std::to_string(i) + ": x\r\n";
  BOOST_TEST(!parse_request_head(many + "\r\n").has_value());
}

BOOST_AUTO_TEST_CASE(head_length_bounded) {
  BOOST_TEST(*head_length("GET / HTTP/1.1\r\n") == 0u);
  BOOST_TEST(*head_length("GET / HTTP/1.1\r\n\r\nbody") == 18u);
  BOOST_TEST(!head_length(std::string(kMaxHead, 'a')).has_value());
}

BOOST_AUTO_TEST_CASE(response_heads) {
  auto r = parse_response_head("HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\n");
  BOOST_REQUIRE(r);
  BOOST_TEST(r->status == 404);
  BOOST_TEST(r->reason == "Not Found");
  BOOST_TEST(parse_response_head("HTTP/1.1 204\r\n\r\n")->status == 204);
  for (const char* bad : {"HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n", "HTTP/2 200\r\n\r\n", "ICY 200 OK\r\n\r\n"})
    BOOST_TEST(!parse_response_head(bad).has_value(), bad);
  BOOST_TEST(write_head(*r) == "HTTP/1.1 404 Not Found\r\ncontent-length: 3\r\n\r\n");
}

BOOST_AUTO_TEST_CASE(framing_one_way_only) {
  auto f = [](const char* head) { return request_framing(parse_request_head(head)->fields); };
  BOOST_TEST(f("GET / HTTP/1.1\r\n\r\n")->kind == Framing::none);
  BOOST_TEST(f("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n")->length == 12u);
  BOOST_TEST(f("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n")->kind == Framing::chunked);
  // Smuggling shapes: both framings, two lengths, other codings, signs and spaces.
  for (const char* bad : {"POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
                          "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
                          "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                          "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                          "POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n",
                          "POST / HTTP/1.1\r\nContent-Length: 99999999999999999\r\n\r\n"})
    BOOST_TEST(!f(bad).has_value(), bad);
  auto r = [](const char* head, bool is_head) { return response_framing(*parse_response_head(head), is_head)->kind; };
  BOOST_TEST(r("HTTP/1.1 200 OK\r\n\r\n", false) == Framing::until_close);
  BOOST_TEST(r("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", true) == Framing::none);
  BOOST_TEST(r("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n", false) == Framing::none);
}

// Every way of cutting a chunked body gives the same payload.
BOOST_AUTO_TEST_CASE(chunked_decoding_cut_anywhere) {
  const std::string wire = "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nTrailer: dropped\r\n\r\nNEXT";
  for (size_t step = 1; step <= wire.size(); ++step) {
    BodyDecoder d(Framing{Framing::chunked, 0});
    std::string out;
    size_t at = 0;
    while (!d.done() && at < wire.size()) {
      std::string_view piece = std::string_view(wire).substr(at, step);
      auto used = d.feed(piece, out);
      BOOST_REQUIRE(used);
      at += *used;
      if (*used < piece.size()) break;
    }
    BOOST_TEST(d.done(), "step " << step);
    BOOST_TEST(out == "hello, world");
    BOOST_TEST(wire.substr(at) == "NEXT", "step " << step);
  }
  for (const char* bad : {"x\r\n", "5\r\nhelloXX\r\n", "-1\r\n", "fffffffffffffffff\r\n"}) {
    BodyDecoder d(Framing{Framing::chunked, 0});
    std::string out;
    BOOST_TEST(!d.feed(bad, out).has_value(), bad);
  }
  BodyDecoder cut(Framing{Framing::sized, 10});
  std::string out;
  BOOST_TEST(*cut.feed("12345", out) == 5u);
  BOOST_TEST(!cut.feed("", out, true).has_value(), "the peer closed before the end of a sized body");
  BodyDecoder until(Framing{Framing::until_close, 0});
  BOOST_TEST(*until.feed("abc", out) == 3u);
  BOOST_TEST(until.feed("", out, true).has_value());
  BOOST_TEST(until.done());
  BOOST_TEST(chunk("hello") == "5\r\nhello\r\n");
  BOOST_TEST(chunk("").empty());
}
