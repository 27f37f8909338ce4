#include "base/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace sh::json {

namespace {
const char* type_name(yajl_val v) {
  if (!v || YAJL_IS_NULL(v)) return "null";
  if (YAJL_IS_OBJECT(v)) return "an object";
  if (YAJL_IS_ARRAY(v)) return "an array";
  if (YAJL_IS_STRING(v)) return "a string";
  if (YAJL_IS_NUMBER(v)) return "a number";
  return "a boolean";
}
}  // namespace

std::unexpected<Error> Value::error(std::string_view what) const {
  // `what` starts with ": " ("a.b: expected an integer").
  return fail(path() + std::string(what));
}

std::string Value::child_path(std::string_view key) const {
  // Root path is "origin:"; children are "origin: a.b.c".
  const std::string& p = path();
  if (!p.empty() && p.back() == ':') return p + " " + std::string(key);
  return p + "." + std::string(key);
}

std::string Value::item_path(size_t i) const { return path() + "[" + std::to_string(i) + "]"; }

Result<std::string> Value::as_string() const {
  if (!is_string()) return error(std::string(": expected a string, got ") + type_name(v_));
  return std::string(YAJL_GET_STRING(v_));
}

Result<bool> Value::as_bool() const {
  if (!is_bool()) return error(std::string(": expected a boolean, got ") + type_name(v_));
  return YAJL_IS_TRUE(v_);
}

Result<int64_t> Value::as_int() const {
  if (!is_number() || !YAJL_IS_INTEGER(v_)) {
    if (is_number()) return error(": expected an integer, got " + std::string(YAJL_GET_NUMBER(v_)));
    return error(std::string(": expected an integer, got ") + type_name(v_));
  }
  return int64_t(YAJL_GET_INTEGER(v_));
}

Result<uint64_t> Value::as_uint() const {
  if (!is_number()) return error(std::string(": expected an integer, got ") + type_name(v_));
  if (YAJL_IS_INTEGER(v_)) {
    long long i = YAJL_GET_INTEGER(v_);
    if (i < 0) return error(": expected a non-negative integer, got " + std::to_string(i));
    return uint64_t(i);
  }
  // yajl only keeps int64; larger integers arrive as text we parse ourselves.
  const char* s = YAJL_GET_NUMBER(v_);
  if (s && *s && std::strspn(s, "0123456789") == std::strlen(s)) {
    errno = 0;
    char* end = nullptr;
    unsigned long long u = std::strtoull(s, &end, 10);
    if (errno == 0 && end && *end == 0) return uint64_t(u);
  }
  return error(": expected a non-negative integer, got " + std::string(s ? s : "?"));
}

Result<double> Value::as_double() const {
  if (!is_number() || !YAJL_IS_DOUBLE(v_)) {
    if (is_number() && YAJL_IS_INTEGER(v_)) return double(YAJL_GET_INTEGER(v_));
    return error(std::string(": expected a number, got ") + type_name(v_));
  }
  return YAJL_GET_DOUBLE(v_);
}

Result<int64_t> Value::as_int_in(int64_t lo, int64_t hi) const {
  int64_t v = TRY(as_int());
  if (v < lo || v > hi)
    return error(": " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

std::optional<Value> Value::get(std::string_view key) const {
  if (!is_object()) return std::nullopt;
  size_t n = v_->u.object.len;
  for (size_t i = 0; i < n; ++i) {
    const char* k = v_->u.object.keys[i];
    if (key.size() == std::strlen(k) && std::memcmp(k, key.data(), key.size()) == 0)
      return Value(v_->u.object.values[i], child_path(key));
  }
  return std::nullopt;
}

Result<void> Value::expect_object() const {
  if (!is_object()) return error(std::string(": expected an object, got ") + type_name(v_));
  return {};
}

Result<void> Value::expect_array() const {
  if (!is_array()) return error(std::string(": expected an array, got ") + type_name(v_));
  return {};
}

Result<void> Value::only_keys(std::initializer_list<std::string_view> allowed) const {
  TRYV(expect_object());
  for (size_t i = 0; i < v_->u.object.len; ++i) {
    std::string_view k = v_->u.object.keys[i];
    bool ok = false;
    for (auto a : allowed) ok = ok || a == k;
    if (!ok) return fail(child_path(k) + ": unknown key");
  }
  return {};
}

Result<void> Value::each_member(const std::function<Result<void>(std::string_view, const Value&)>& f) const {
  TRYV(expect_object());
  for (size_t i = 0; i < v_->u.object.len; ++i) {
    const char* k = v_->u.object.keys[i];
    TRYV(f(k, Value(v_->u.object.values[i], child_path(k))));
  }
  return {};
}

Result<void> Value::each_item(const std::function<Result<void>(size_t, const Value&)>& f) const {
  TRYV(expect_array());
  auto base = std::make_shared<const std::string>(path());
  for (size_t i = 0; i < v_->u.array.len; ++i) TRYV(f(i, Value(v_->u.array.values[i], base, i)));
  return {};
}

size_t Value::size() const {
  if (is_object()) return v_->u.object.len;
  if (is_array()) return v_->u.array.len;
  return 0;
}

Result<void> Value::opt(std::string_view key, std::string& out) const {
  auto v = get(key);
  if (v && !v->is_null()) out = TRY(v->as_string());
  return {};
}
Result<void> Value::opt(std::string_view key, bool& out) const {
  auto v = get(key);
  if (v && !v->is_null()) out = TRY(v->as_bool());
  return {};
}
Result<void> Value::opt(std::string_view key, std::optional<std::string>& out) const {
  auto v = get(key);
  if (v && !v->is_null()) out = TRY(v->as_string());
  return {};
}
Result<void> Value::opt(std::string_view key, std::optional<bool>& out) const {
  auto v = get(key);
  if (v && !v->is_null()) out = TRY(v->as_bool());
  return {};
}
Result<void> Value::opt(std::string_view key, std::optional<int64_t>& out) const {
  auto v = get(key);
  if (v && !v->is_null()) out = TRY(v->as_int());
  return {};
}
Result<void> Value::opt(std::string_view key, std::optional<uint64_t>& out) const {
  auto v = get(key);
  if (v && !v->is_null()) out = TRY(v->as_uint());
  return {};
}
Result<void> Value::opt(std::string_view key, std::vector<std::string>& out) const {
  auto v = get(key);
  if (!v || v->is_null()) return {};
  out.clear();
  return v->each_item([&](size_t, const Value& it) -> Result<void> {
    out.push_back(TRY(it.as_string()));
    return {};
  });
}

Result<Value> Value::need(std::string_view key) const {
  TRYV(expect_object());
  auto v = get(key);
  if (!v || v->is_null()) return fail(child_path(key) + ": required");
  return *v;
}

namespace {
// A key given twice is refused: Go's decoder (Docker, containerd) keeps the last, a tree
// lookup the first; a document that reads differently to two programs is an attack surface.
// The path below v of the first key given twice ("" if none), built on the way back up: a clean
// document, the common case, allocates nothing (callgrind: a third of a policy's parse went into
// building path strings no error needed).
std::optional<std::string> first_duplicate(yajl_val v) {
  if (YAJL_IS_ARRAY(v)) {
    for (size_t i = 0; i < v->u.array.len; ++i)
      if (auto below = first_duplicate(v->u.array.values[i])) return "[" + std::to_string(i) + "]" + *below;
    return std::nullopt;
  }
  if (!YAJL_IS_OBJECT(v)) return std::nullopt;
  const size_t n = v->u.object.len;
  const char* const* keys = v->u.object.keys;
  const char* dup = nullptr;
  if (n <= 16) {  // a handful of keys: compare pairs, no allocation
    for (size_t i = 1; i < n && !dup; ++i)
      for (size_t j = 0; j < i && !dup; ++j)
        if (std::strcmp(keys[i], keys[j]) == 0) dup = keys[i];
  } else {
    std::vector<std::string_view> sorted(keys, keys + n);
    std::sort(sorted.begin(), sorted.end());
    if (auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end()) dup = d->data();
  }
  if (dup) return "." + std::string(dup);
  for (size_t i = 0; i < n; ++i)
    if (auto below = first_duplicate(v->u.object.values[i])) return "." + std::string(keys[i]) + *below;
  return std::nullopt;
}

Result<void> check_duplicates(yajl_val v, const std::string& path) {
  auto below = first_duplicate(v);
  if (!below) return {};
  // "<origin>: key.sub" as Value::child_path writes it: a space after the origin's colon.
  if (path.ends_with(':') && below->starts_with('.')) (*below)[0] = ' ';
  return fail(path + *below + ": duplicate key");
}
}  // namespace

namespace {
// One reading of the text, shared by the depth limit, is_one_object and the parser.
//
// Comments are refused here, not switched off in yajl: yajl_tree_parse hard-codes
// yajl_allow_comments = 1 (yajl_tree.c) and takes no configuration, and a second tree builder
// over yajl_parse's callbacks would be a second parser to keep right. Outside a string, '/' can
// only open a comment (RFC 8259 has no other use for it), so refusing every '/' outside strings
// is exactly "comments off": yajl never sees one, Go's decoder (Docker, containerd) reads the
// same document we do, and this scan's idea of what is a string and what is structure is yajl's
// (a string opens at '"', '\\' takes the next byte, an unescaped '"' closes it). Before this,
// brackets inside a comment were counted by the scan and not by yajl (and the reverse), so
// nesting past the limit reached the recursive walks and yajl's generator.
//
// Calls f(i, c) for each bracket, and for each '/', outside strings while f returns true; false
// if f stopped or the text ends inside a string.
template <class F>
bool each_structural(std::string_view text, F f) {
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if ((c == '[' || c == '{' || c == ']' || c == '}' || c == '/') && !f(i, c)) {
      return false;
    }
  }
  return !in_string;
}

// Nesting is bounded before yajl sees the text: yajl_tree_free and check_duplicates recurse
// once per level (100000 levels overflowed the stack), and yajl's generator cannot re-emit
// more than YAJL_MAX_DEPTH - 1 levels. A flat scan of brackets outside strings is enough:
// malformed text that passes it is yajl's to refuse. A comment is refused (see above).
Result<void> check_structure(std::string_view text, const std::string& origin) {
  size_t depth = 0, at = 0;
  bool comment = false;
  each_structural(text, [&](size_t i, char c) {
    at = i;
    if (c == '/') return !(comment = true);
    if (c == ']' || c == '}') {
      if (depth > 0) --depth;
      return true;
    }
    return ++depth <= kMaxDepth;
  });
  if (comment)
    return fail(origin + ": invalid JSON: a comment at byte " + std::to_string(at) +
                " (comments are not JSON, and other readers of this document would not see what we see)");
  if (depth > kMaxDepth)
    return fail(origin + ": invalid JSON: nested deeper than " + std::to_string(kMaxDepth) + " levels (at byte " +
                std::to_string(at) + ")");
  return {};
}
}  // namespace

bool is_one_object(std::string_view text) {
  if (text.empty() || text.front() != '{') return false;
  size_t depth = 0;
  return each_structural(text, [&](size_t i, char c) {
           if (c == '/') return false;
           if (c == '[' || c == '{') return ++depth, true;
           return depth > 0 && (--depth > 0 || i + 1 == text.size());
         }) &&
         depth == 0;
}

Result<Document> Document::parse(std::string_view text, std::string origin) {
  // yajl wants a NUL-terminated buffer; refuse embedded NULs rather than truncate.
  if (text.find('\0') != std::string_view::npos) return fail(origin + ": invalid JSON: contains a NUL byte");
  TRYV(check_structure(text, origin));
  std::string buf(text);
  char err[512] = {0};
  yajl_val v = yajl_tree_parse(buf.c_str(), err, sizeof err);
  if (!v) {
    std::string e = err;
    while (!e.empty() && (e.back() == '\n' || e.back() == ' ')) e.pop_back();
    for (auto& c : e)
      if (c == '\n') c = ' ';
    return fail(origin + ": invalid JSON: " + (e.empty() ? "unknown error" : e));
  }
  Document d;
  d.tree_.reset(v);
  d.origin_ = std::move(origin);
  TRYV(check_duplicates(v, d.origin_ + ":"));
  return d;
}

Writer::Writer(bool pretty) : g_(yajl_gen_alloc(nullptr)) {
  if (!g_) {
    status_ = yajl_gen_in_error_state;
    return;
  }
  if (pretty) {
    yajl_gen_config(g_, yajl_gen_beautify, 1);
    yajl_gen_config(g_, yajl_gen_indent_string, "\t");
  }
  yajl_gen_config(g_, yajl_gen_validate_utf8, 0);
}
Writer::~Writer() {
  if (g_) yajl_gen_free(g_);
}

// Every yajl_gen call goes through here. The first status other than ok is kept and the
// generator is not called again: yajl increments its depth before checking it against
// YAJL_MAX_DEPTH, so a caller that went on after yajl_max_depth_exceeded wrote past the end of
// yajl's 128-entry state array. text() reports the kept status; str() refuses to hand out a
// document that stopped half way.
template <class F>
Writer& Writer::gen(F call) {
  if (status_ == yajl_gen_status_ok) status_ = call();
  return *this;
}

Writer& Writer::begin_object() { return gen([&] { return yajl_gen_map_open(g_); }); }
Writer& Writer::end_object() { return gen([&] { return yajl_gen_map_close(g_); }); }
Writer& Writer::begin_array() { return gen([&] { return yajl_gen_array_open(g_); }); }
Writer& Writer::end_array() { return gen([&] { return yajl_gen_array_close(g_); }); }
Writer& Writer::key(std::string_view k) { return string(k); }
Writer& Writer::string(std::string_view s) {
  return gen([&] { return yajl_gen_string(g_, reinterpret_cast<const unsigned char*>(s.data()), s.size()); });
}
Writer& Writer::integer(long long v) { return gen([&] { return yajl_gen_integer(g_, v); }); }
Writer& Writer::uinteger(unsigned long long v) {
  if (v <= (unsigned long long)std::numeric_limits<long long>::max()) return integer((long long)v);
  std::string s = std::to_string(v);
  return gen([&] { return yajl_gen_number(g_, s.c_str(), s.size()); });
}
Writer& Writer::number(double v) { return gen([&] { return yajl_gen_double(g_, v); }); }
Writer& Writer::boolean(bool b) { return gen([&] { return yajl_gen_bool(g_, b); }); }
Writer& Writer::null() { return gen([&] { return yajl_gen_null(g_); }); }

Writer& Writer::value(yajl_val v) {
  if (!v || YAJL_IS_NULL(v)) return null();
  if (YAJL_IS_STRING(v)) return string(YAJL_GET_STRING(v));
  if (YAJL_IS_NUMBER(v)) {
    const char* s = YAJL_GET_NUMBER(v);
    return gen([&] { return yajl_gen_number(g_, s, std::strlen(s)); });
  }
  if (YAJL_IS_TRUE(v)) return boolean(true);
  if (YAJL_IS_FALSE(v)) return boolean(false);
  if (YAJL_IS_ARRAY(v)) {
    begin_array();
    for (size_t i = 0; i < v->u.array.len && ok(); ++i) value(v->u.array.values[i]);
    return end_array();
  }
  begin_object();
  for (size_t i = 0; i < v->u.object.len && ok(); ++i) {
    key(v->u.object.keys[i]);
    value(v->u.object.values[i]);
  }
  return end_object();
}

Writer& Writer::json_text(std::string_view text, const std::string& origin) {
  if (!ok()) return *this;
  auto doc = Document::parse(text, origin);
  if (!doc) {
    error_ = std::move(doc.error());
    status_ = yajl_gen_in_error_state;
    return *this;
  }
  return value(doc->root().raw());
}

Writer& Writer::kv(std::string_view k, const std::vector<std::string>& v) {
  key(k).begin_array();
  for (auto& s : v) string(s);
  return end_array();
}

namespace {
const char* gen_status_name(yajl_gen_status s) {
  switch (s) {
    case yajl_gen_status_ok: return "ok";
    case yajl_gen_keys_must_be_strings: return "a key that is not a string";
    case yajl_max_depth_exceeded: return "nested deeper than the generator's limit";
    case yajl_gen_in_error_state: return "generator in error state";
    case yajl_gen_generation_complete: return "a value after the complete document";
    case yajl_gen_invalid_number: return "a number that is not finite";
    case yajl_gen_no_buf: return "no buffer";
    case yajl_gen_invalid_string: return "a string that is not UTF-8";
  }
  return "unknown generator status";
}
}  // namespace

Result<std::string> Writer::text() const {
  if (error_) return fail(*error_);
  if (status_ != yajl_gen_status_ok)
    return fail(std::string("JSON generation failed: ") + gen_status_name(status_));
  const unsigned char* buf = nullptr;
  size_t len = 0;
  if (auto s = yajl_gen_get_buf(g_, &buf, &len); s != yajl_gen_status_ok)
    return fail(std::string("JSON generation failed: ") + gen_status_name(s));
  return std::string(reinterpret_cast<const char*>(buf), len);
}

std::string Writer::str() const {
  auto t = text();
  if (!t) {
    // What we generate is built by our own code from bounded input (Document::parse caps
    // nesting at kMaxDepth, below yajl's 128), so this is a bug: stop rather than hand out a
    // document that ends half way. Input-driven output goes through text().
    std::fprintf(stderr, "sharness: internal error: %s\n", t.error().what().c_str());
    std::abort();
  }
  return std::move(*t);
}

std::string quote(std::string_view s) {
  Writer w;
  w.string(s);
  return w.str();
}

}  // namespace sh::json
