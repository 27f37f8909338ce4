// The door's HTTP/1.1 (RFC 9112), strict: what it cannot read in one way only, it refuses. A
// request or response head is a start line and header fields, CRLF-terminated, no obs-fold, no
// white space before a colon, field names tokens; bodies are framed by one Content-Length or by
// `Transfer-Encoding: chunked` alone (both at once is a smuggling attempt, refused).
//
// Written here rather than taken from a library: Debian's http-parser is archived upstream and
// lenient by design (bare LF, obs-fold); the door forwards only the subset it parses this way.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh::egress {

inline constexpr size_t kMaxHead = 32 * 1024;  // request or response line plus fields
inline constexpr size_t kMaxFields = 100;

struct Field {
  std::string name;   // lower case
  std::string value;  // leading and trailing white space removed
};

struct Fields {
  std::vector<Field> list;
  // The one value of `name` (lower case); nullopt when absent; an error names a repeated field.
  Result<std::optional<std::string>> one(std::string_view name) const;
  bool has(std::string_view name) const;
  void remove(std::string_view name);
  void set(std::string_view name, std::string value);  // replaces every earlier one
};

struct RequestHead {
  std::string method, target;
  int minor = 1;  // HTTP/1.<minor>, 0 or 1
  Fields fields;
};

struct ResponseHead {
  int status = 0;
  int minor = 1;
  std::string reason;
  Fields fields;
};

// The length of the head at the start of `buf` (through the blank line), 0 while it is not
// complete; an error once it is longer than kMaxHead.
Result<size_t> head_length(std::string_view buf);
Result<RequestHead> parse_request_head(std::string_view head);
Result<ResponseHead> parse_response_head(std::string_view head);
std::string write_head(const RequestHead& h);
std::string write_head(const ResponseHead& h);

// How a body is delimited.
struct Framing {
  enum Kind { none, sized, chunked, until_close } kind = none;
  uint64_t length = 0;
};
Result<Framing> request_framing(const Fields& f);
// `head_request`: the request was HEAD (its response has no body whatever it says).
Result<Framing> response_framing(const ResponseHead& h, bool head_request);

// A body decoder fed the bytes that follow a head: it takes what belongs to the body and
// appends the payload (chunked framing and trailers removed) to `out`.
class BodyDecoder {
 public:
  explicit BodyDecoder(Framing f);
  // How many bytes of `in` it took (the rest belongs to what follows); `eof` says the peer
  // closed (the end of an until_close body, an error for any other unfinished body).
  Result<size_t> feed(std::string_view in, std::string& out, bool eof = false);
  bool done() const { return state_ == State::done; }

 private:
  enum class State { data, size_line, chunk_data, chunk_crlf, trailer, done };
  Framing f_;
  State state_;
  uint64_t left_ = 0;   // bytes of body or chunk still to come
  std::string line_;    // a chunk-size or trailer line being read
  size_t trailer_bytes_ = 0;
};

// "5\r\nhello\r\n" (empty payload: nothing); the last chunk is kLastChunk.
std::string chunk(std::string_view payload);
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

// tchar (RFC 9110 §5.6.2).
bool is_token(std::string_view s);
// ASCII letters in lower case (field names, host names, tokens), other bytes as they are.
std::string lower_case(std::string_view s);

}  // namespace sh::egress
