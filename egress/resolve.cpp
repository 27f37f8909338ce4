#include "egress/resolve.hpp"

#include <arpa/nameser.h>

#include <cstring>

#include "base/file.hpp"
#include "base/text.hpp"
#include "egress/http.hpp"

namespace sh::egress {

Result<std::map<std::string, std::vector<Ip>>> parse_hosts(std::string_view text) {
  std::map<std::string, std::vector<Ip>> out;
  size_t n = 0;
  while (!text.empty()) {
    size_t e = text.find('\n');
    std::string_view line = text.substr(0, e);
    text.remove_prefix(e == std::string_view::npos ? text.size() : e + 1);
    ++n;
    line = line.substr(0, line.find('#'));
    auto w = words(line);
    if (w.empty()) continue;
    auto ip = parse_ip(w[0]);
    if (!ip || w.size() < 2) return fail("line " + std::to_string(n) + ": not ADDRESS NAME...");
    for (size_t i = 1; i < w.size(); ++i) out[lower_case(w[i])].push_back(*ip);
  }
  return out;
}

Result<std::unique_ptr<Resolver>> Resolver::from_hosts_file(const std::string& path) {
  std::unique_ptr<Resolver> r(new Resolver);
  std::string text = TRY(read_file(path, 1 << 20));
  r->hosts_ = TRYC("hosts file " + path, parse_hosts(text));
  return r;
}

Result<std::unique_ptr<Resolver>> Resolver::from_dns() {
  std::unique_ptr<Resolver> r(new Resolver);
  r->use_dns_ = true;
  if (::res_ninit(&r->res_) != 0) return fail("res_ninit: cannot read the resolver configuration");
  return r;
}

Resolver::~Resolver() {
  if (use_dns_) ::res_nclose(&res_);
}

Result<std::vector<Ip>> Resolver::query(const std::string& name, int type) {
  unsigned char answer[4096];
  int len;
  {
    std::lock_guard lock(mu_);
    len = ::res_nquery(&res_, name.c_str(), ns_c_in, type, answer, sizeof answer);
  }
  std::vector<Ip> out;
  if (len < 0) return out;  // no such name or no record of this type: the other type may have one
  ns_msg msg;
  if (::ns_initparse(answer, len, &msg) != 0) return fail("a DNS answer for " + name + " that does not parse");
  for (int i = 0; i < ns_msg_count(msg, ns_s_an); ++i) {
    ns_rr rr;
    if (::ns_parserr(&msg, ns_s_an, i, &rr) != 0) return fail("a DNS record for " + name + " that does not parse");
    if (ns_rr_type(rr) != type) continue;  // the CNAMEs on the way
    Ip ip;
    size_t want = type == ns_t_a ? 4 : 16;
    if (ns_rr_rdlen(rr) != want) return fail("a DNS address record of the wrong length for " + name);
    ip.family = type == ns_t_a ? AF_INET : AF_INET6;
    std::memcpy(ip.bytes.data(), ns_rr_rdata(rr), want);
    out.push_back(ip);
  }
  return out;
}

Result<std::vector<Ip>> Resolver::resolve(const std::string& name) {
  std::vector<Ip> out;
  if (!use_dns_) {
    if (auto it = hosts_.find(name); it != hosts_.end()) out = it->second;
  } else {
    out = TRY(query(name, ns_t_a));
    auto v6 = TRY(query(name, ns_t_aaaa));
    out.insert(out.end(), v6.begin(), v6.end());
  }
  if (out.empty()) return fail(name + " has no address" + (use_dns_ ? "" : " in the hosts file"));
  return out;
}

}  // namespace sh::egress
