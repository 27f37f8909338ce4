// The egress door's readers of hostile bytes (egress/http.hpp, target.hpp, scrub.hpp): the
// workload's requests and an upstream's answers. Oracles, beyond the sanitizers:
//   - one reading: a head the door accepts, written back as the door forwards it, parses to the
//     same start line and fields;
//   - a body decodes to the same payload whether it arrives whole or a byte at a time;
//   - a path normal_path accepts has no "..", "." or empty segment and no encoded "/";
//   - the scrubber masks the same bytes however its input is cut, and no needle survives it.
// The first input byte picks the part; the rest is the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "egress/http.hpp"
#include "egress/scrub.hpp"
#include "egress/target.hpp"

using namespace sh::egress;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void heads(std::string_view in) {
  if (auto r = parse_request_head(in)) {
    auto again = parse_request_head(write_head(*r));
    check(again && again->method == r->method && again->target == r->target &&
          again->fields.list.size() == r->fields.list.size());
    for (size_t i = 0; i < r->fields.list.size(); ++i)
      check(again->fields.list[i].name == r->fields.list[i].name && again->fields.list[i].value == r->fields.list[i].value);
    (void)request_framing(r->fields);
    if (auto t = parse_absolute(r->target)) (void)normal_path(t->path);
    if (auto t = parse_origin(r->target)) (void)normal_path(t->path);
    (void)parse_authority(r->target);
  }
  if (auto r = parse_response_head(in)) {
    auto again = parse_response_head(write_head(*r));
    check(again && again->status == r->status && again->fields.list.size() == r->fields.list.size());
    (void)response_framing(*r, false);
  }
}

void bodies(std::string_view in, Framing f) {
  BodyDecoder whole(f), bytes(f);
  std::string a, b;
  auto used = whole.feed(in, a, true);
  size_t at = 0;
  bool ok = true;
  while (at < in.size() && !bytes.done()) {
    auto u = bytes.feed(in.substr(at, 1), b);
    if (!u) {
      ok = false;
      break;
    }
    if (*u == 0) break;
    at += *u;
  }
  if (ok && !bytes.done()) ok = bytes.feed("", b, true).has_value();
  check(used.has_value() == ok);
  if (used) check(a == b && *used == at);
}

void paths(std::string_view in) {
  auto p = normal_path(in);
  if (!p) return;
  std::string s = *p + "/";
  check(s.find("/../") == std::string::npos && s.find("/./") == std::string::npos);
  check(p->find("//") == std::string::npos);
  check(p->find('\\') == std::string::npos);
}

void scrub(std::string_view in) {
  if (in.size() < 2) return;
  size_t n = size_t(in[0]) % 8 + 1;
  std::string needle(in.substr(1, std::min(n, in.size() - 1)));
  std::string_view text = in.substr(1);
  Scanner whole({needle}, true), bytes({needle}, true);
  std::string a, b;
  whole.feed(text, a);
  whole.finish(a);
  for (char c : text) bytes.feed(std::string_view(&c, 1), b);
  bytes.finish(b);
  check(a == b && a.size() == text.size());
  check(needle.find('*') != std::string::npos || a.find(needle) == std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: heads(in); break;
    case 1: bodies(in, Framing{Framing::chunked, 0}); break;
    case 2: bodies(in, Framing{Framing::sized, in.size() / 2}); break;
    case 3: paths(in); break;
    case 4: scrub(in); break;
  }
  return 0;
}
