// sharness-kms-client: the workload's side of the KMS protocol (docs/kms.md). Makes a
// one-time X25519 key, asks the KMS over mutual TLS for the key of (vault, host, operation),
// opens the sealed answer with the one-time key and prints the derived key in hex.
//
// Exit status: 0 key printed; 1 usage or I/O error; 2 refused by the KMS's allowlists;
// 3 TLS refused (certificate, role); 4 a response that does not open with this key.
#include <algorithm>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "base/fd.hpp"
#include "kms/crypto.hpp"
#include "kms/protocol.hpp"
#include "tls/tls.hpp"

namespace {

using namespace sh;
using namespace sh::kms;

constexpr const char* kUsage =
    "usage: sharness-kms-client --socket PATH --ca FILE --cert FILE --key FILE --vault ID --host HOST --op OP\n"
    "                           [--ttl SECONDS] [--server-role ROLE] [--hold SECONDS]\n"
    "                           [--save-response FILE] [--save-key FILE]\n"
    "       sharness-kms-client --open-response FILE [--key-file FILE] --vault ID --host HOST --op OP [--ttl S]\n"
    "       sharness-kms-client --socket PATH --ca FILE --cert FILE --key FILE --credential ID --host HOST\n"
    "                           (the egress door's request: the KMS answers it to the door's leaf only)\n"
    "prints the derived key (hex). Exit: 0 ok, 1 error, 2 refused by policy, 3 TLS refused, 4 cannot open.\n";

struct Failure {
  int code;
  std::string msg;
};

int report(const Failure& f) {
  std::fprintf(stderr, "sharness-kms-client: %s\n", f.msg.c_str());
  return f.code;
}

bool write_file(const std::string& path, const void* data, size_t n) {
  sh::Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  return fd && ::write(fd.get(), data, n) == static_cast<ssize_t>(n);
}

bool read_small(const std::string& path, std::string& out) {
  sh::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  std::string buf(kMaxResponse + 1, '\0');
  ssize_t n = ::read(fd.get(), buf.data(), buf.size());
  if (n < 0) return false;
  out.assign(buf.data(), static_cast<size_t>(n));
  return true;
}

// Talk to the KMS: handshake, one request, one response.
std::expected<std::string, Failure> talk_to_kms(const std::map<std::string, std::string>& a, const std::string& request) {
  auto role = a.count("server-role") ? a.at("server-role") : "kms";
  auto ctx = tls::make_ctx(false, tls::Files{a.at("ca"), a.at("cert"), a.at("key")});
  if (!ctx) return std::unexpected(Failure{1, ctx.error().what()});
  sh::Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  const std::string& path = a.at("socket");
  if (path.size() >= sizeof sa.sun_path) return std::unexpected(Failure{1, "socket path too long: " + path});
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  if (!s || ::connect(s.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
    return std::unexpected(Failure{1, "connect " + path + ": " + std::strerror(errno)});
  auto ssl = tls::handshake(ctx->get(), s.get(), false, tls::Peer{{role}, {}, {}}, 0);
  if (!ssl) return std::unexpected(Failure{3, path + ": " + ssl.error().what()});
  int r = SSL_write(ssl->get(), request.data(), static_cast<int>(request.size()));
  if (r <= 0) return std::unexpected(Failure{3, tls::io_error(ssl->get(), r, "send request")});
  std::string resp;
  char buf[4096];
  while (resp.size() <= kMaxResponse && !resp.ends_with("\n\n")) {
    r = SSL_read(ssl->get(), buf, sizeof buf);
    if (r <= 0) {
      // TLS 1.3: the server checks our certificate after our handshake ended, so its
      // refusal arrives as an alert in place of the response.
      return std::unexpected(Failure{3, tls::io_error(ssl->get(), r, "read response")});
    }
    resp.append(buf, static_cast<size_t>(r));
  }
  SSL_shutdown(ssl->get());
  return resp;
}

// A credential request, as the egress door makes it; prints the credential.
int run_credential(std::map<std::string, std::string>& a) {
  for (auto k : {"socket", "ca", "cert", "key", "host"})
    if (!a.count(k)) return report({1, std::string("--") + k + " is required\n" + kUsage});
  Request req;
  req.kind = Kind::credential;
  req.vault = a["credential"];
  req.host = a["host"];
  if (auto c = check_name("credential", req.vault); !c) return report({1, c.error().what()});
  if (auto c = check_host_pattern("host", req.host); !c) return report({1, c.error().what()});
  auto pair = x25519_generate();
  if (!pair) return report({1, pair.error().what()});
  req.pub = pair->pub;
  auto resp = talk_to_kms(a, format_request(req));
  if (!resp) return report(resp.error());
  auto parsed = parse_response(*resp);
  if (!parsed) return report({1, parsed.error().what()});
  if (!parsed->ok) return report({2, "refused: " + parsed->reason});
  std::string out(parsed->sealed.ct.size(), '\0');
  if (auto o = open(parsed->sealed, pair->priv.k, response_aad(req, parsed->expires),
                    {reinterpret_cast<uint8_t*>(out.data()), out.size()});
      !o)
    return report({4, "open the response: " + o.error().what()});
  std::printf("%s\n", out.c_str());
  scrub(out.data(), out.size());
  return 0;
}

int run(std::map<std::string, std::string>& a) {
  if (a.count("credential")) return run_credential(a);
  for (auto k : {"vault", "host", "op"})
    if (!a.count(k)) return report({1, std::string("--") + k + " is required\n" + kUsage});
  Request req;
  req.vault = a["vault"];
  req.host = a["host"];
  req.op = a["op"];
  req.ttl = a.count("ttl") ? std::strtoull(a["ttl"].c_str(), nullptr, 10) : 60;
  for (auto [f, v] : {std::pair{"vault", &req.vault}, {"host", &req.host}, {"op", &req.op}})
    if (auto c = check_name(f, *v); !c) return report({1, c.error().what()});

  ScrubbedKey priv;
  std::string response;
  if (a.count("open-response")) {
    // Replay check: open a saved response with a given (or a fresh) one-time key.
    if (a.count("key-file")) {
      std::string k;
      if (!read_small(a["key-file"], k) || k.size() != kKeyLen) return report({1, "read key file " + a["key-file"]});
      std::copy(k.begin(), k.end(), priv.k.begin());
      scrub(k.data(), k.size());
    } else {
      auto p = x25519_generate();
      if (!p) return report({1, p.error().what()});
      priv.k = p->priv.k;
    }
    auto pub = x25519_public(priv.k);
    if (!pub) return report({1, pub.error().what()});
    req.pub = *pub;
    if (!read_small(a["open-response"], response)) return report({1, "read " + a["open-response"]});
  } else {
    for (auto k : {"socket", "ca", "cert", "key"})
      if (!a.count(k)) return report({1, std::string("--") + k + " is required\n" + kUsage});
    auto pair = x25519_generate();  // one-time: made for this request, never stored (unless asked)
    if (!pair) return report({1, pair.error().what()});
    priv.k = pair->priv.k;
    req.pub = pair->pub;
    if (a.count("save-key") && !write_file(a["save-key"], priv.k.data(), priv.k.size()))
      return report({1, "write " + a["save-key"]});
    auto resp = talk_to_kms(a, format_request(req));
    if (!resp) return report(resp.error());
    response = *resp;
    if (a.count("save-response") && !write_file(a["save-response"], response.data(), response.size()))
      return report({1, "write " + a["save-response"]});
  }
  auto parsed = parse_response(response);
  if (!parsed) return report({1, parsed.error().what()});
  if (!parsed->ok) return report({2, "refused by the KMS: " + parsed->reason});
  ScrubbedKey derived;
  if (auto o = open(parsed->sealed, priv.k, response_aad(req, parsed->expires), derived.k); !o)
    return report({4, "open the response: " + o.error().what()});
  std::printf("%s\n", to_hex(derived.k).c_str());
  std::fflush(stdout);
  if (a.count("hold")) ::sleep(static_cast<unsigned>(std::strtoul(a["hold"].c_str(), nullptr, 10)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);  // the KMS closes first; our close_notify may meet a closed socket
  std::map<std::string, std::string> a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--help" || s == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!s.starts_with("--")) return report({1, "unexpected argument \"" + s + "\"\n" + kUsage});
    s = s.substr(2);
    size_t eq = s.find('=');
    if (eq != std::string::npos) {
      a[s.substr(0, eq)] = s.substr(eq + 1);
    } else if (i + 1 < argc) {
      a[s] = argv[++i];
    } else {
      return report({1, "--" + s + " needs a value"});
    }
  }
  static const char* known[] = {"socket", "ca", "cert", "key", "vault", "host", "op", "ttl", "server-role",
                                "hold", "save-response", "save-key", "open-response", "key-file", "credential"};
  for (auto& [k, v] : a)
    if (std::find(std::begin(known), std::end(known), k) == std::end(known))
      return report({1, "unknown option --" + k + "\n" + kUsage});
  return run(a);
}
