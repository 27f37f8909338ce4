// One client connection: a CONNECT (checked, then TLS terminated with a leaf for exactly that
// host) followed by requests inside the tunnel, or plain proxy requests in absolute form. Each
// request is checked in full before a byte of it goes upstream (docs/egress.md, "What the door
// checks", in this order): parse, host, path, Host field, method, address, placeholder,
// budgets; then forwarded over the connection's own upstream connection, and its answer
// scrubbed of every credential on the way back.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <map>

#include "egress/decide.hpp"
#include "egress/door.hpp"
#include "egress/http.hpp"
#include "egress/request_log.hpp"
#include "egress/scrub.hpp"
#include "egress/stream.hpp"
#include "egress/target.hpp"
#include "egress/upstream.hpp"
#include "spec-mapping/egress_host.hpp"

namespace sh::egress {
namespace {

const char* phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    default: return "Bad Gateway";
  }
}

// The answer to a refused request: the check in a header and in a one-line body, and the
// connection closed after it.
void refuse(Stream& s, int status, const Denial& d) {
  std::string body = "sharness-egress: refused (" + d.check + "): " + d.reason + "\n";
  std::string h = "HTTP/1.1 " + std::to_string(status) + " " + phrase(status) +
                  "\r\nContent-Type: text/plain\r\nX-Sharness-Egress-Check: " + d.check +
                  "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  (void)s.write(h + body);
}

// The tokens of a Connection field ("close", and the fields it makes hop-by-hop).
std::vector<std::string> connection_tokens(const Fields& f) {
  std::vector<std::string> out;
  for (const auto& x : f.list) {
    if (x.name != "connection") continue;
    std::string v = lower_case(x.value);
    for (size_t at = 0; at <= v.size();) {
      size_t e = std::min(v.find(',', at), v.size());
      std::string t = v.substr(at, e - at);
      t.erase(0, t.find_first_not_of(" \t"));
      t.erase(t.find_last_not_of(" \t") + 1);
      if (!t.empty()) out.push_back(t);
      at = e + 1;
    }
  }
  return out;
}

// Fields that speak of one hop, never forwarded.
void strip_hop_by_hop(Fields& f) {
  for (const auto& t : connection_tokens(f)) f.remove(t);
  for (const char* n : {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te",
                        "trailer", "upgrade", "expect"})
    f.remove(n);
}

bool wants_close(int minor, const Fields& f) {
  auto t = connection_tokens(f);
  return minor == 0 || std::ranges::find(t, "close") != t.end();
}

// Members in the order a reset must free them: the stream, the session, then the socket.
struct Upstream {
  std::unique_ptr<Stream> s;
  tls::Ssl ssl;
  Fd fd;
  Authority where;
};

// A finished upstream connection ends with close_notify: OpenSSL keeps the session it leaves
// resumable only after a clean end (egress/upstream_sessions.hpp). Cut connections (an error,
// a refusal mid-request) are just dropped, and their session with them.
void close_upstream(Upstream& u) {
  if (u.ssl) (void)SSL_shutdown(u.ssl.get());
  u = {};
}

struct Conn {
  Door& d;
  Fd fd;
  tls::Ssl ssl;
  std::unique_ptr<Stream> client;
  bool tunnel = false;
  Authority tunnel_to;
  std::vector<Ip> tunnel_ips;                       // checked at CONNECT
  std::map<std::string, std::vector<Ip>> resolved;  // plain requests: once per name per connection
  Upstream up;
};

// The addresses the door may connect to for `a`: resolved once, every one of them checked.
std::expected<std::vector<Ip>, Denial> addresses_for(Door& d, const Authority& a) {
  std::vector<Ip> ips;
  bool literal = policy::is_address(a.host);
  if (literal) {
    ips.push_back(*parse_ip(a.host));
  } else {
    auto r = d.resolver->resolve(a.host);
    if (!r) return std::unexpected(Denial{"address", r.error().what()});
    ips = std::move(*r);
  }
  for (const Ip& ip : ips)
    if (std::string why = d.addresses.refusal(ip, literal); !why.empty())
      return std::unexpected(Denial{"address", a.host == ip_text(ip) ? why : a.host + " resolves to " + why});
  return ips;
}

std::expected<void, Denial> open_upstream(Conn& c, const Authority& a, const std::vector<Ip>& ips) {
  if (c.up.s && c.up.where.host == a.host && c.up.where.port == a.port) return {};
  c.up = {};
  std::string errors;
  for (const Ip& ip : ips) {
    auto fd = connect_to(ip, a.port);
    if (fd) {
      c.up.fd = std::move(*fd);
      break;
    }
    errors += (errors.empty() ? "" : "; ") + fd.error().what();
  }
  if (!c.up.fd) return std::unexpected(Denial{"upstream-connect", errors});
  if (c.tunnel) {
    auto ssl = upstream_tls(c.d.upstream.get(), c.up.fd.get(), a.host, a.port);
    if (!ssl) {
      c.up = {};
      return std::unexpected(Denial{"upstream-tls", ssl.error().what()});
    }
    c.up.ssl = std::move(*ssl);
    c.up.s = std::make_unique<TlsStream>(c.up.ssl.get());
  } else {
    c.up.s = std::make_unique<FdStream>(c.up.fd.get());
  }
  c.up.where = a;
  return {};
}

// Writes what the bytes budget (both ways) still allows of `data`; a denial when that was not
// all of it (the connection is then cut: nothing past the budget goes through) or the write failed.
std::optional<Denial> send_within(Door& d, Stream& s, std::string_view data, uint64_t& counter, bool upstream) {
  uint64_t n = d.budget->take(data.size());
  counter += n;
  if (n && !s.write(data.substr(0, n)))
    return upstream ? Denial{"upstream-connect", "the upstream closed"} : Denial{"client", "the client closed the connection"};
  if (n < data.size()) return Denial{"budget-bytes", "the bytes budget is spent"};
  return std::nullopt;
}

// One request and its answer. False: the connection ends (a refusal, a close, an error).
bool forward_one(Conn& c, const std::string& head_text) {
  Door& d = c.d;
  LogLine l;
  auto deny = [&](int status, Denial dn) {
    l.status = status;
    l.check = std::move(dn.check);
    l.reason = std::move(dn.reason);
    if (status) refuse(*c.client, status, {l.check, l.reason});
    log_request(l);
    return false;
  };
  auto h = parse_request_head(head_text);
  if (!h) return deny(400, {"parse", h.error().what()});
  l.method = h->method;
  if (c.tunnel) {
    l.host = c.tunnel_to.host;
    l.port = c.tunnel_to.port;
  }
  if (h->method == "CONNECT") return deny(403, {"parse", "a CONNECT inside a tunnel or after a request"});
  auto t = c.tunnel ? parse_origin(h->target) : parse_absolute(h->target);
  if (!t) return deny(400, {"parse", t.error().what()});
  Authority a = c.tunnel ? c.tunnel_to : t->authority;
  l.host = a.host;
  l.port = a.port;
  l.path = t->path;
  auto path = normal_path(t->path);
  if (!path) return deny(403, {"path", path.error().what()});
  l.path = *path;
  auto host = h->fields.one("host");
  if (!host || !*host) return deny(403, {"host-header", host ? "no Host field" : host.error().what()});
  if (!host_field_names(**host, a, c.tunnel ? 443 : 80))
    return deny(403, {"host-header", "Host \"" + **host + "\" is not " + a.host + ":" + std::to_string(a.port)});
  if (h->fields.has("upgrade")) return deny(403, {"upgrade", "a protocol upgrade is a tunnel the door cannot inspect"});
  auto expect = h->fields.one("expect");
  if (!expect) return deny(400, {"parse", expect.error().what()});
  if (*expect && lower_case(**expect) != "100-continue") return deny(417, {"parse", "Expect \"" + **expect + "\""});
  auto rule = decide(d.policy, a, h->method, *path);
  if (!rule) return deny(403, rule.error());
  l.rule = *rule;
  const policy::EgressRule& r = d.policy.rules[*rule];
  if (!c.tunnel && r.credential)
    return deny(403, {"credential-plain-http", "rule " + std::to_string(*rule) + " adds a credential: HTTPS only"});
  std::vector<Ip> ips = c.tunnel_ips;
  if (!c.tunnel) {
    auto it = c.resolved.find(a.host);
    if (it == c.resolved.end()) {
      auto got = addresses_for(d, a);
      if (!got) return deny(403, got.error());
      it = c.resolved.emplace(a.host, std::move(*got)).first;
    }
    ips = it->second;
  }
  bool client_close = wants_close(h->minor, h->fields);
  RequestHead up = *h;
  up.target = t->origin;
  up.minor = 1;
  strip_hop_by_hop(up.fields);
  if (auto ok = d.credentials.apply(up, r); !ok) return deny(403, ok.error());
  if (r.credential) up.fields.set("accept-encoding", "identity");  // an encoded body could not be scrubbed
  auto fr = request_framing(h->fields);
  if (!fr) return deny(400, {"parse", fr.error().what()});
  if (fr->kind == Framing::none && !c.client->buf.empty())
    return deny(400, {"parse", "pipelined requests (a second request before the first was answered)"});
  if (std::string b = d.budget->admit(); !b.empty()) return deny(429, {b, "the " + b.substr(7) + " budget is spent"});
  if (*expect) {
    if (!c.client->write("HTTP/1.1 100 Continue\r\n\r\n")) return false;
  }
  if (auto o = open_upstream(c, a, ips); !o) return deny(502, o.error());

  // The request: head, then its body, watched for a placeholder that is not this rule's.
  auto cut = [&](Denial dn) {
    c.up = {};
    return deny(0, std::move(dn));
  };
  auto cut_answer = [&](int status, Denial dn) {  // no byte of the answer went to the client yet
    c.up = {};
    return deny(status, std::move(dn));
  };
  std::string uh = write_head(up);
  if (auto e = send_within(d, *c.up.s, uh, l.bytes_out, true)) return cut(*e);
  BodyDecoder body(*fr);
  Scanner watch(d.credentials.placeholders(), false);
  auto send_body = [&](const std::string& piece, bool last) -> std::optional<Denial> {
    if (std::string v = d.credentials.foreign(watch.found(), r); !v.empty())
      return Denial{"placeholder", "the placeholder sharness:" + v + " in the body, where no rule of vault " + v + " allows it"};
    std::string wire = fr->kind == Framing::chunked ? chunk(piece) + (last ? std::string(kLastChunk) : "") : piece;
    if (wire.empty()) return std::nullopt;
    return send_within(d, *c.up.s, wire, l.bytes_out, true);
  };
  while (!body.done()) {
    bool eof = false;
    if (c.client->buf.empty()) {
      auto more = c.client->fill();
      if (!more) return cut_answer(400, {"parse", "request body: " + more.error().what()});
      eof = !*more;
    }
    std::string payload, fwd;
    auto used = body.feed(c.client->buf, payload, eof);
    if (!used) return cut_answer(400, {"parse", "request body: " + used.error().what()});
    c.client->buf.erase(0, *used);
    watch.feed(payload, fwd);
    if (body.done()) watch.finish(fwd);
    if (auto e = send_body(fwd, body.done())) {
      c.up = {};
      return deny(e->check == "placeholder" ? 403 : 0, *e);
    }
  }
  if (!c.client->buf.empty()) return cut_answer(400, {"parse", "pipelined requests (a second request before the first was answered)"});

  // The answer: interim 1xx dropped, a switch of protocols refused; head and body scrubbed.
  ResponseHead resp;
  for (;;) {
    auto n = c.up.s->head();
    if (!n || !*n) return cut_answer(502, {"upstream-response", n ? "the upstream closed without an answer" : n.error().what()});
    auto p = parse_response_head(std::string_view(c.up.s->buf).substr(0, *n));
    c.up.s->buf.erase(0, *n);
    if (!p) return cut_answer(502, {"upstream-response", p.error().what()});
    if (p->status == 101) return cut_answer(502, {"upgrade", "the upstream switched protocols"});
    if (p->status >= 200) {
      resp = std::move(*p);
      break;
    }
  }
  auto rf = response_framing(resp, h->method == "HEAD");
  if (!rf) return cut_answer(502, {"upstream-response", rf.error().what()});
  auto enc = resp.fields.one("content-encoding");
  if (!enc) return cut_answer(502, {"upstream-response", enc.error().what()});
  if (r.credential && *enc && lower_case(**enc) != "identity")
    return cut_answer(502, {"encoding", "a credentialed request's answer is encoded (" + **enc + "): it could not be scrubbed"});
  bool upstream_close = wants_close(resp.minor, resp.fields) || rf->kind == Framing::until_close;
  bool close_after = client_close || rf->kind == Framing::until_close;
  bool rechunk = rf->kind == Framing::chunked && h->minor == 1;
  if (rf->kind == Framing::chunked && !rechunk) close_after = true;
  ResponseHead out = resp;
  out.minor = 1;
  strip_hop_by_hop(out.fields);
  out.fields.remove("transfer-encoding");
  if (rechunk) out.fields.set("transfer-encoding", "chunked");
  if (close_after) out.fields.set("connection", "close");
  l.status = resp.status;
  std::string oh;
  {
    Scanner s(d.scrub, true);
    s.feed(write_head(out), oh);
    s.finish(oh);
  }
  if (auto e = send_within(d, *c.client, oh, l.bytes_in, false)) return cut(*e);
  BodyDecoder rbody(*rf);
  Scanner scrub(d.scrub, true);
  while (!rbody.done()) {
    bool eof = false;
    if (c.up.s->buf.empty()) {
      auto more = c.up.s->fill();
      if (!more) return cut({"upstream-response", "response body: " + more.error().what()});
      eof = !*more;
    }
    std::string payload, fwd;
    auto used = rbody.feed(c.up.s->buf, payload, eof);
    if (!used) return cut({"upstream-response", "response body: " + used.error().what()});
    c.up.s->buf.erase(0, *used);
    scrub.feed(payload, fwd);
    if (rbody.done()) scrub.finish(fwd);
    std::string wire = rechunk ? chunk(fwd) + (rbody.done() ? std::string(kLastChunk) : "") : fwd;
    if (wire.empty()) continue;
    if (auto e = send_within(d, *c.client, wire, l.bytes_in, false)) return cut(*e);
  }
  if (!c.up.s->buf.empty()) c.up = {};  // bytes past the answer: not a clean end
  else if (upstream_close) close_upstream(c.up);
  log_request(l);
  return !close_after;
}

void requests(Conn& c) {
  for (;;) {
    auto n = c.client->head();
    if (!n) {
      // A head too long or cut off: answered; a reset or a timeout between requests: just ended.
      if (n.error().msg.starts_with("a head longer")) {
        refuse(*c.client, 400, {"parse", n.error().what()});
        log_request({std::nullopt, "", c.tunnel_to.host, "", c.tunnel_to.port, 400, 0, 0, "parse", n.error().what()});
      }
      return;
    }
    if (*n == 0) return;
    std::string head = c.client->buf.substr(0, *n);
    c.client->buf.erase(0, *n);
    if (!forward_one(c, head)) return;
  }
}

void tunnel(Conn& c, const RequestHead& h) {
  Door& d = c.d;
  LogLine l{std::nullopt, "CONNECT", "", "", 0, 0, 0, 0, "", ""};
  auto deny = [&](int status, Denial dn) {
    l.status = status;
    l.check = dn.check;
    l.reason = dn.reason;
    if (status) refuse(*c.client, status, dn);
    log_request(l);
  };
  auto a = parse_authority(h.target);
  if (!a) return deny(400, {"parse", "CONNECT " + a.error().what()});
  l.host = a->host;
  l.port = a->port;
  if (!host_listed(d.policy, *a)) return deny(403, {"host", "no rule lists " + a->host + ":" + std::to_string(a->port)});
  auto ips = addresses_for(d, *a);
  if (!ips) return deny(403, ips.error());
  if (!c.client->buf.empty()) return deny(400, {"parse", "bytes after CONNECT before the door answered"});
  if (!c.client->write("HTTP/1.1 200 Connection established\r\n\r\n")) return;
  auto ssl = d.mint->session(a->host, c.fd.get());
  if (!ssl) return deny(0, {"tls", ssl.error().what()});
  if (auto ok = LeafMint::accept(ssl->get(), a->host); !ok) {
    const char* sni = SSL_get_servername(ssl->get(), TLSEXT_NAMETYPE_host_name);
    bool other = ok.error().msg.starts_with("SNI") || (sni && lower_case(sni) != a->host);
    return deny(0, {other ? "sni" : "parse", "TLS from the client: " + ok.error().what()});
  }
  // The client's Finished is not acknowledged yet, and a client without TCP_NODELAY (Python)
  // holds its request back until it is: send that ACK now, not after the 40 ms delay.
  int one = 1;
  ::setsockopt(c.fd.get(), IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
  c.ssl = std::move(*ssl);
  c.client = std::make_unique<TlsStream>(c.ssl.get());
  c.tunnel = true;
  c.tunnel_to = *a;
  c.tunnel_ips = std::move(*ips);
  requests(c);
  (void)SSL_shutdown(c.ssl.get());
}

// The end of a connection: our side done, then what the client still sends read and dropped
// for a moment, so that a refusal is not lost to a reset (closing with unread bytes sends RST).
void linger_close(int fd) {
  ::shutdown(fd, SHUT_WR);
  set_idle_timeout(fd, 1);
  char buf[4096];
  for (size_t total = 0; total < (256u << 10);) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    total += size_t(n);
  }
}

}  // namespace

void serve_connection(Door& d, Fd fd) {
  set_idle_timeout(fd.get(), kIdleSeconds);
  set_no_delay(fd.get());
  Conn c{d, std::move(fd), {}, nullptr, false, {}, {}, {}, {}};
  c.client = std::make_unique<FdStream>(c.fd.get());
  auto n = c.client->head();
  if (!n || !*n) {
    if (!n) {
      bool big = n.error().msg.starts_with("a head longer");  // answered; a reset or a timeout: not
      if (big) refuse(*c.client, 400, {"parse", n.error().what()});
      log_request({std::nullopt, "", "", "", 0, big ? 400 : 0, 0, 0, "parse", n.error().what()});
      linger_close(c.fd.get());
    }
    return;
  }
  std::string head = c.client->buf.substr(0, *n);
  c.client->buf.erase(0, *n);
  auto h = parse_request_head(head);
  if (h && h->method == "CONNECT") tunnel(c, *h);
  else if (forward_one(c, head)) requests(c);
  close_upstream(c.up);  // between requests: what was cut is gone already
  linger_close(c.fd.get());
}

}  // namespace sh::egress
