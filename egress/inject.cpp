#include "egress/inject.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>

#include "egress/scrub.hpp"

namespace sh::egress {
namespace {

std::string percent_encoded(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string o;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' || c == '.' || c == '_' || c == '~')
      o += c;
    else
      o += {'%', kHex[u >> 4], kHex[u & 15]};
  }
  return o;
}

// The placeholders found in `text`.
std::vector<size_t> placeholders_in(const std::vector<std::string>& ph, std::string_view text) {
  Scanner s(ph, false);
  std::string sink;
  s.feed(text, sink);
  s.finish(sink);
  return s.found();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

std::string base64(std::string_view s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(s.data()), int(s.size()));
  out.resize(size_t(n));
  return out;
}

Result<Credentials> Credentials::fetch(const policy::EgressPolicy& p, CredentialSource* source) {
  Credentials c;
  for (const auto& r : p.rules) {
    if (!r.credential || std::ranges::find(c.vaults_, r.credential->vault) != c.vaults_.end()) continue;
    if (!source) return fail("credential " + r.credential->vault + ": no credential source");
    std::string v = TRY(source->fetch(r.credential->vault, r.host));
    TRYV(check_value(r.credential->vault, v));
    c.vaults_.push_back(r.credential->vault);
    c.values_.push_back(std::move(v));
    c.placeholders_.push_back("sharness:" + r.credential->vault);
  }
  return c;
}

Credentials Credentials::of(std::vector<std::pair<std::string, std::string>> values) {
  Credentials c;
  for (auto& [k, v] : values) {
    c.vaults_.push_back(k);
    c.values_.push_back(v);
    c.placeholders_.push_back("sharness:" + k);
  }
  return c;
}

Credentials::~Credentials() {
  for (auto& v : values_) OPENSSL_cleanse(v.data(), v.size());
}

const std::string* Credentials::value(const std::string& vault) const {
  auto it = std::ranges::find(vaults_, vault);
  return it == vaults_.end() ? nullptr : &values_[size_t(it - vaults_.begin())];
}

std::vector<std::string> Credentials::scrub_needles() const {
  std::vector<std::string> n;
  for (const auto& v : values_) {
    n.push_back(v);
    n.push_back(base64(v));
    if (std::string p = percent_encoded(v); p != v) n.push_back(p);
  }
  return n;
}

std::string Credentials::foreign(const std::vector<size_t>& found, const policy::EgressRule& rule) const {
  for (size_t i : found)
    if (!rule.credential || rule.credential->vault != vaults_[i]) return vaults_[i];
  return "";
}

std::expected<void, Denial> Credentials::apply(RequestHead& h, const policy::EgressRule& rule) const {
  std::string head = write_head(h);
  if (std::string v = foreign(placeholders_in(placeholders_, head), rule); !v.empty())
    return std::unexpected(Denial{"placeholder", "the placeholder sharness:" + v + " is sent where no rule of vault " + v +
                                                     " allows it"});
  if (!rule.credential) return {};
  const auto& c = *rule.credential;
  const std::string* s = value(c.vault);
  if (!s) return std::unexpected(Denial{"credential", "no value for vault " + c.vault});
  for (auto& f : h.fields.list) f.value = replace_all(f.value, "sharness:" + c.vault, *s);
  switch (c.inject) {
    case policy::Inject::bearer: h.fields.set("authorization", "Bearer " + *s); break;
    case policy::Inject::basic: h.fields.set("authorization", "Basic " + base64(*s)); break;
    case policy::Inject::header: h.fields.set(c.header, *s); break;
  }
  return {};
}

}  // namespace sh::egress
