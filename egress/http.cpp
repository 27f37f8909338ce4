#include "egress/http.hpp"

#include <algorithm>
#include <charconv>

namespace sh::egress {
namespace {

constexpr std::string_view kCrlf = "\r\n";
constexpr size_t kMaxLine = 1024;          // a chunk-size line
constexpr size_t kMaxTrailers = 8 * 1024;  // all trailer fields of one body

bool iequals(std::string_view a, std::string_view b) { return lower_case(a) == lower_case(b); }

// Field value bytes: visible ASCII, obs-text, space and tab (RFC 9110 §5.5); never CR, LF, NUL.
bool is_field_value(std::string_view v) {
  return std::ranges::all_of(v, [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u != 0x7f);
  });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "HTTP/1.0" or "HTTP/1.1": the minor version; nothing else is spoken.
Result<int> version(std::string_view v) {
  if (v == "HTTP/1.1") return 1;
  if (v == "HTTP/1.0") return 0;
  return fail("unsupported HTTP version \"" + std::string(v.substr(0, 16)) + "\"");
}

// The lines of a head (without the blank line that ends it), split on CRLF only.
Result<std::vector<std::string_view>> lines(std::string_view head) {
  if (!head.ends_with("\r\n\r\n")) return fail("the head does not end with a blank line");
  head.remove_suffix(4);
  std::vector<std::string_view> out;
  for (;;) {
    size_t e = head.find(kCrlf);
    std::string_view l = head.substr(0, e);
    if (l.find('\n') != std::string_view::npos || l.find('\r') != std::string_view::npos)
      return fail("a bare CR or LF in the head");
    out.push_back(l);
    if (e == std::string_view::npos) break;
    head.remove_prefix(e + 2);
  }
  return out;
}

Result<Fields> parse_fields(const std::vector<std::string_view>& ls) {
  Fields f;
  if (ls.size() - 1 > kMaxFields) return fail("more than " + std::to_string(kMaxFields) + " header fields");
  for (size_t i = 1; i < ls.size(); ++i) {
    std::string_view l = ls[i];
    if (l.empty() || l.front() == ' ' || l.front() == '\t') return fail("a folded or empty header line");
    size_t colon = l.find(':');
    if (colon == std::string_view::npos) return fail("a header line without a colon");
    std::string_view name = l.substr(0, colon), value = trim(l.substr(colon + 1));
    if (!is_token(name)) return fail("a header name that is not a token");
    if (!is_field_value(value)) return fail("a control character in header " + lower_case(name));
    f.list.push_back({lower_case(name), std::string(value)});
  }
  return f;
}

Result<uint64_t> content_length(std::string_view v) {
  uint64_t n = 0;
  if (v.empty() || v.size() > 15 || !std::ranges::all_of(v, [](char c) { return c >= '0' && c <= '9'; }))
    return fail("a Content-Length that is not one decimal number");
  std::from_chars(v.data(), v.data() + v.size(), n);
  return n;
}

// One Content-Length or `Transfer-Encoding: chunked`, never both, nothing else.
Result<Framing> body_framing(const Fields& f, Framing otherwise) {
  auto te = TRY(f.one("transfer-encoding"));
  auto cl = TRY(f.one("content-length"));
  if (te && cl) return fail("both Transfer-Encoding and Content-Length (a smuggling attempt)");
  if (te) {
    if (!iequals(*te, "chunked")) return fail("Transfer-Encoding \"" + *te + "\" (only chunked is read)");
    return Framing{Framing::chunked, 0};
  }
  if (cl) return Framing{Framing::sized, TRY(content_length(*cl))};
  return otherwise;
}

}  // namespace

std::string lower_case(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return o;
}

bool is_token(std::string_view s) {
  static constexpr std::string_view kSpecials = "!#$%&'*+-.^_`|~";
  return !s.empty() && std::ranges::all_of(s, [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           kSpecials.find(c) != std::string_view::npos;
  });
}

Result<std::optional<std::string>> Fields::one(std::string_view name) const {
  std::optional<std::string> v;
  for (const auto& f : list)
    if (f.name == name) {
      if (v) return fail("header " + std::string(name) + " repeated");
      v = f.value;
    }
  return v;
}

bool Fields::has(std::string_view name) const {
  return std::ranges::any_of(list, [&](const Field& f) { return f.name == name; });
}

void Fields::remove(std::string_view name) {
  std::erase_if(list, [&](const Field& f) { return f.name == name; });
}

void Fields::set(std::string_view name, std::string value) {
  remove(name);
  list.push_back({std::string(name), std::move(value)});
}

Result<size_t> head_length(std::string_view buf) {
  size_t e = buf.substr(0, kMaxHead + 4).find("\r\n\r\n");
  if (e != std::string_view::npos) return e + 4;
  if (buf.size() >= kMaxHead) return fail("a head longer than " + std::to_string(kMaxHead) + " bytes");
  return 0;
}

Result<RequestHead> parse_request_head(std::string_view head) {
  auto ls = TRY(lines(head));
  std::string_view start = ls[0];
  size_t a = start.find(' '), b = start.rfind(' ');
  if (a == std::string_view::npos || a == b) return fail("a request line that is not METHOD TARGET VERSION");
  RequestHead h;
  h.method = std::string(start.substr(0, a));
  h.target = std::string(start.substr(a + 1, b - a - 1));
  if (!is_token(h.method)) return fail("a method that is not a token");
  if (h.target.empty() || std::ranges::any_of(h.target, [](char c) { return c <= ' ' || c >= 0x7f; }))
    return fail("a request target with white space or a control byte");
  h.minor = TRY(version(start.substr(b + 1)));
  h.fields = TRY(parse_fields(ls));
  return h;
}

Result<ResponseHead> parse_response_head(std::string_view head) {
  auto ls = TRY(lines(head));
  std::string_view start = ls[0];
  // "HTTP/1.1 200 OK": the reason may be empty, with or without the space before it.
  if (start.size() < 12 || start[8] != ' ' || (start.size() > 12 && start[12] != ' '))
    return fail("a status line that is not VERSION STATUS REASON");
  ResponseHead h;
  h.minor = TRY(version(start.substr(0, 8)));
  std::string_view code = start.substr(9, 3);
  if (!std::ranges::all_of(code, [](char c) { return c >= '0' && c <= '9'; }) || code[0] == '0')
    return fail("a status code that is not three digits");
  h.status = (code[0] - '0') * 100 + (code[1] - '0') * 10 + (code[2] - '0');
  h.reason = start.size() > 13 ? std::string(start.substr(13)) : "";
  if (!is_field_value(h.reason)) return fail("a control character in the reason phrase");
  h.fields = TRY(parse_fields(ls));
  return h;
}

std::string write_head(const RequestHead& h) {
  std::string s = h.method + " " + h.target + " HTTP/1." + std::to_string(h.minor) + "\r\n";
  for (const auto& f : h.fields.list) s += f.name + ": " + f.value + "\r\n";
  return s + "\r\n";
}

std::string write_head(const ResponseHead& h) {
  std::string s = "HTTP/1." + std::to_string(h.minor) + " " + std::to_string(h.status) + " " + h.reason + "\r\n";
  for (const auto& f : h.fields.list) s += f.name + ": " + f.value + "\r\n";
  return s + "\r\n";
}

Result<Framing> request_framing(const Fields& f) { return body_framing(f, Framing{Framing::none, 0}); }

Result<Framing> response_framing(const ResponseHead& h, bool head_request) {
  if (head_request || h.status / 100 == 1 || h.status == 204 || h.status == 304) return Framing{Framing::none, 0};
  return body_framing(h.fields, Framing{Framing::until_close, 0});
}

BodyDecoder::BodyDecoder(Framing f) : f_(f) {
  switch (f.kind) {
    case Framing::none: state_ = State::done; break;
    case Framing::sized:
      left_ = f.length;
      state_ = left_ ? State::data : State::done;
      break;
    case Framing::chunked: state_ = State::size_line; break;
    case Framing::until_close: state_ = State::data; break;
  }
}

Result<size_t> BodyDecoder::feed(std::string_view in, std::string& out, bool eof) {
  size_t used = 0;
  auto take_line = [&](size_t max) -> Result<bool> {  // true once line_ holds a whole line
    while (used < in.size()) {
      char c = in[used++];
      line_ += c;
      if (line_.ends_with(kCrlf)) {
        line_.resize(line_.size() - 2);
        return true;
      }
      if (line_.size() > max + 2) return fail("a chunk line longer than " + std::to_string(max) + " bytes");
    }
    return false;
  };
  while (state_ != State::done && used < in.size()) {
    switch (state_) {
      case State::data:
      case State::chunk_data: {
        size_t n = in.size() - used;
        if (f_.kind != Framing::until_close) n = size_t(std::min<uint64_t>(n, left_));
        out.append(in.substr(used, n));
        used += n;
        if (f_.kind == Framing::until_close) break;
        left_ -= n;
        if (left_ == 0) state_ = state_ == State::data ? State::done : State::chunk_crlf;
        break;
      }
      case State::size_line: {
        if (!TRY(take_line(kMaxLine))) break;
        std::string_view l = line_;
        l = l.substr(0, l.find(';'));  // chunk extensions: ignored (the door writes its own chunks)
        uint64_t n = 0;
        auto [p, ec] = std::from_chars(l.data(), l.data() + l.size(), n, 16);
        if (l.empty() || l.size() > 15 || ec != std::errc() || p != l.data() + l.size())
          return fail("a chunk size that is not a hexadecimal number");
        line_.clear();
        left_ = n;
        state_ = n ? State::chunk_data : State::trailer;
        break;
      }
      case State::chunk_crlf:
        if (!TRY(take_line(0))) break;
        if (!line_.empty()) return fail("chunk data longer than its size");
        state_ = State::size_line;
        break;
      case State::trailer: {  // trailer fields are read and dropped: nothing of them is forwarded
        if (!TRY(take_line(kMaxTrailers))) break;
        trailer_bytes_ += line_.size() + 2;
        if (trailer_bytes_ > kMaxTrailers) return fail("trailers longer than " + std::to_string(kMaxTrailers) + " bytes");
        bool end = line_.empty();
        line_.clear();
        if (end) state_ = State::done;
        break;
      }
      case State::done: break;
    }
  }
  if (eof && state_ != State::done) {
    if (f_.kind != Framing::until_close) return fail("the peer closed before the end of the body");
    state_ = State::done;
  }
  return used;
}

std::string chunk(std::string_view payload) {
  if (payload.empty()) return "";
  char size[20];
  auto [p, ec] = std::to_chars(size, size + sizeof size, payload.size(), 16);
  (void)ec;
  std::string s(size, p);
  s += "\r\n";
  s += payload;
  s += "\r\n";
  return s;
}

}  // namespace sh::egress
