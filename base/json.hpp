// JSON through yajl: a parsed tree with path-aware typed accessors (every error names
// the JSON path, "config.json: linux.resources.memory.limit: expected an integer"),
// and a small generator wrapper.
#pragma once
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sh::json {

// A view of one node of a parsed document, with its path for errors.
class Value {
 public:
  Value(yajl_val v, std::string path) : v_(v), path_(std::move(path)) {}
  // An array item (each_item): "<array path>[index]" is built only when asked for, which is
  // for an error message, so a long list costs no string per item (callgrind: policy parse).
  Value(yajl_val v, std::shared_ptr<const std::string> array_path, size_t index)
      : v_(v), array_path_(std::move(array_path)), index_(index) {}

  const std::string& path() const {
    if (array_path_) {
      path_ = *array_path_ + "[" + std::to_string(index_) + "]";
      array_path_.reset();
    }
    return path_;
  }
  yajl_val raw() const { return v_; }

  bool is_null() const { return v_ == nullptr || YAJL_IS_NULL(v_); }
  bool is_object() const { return v_ && YAJL_IS_OBJECT(v_); }
  bool is_array() const { return v_ && YAJL_IS_ARRAY(v_); }
  bool is_string() const { return v_ && YAJL_IS_STRING(v_); }
  bool is_number() const { return v_ && YAJL_IS_NUMBER(v_); }
  bool is_bool() const { return v_ && (YAJL_IS_TRUE(v_) || YAJL_IS_FALSE(v_)); }

  Result<std::string> as_string() const;
  Result<bool> as_bool() const;
  Result<int64_t> as_int() const;    // any integer that fits int64
  Result<uint64_t> as_uint() const;  // non-negative integer (up to 2^64-1)
  Result<double> as_double() const;
  // Integer bounded to [lo, hi] (error says the range).
  Result<int64_t> as_int_in(int64_t lo, int64_t hi) const;

  // Object access. get() returns nullopt when the key is absent (or null if null_is_absent).
  std::optional<Value> get(std::string_view key) const;
  // Fails unless this is an object.
  Result<void> expect_object() const;
  Result<void> expect_array() const;
  // For strict documents (policies): every key must be in `allowed`.
  Result<void> only_keys(std::initializer_list<std::string_view> allowed) const;
  // Iterate members/items; the callback returns Result<void> to stop on error.
  Result<void> each_member(const std::function<Result<void>(std::string_view key, const Value&)>& f) const;
  Result<void> each_item(const std::function<Result<void>(size_t i, const Value&)>& f) const;
  size_t size() const;  // members or items; 0 for scalars

  // Typed helpers for optional fields: leave `out` untouched when the key is absent.
  Result<void> opt(std::string_view key, std::string& out) const;
  Result<void> opt(std::string_view key, bool& out) const;
  Result<void> opt(std::string_view key, std::optional<std::string>& out) const;
  Result<void> opt(std::string_view key, std::optional<bool>& out) const;
  Result<void> opt(std::string_view key, std::optional<int64_t>& out) const;
  Result<void> opt(std::string_view key, std::optional<uint64_t>& out) const;
  Result<void> opt(std::string_view key, std::vector<std::string>& out) const;
  // Required field: error "<path>.<key>: required" when absent.
  Result<Value> need(std::string_view key) const;

  // Error helpers that name this node's path.
  std::unexpected<Error> error(std::string_view what) const;
  std::string child_path(std::string_view key) const;
  std::string item_path(size_t i) const;

 private:
  yajl_val v_;
  mutable std::string path_;
  mutable std::shared_ptr<const std::string> array_path_;  // set until path() builds path_
  size_t index_ = 0;
};

// The deepest nesting (arrays and objects) a document may have; OCI documents use about 8.
// Below YAJL_MAX_DEPTH (128), so whatever parses can be written back by Writer.
inline constexpr size_t kMaxDepth = 100;

// An owned parsed document.
class Document {
 public:
  // `origin` prefixes every error ("config.json").
  static Result<Document> parse(std::string_view text, std::string origin);
  Value root() const { return Value(tree_.get(), origin_ + ":"); }
  const std::string& origin() const { return origin_; }

 private:
  struct Free {
    void operator()(yajl_val v) const { yajl_tree_free(v); }
  };
  std::unique_ptr<std::remove_pointer_t<yajl_val>, Free> tree_;
  std::string origin_;
};

// Generator: builds compact (or pretty) JSON text.
class Writer {
 public:
  explicit Writer(bool pretty = false);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  Writer& begin_object();
  Writer& end_object();
  Writer& begin_array();
  Writer& end_array();
  Writer& key(std::string_view k);
  Writer& string(std::string_view s);
  Writer& integer(long long v);
  Writer& uinteger(unsigned long long v);
  Writer& number(double v);
  Writer& boolean(bool b);
  Writer& null();
  // Re-emit a parsed value as is (for pass-through of opaque sections).
  Writer& value(yajl_val v);
  // Re-emit a value kept as JSON text (Document::parse's reading, `origin` for its error); text
  // that does not parse fails the writer, never drops the value.
  Writer& json_text(std::string_view text, const std::string& origin);
  // Convenience: "k": "v" etc.
  Writer& kv(std::string_view k, std::string_view v) { return key(k).string(v); }
  Writer& kv(std::string_view k, const char* v) { return key(k).string(v); }
  Writer& kv(std::string_view k, long long v) { return key(k).integer(v); }
  Writer& kv(std::string_view k, int v) { return key(k).integer(v); }
  Writer& kv(std::string_view k, bool v) { return key(k).boolean(v); }
  Writer& kv(std::string_view k, const std::vector<std::string>& v);

  bool ok() const { return status_ == yajl_gen_status_ok; }
  // The document, or the first generator status that was not ok (every call is checked).
  Result<std::string> text() const;
  // text() for documents our own code builds from bounded input: a generator error there is a
  // bug, and aborts rather than return a truncated document.
  std::string str() const;

 private:
  template <class F>
  Writer& gen(F call);
  yajl_gen g_;
  yajl_gen_status status_ = yajl_gen_status_ok;
  std::optional<Error> error_;  // json_text's parse error (status_ is then in_error_state)
};

// Whether `text` is exactly one object: it opens with '{' and its brackets, counted outside strings,
// close only at its last byte, so nothing can follow the object (for splicing Writer output). The
// scan is Document::parse's: a '/' outside strings (a comment) makes it false.
bool is_one_object(std::string_view text);

// Quote a string as a JSON string literal.
std::string quote(std::string_view s);

}  // namespace sh::json
