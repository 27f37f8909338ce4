#include "spec-mapping/canonical.hpp"

// OpenSSL's one-shot SHA256 context API: deprecated in 3.0 but kept, and the only path that does not
// initialise the provider and config machinery (5 M instructions, 4-5 ms, for a 3 KiB policy:
// bench/results/profile.md #2). The digest is the same code EVP's default provider runs.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace sh::policy {
namespace {

Result<void> emit(json::Writer& w, yajl_val v, const std::string& path) {
  if (!v || !YAJL_IS_OBJECT(v)) {
    if (v && YAJL_IS_ARRAY(v)) {
      w.begin_array();
      for (size_t i = 0; i < v->u.array.len; ++i)
        TRYV(emit(w, v->u.array.values[i], path + "[" + std::to_string(i) + "]"));
      w.end_array();
      return {};
    }
    w.value(v);  // scalars: numbers keep their source text
    return {};
  }
  std::vector<size_t> order(v->u.object.len);
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](size_t i) { return std::string_view(v->u.object.keys[i]); };
  std::ranges::sort(order, [&](size_t a, size_t b) { return key(a) < key(b); });
  w.begin_object();
  for (size_t n = 0; n < order.size(); ++n) {
    std::string_view k = key(order[n]);
    std::string child = path.ends_with(':') ? path + " " + std::string(k) : path + "." + std::string(k);
    if (n > 0 && key(order[n - 1]) == k) return fail(child + ": duplicate key");
    w.key(k);
    TRYV(emit(w, v->u.object.values[order[n]], child));
  }
  w.end_object();
  return {};
}

}  // namespace

Result<std::string> canonical_json(const json::Value& v) {
  json::Writer w(false);
  TRYV(emit(w, v.raw(), v.path()));
  return w.str();
}

Result<std::string> canonicalize(std::string_view text, const std::string& origin) {
  auto doc = TRY(json::Document::parse(text, origin));
  return canonical_json(doc.root());
}

Result<std::string> sha256_hex(std::string_view data) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  const unsigned len = SHA256_DIGEST_LENGTH;
  SHA256_CTX ctx;
  if (SHA256_Init(&ctx) != 1 || SHA256_Update(&ctx, data.data(), data.size()) != 1 || SHA256_Final(md, &ctx) != 1)
    return fail("SHA-256 failed");
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(hex[md[i] >> 4]);
    out.push_back(hex[md[i] & 15]);
  }
  return out;
}

Result<std::string> policy_hash(std::string_view text, const std::string& origin) {
  return sha256_hex(TRY(canonicalize(text, origin)));
}

}  // namespace sh::policy
