#include "egress/upstream_sessions.hpp"

#include <ctime>
#include <deque>
#include <map>
#include <mutex>

#include "base/openssl_ptr.hpp"

namespace sh::egress {
namespace {

using Session = ossl::Ptr<SSL_SESSION, SSL_SESSION_free>;

struct Cache {
  std::mutex mu;
  std::map<std::string, std::deque<Session>> by_key;  // newest last
};

void free_cache(void*, void* p, CRYPTO_EX_DATA*, int, long, void*) { delete static_cast<Cache*>(p); }
void free_key(void*, void* p, CRYPTO_EX_DATA*, int, long, void*) { delete static_cast<std::string*>(p); }

int ctx_index() {
  static const int i = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, free_cache);
  return i;
}
int ssl_index() {
  static const int i = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, free_key);
  return i;
}

bool fresh(const SSL_SESSION* s, time_t now) {
  long age = long(now - SSL_SESSION_get_time(s));
  return SSL_SESSION_is_resumable(s) && age >= 0 && age < std::min<long>(SSL_SESSION_get_timeout(s), kSessionSeconds);
}

// OpenSSL calls this for each session (TLS 1.3: each ticket) the connection receives; 1: the
// reference is ours.
int on_new_session(SSL* ssl, SSL_SESSION* sess) {
  auto* key = static_cast<const std::string*>(SSL_get_ex_data(ssl, ssl_index()));
  auto* cache = static_cast<Cache*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_index()));
  if (!key || !cache || SSL_SESSION_get_protocol_version(sess) != TLS1_3_VERSION) return 0;
  // Verified when made (upstream_tls checks again before it uses the connection); never keep
  // one that was not.
  if (SSL_get_verify_result(ssl) != X509_V_OK || !SSL_SESSION_get0_peer(sess)) return 0;
  std::lock_guard lock(cache->mu);
  auto it = cache->by_key.find(*key);
  if (it == cache->by_key.end()) {
    if (cache->by_key.size() >= kSessionHosts) cache->by_key.clear();
    it = cache->by_key.emplace(*key, std::deque<Session>{}).first;
  }
  it->second.emplace_back(sess);
  while (it->second.size() > kSessionsPerHost) it->second.pop_front();
  return 1;
}

}  // namespace

bool keep_upstream_sessions(SSL_CTX* ctx) {
  if (ctx_index() < 0 || ssl_index() < 0) return false;
  auto* cache = new Cache;
  if (!SSL_CTX_set_ex_data(ctx, ctx_index(), cache)) {
    delete cache;
    return false;
  }
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb(ctx, on_new_session);
  return true;
}

bool resume_upstream_session(SSL* ssl, const std::string& key) {
  auto* k = new std::string(key);
  if (!SSL_set_ex_data(ssl, ssl_index(), k)) {
    delete k;
    return false;
  }
  auto* cache = static_cast<Cache*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_index()));
  if (!cache) return true;
  Session s;
  {
    std::lock_guard lock(cache->mu);
    auto it = cache->by_key.find(key);
    time_t now = ::time(nullptr);
    while (it != cache->by_key.end() && !it->second.empty() && !fresh(it->second.back().get(), now)) it->second.pop_back();
    if (it != cache->by_key.end() && !it->second.empty() && SSL_SESSION_up_ref(it->second.back().get()))
      s.reset(it->second.back().get());  // the newest, kept for the next connection too
  }
  return !s || SSL_set_session(ssl, s.get()) == 1;
}

}  // namespace sh::egress
