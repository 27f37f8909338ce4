#include "spec-mapping/canonical.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "base/sha256.hpp"

namespace sh::policy {
namespace {

// Keys sorted at every level; a Document refused duplicate keys when it was parsed.
void emit(json::Writer& w, yajl_val v) {
  if (v && YAJL_IS_ARRAY(v)) {
    w.begin_array();
    for (size_t i = 0; i < v->u.array.len; ++i) emit(w, v->u.array.values[i]);
    w.end_array();
    return;
  }
  if (!v || !YAJL_IS_OBJECT(v)) {
    w.value(v);  // scalars: numbers keep their source text
    return;
  }
  std::vector<size_t> order(v->u.object.len);
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](size_t i) { return std::string_view(v->u.object.keys[i]); };
  std::ranges::sort(order, [&](size_t a, size_t b) { return key(a) < key(b); });
  w.begin_object();
  for (size_t i : order) {
    w.key(key(i));
    emit(w, v->u.object.values[i]);
  }
  w.end_object();
}

}  // namespace

Result<std::string> canonical_json(const json::Value& v) {
  json::Writer w(false);
  emit(w, v.raw());
  return w.str();
}

Result<std::string> canonicalize(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  return canonical_json(doc.root());
}

Result<std::string> sha256_hex(std::string_view data) { return sh::sha256_hex(data); }

Result<std::string> policy_hash(std::string_view text, const std::string& origin) {
  return sha256_hex(TRY(canonicalize(text, origin)));
}

}  // namespace sh::policy
