#include "runtime/linux/netdev.hpp"

#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <functional>

#include "base/fd.hpp"

namespace sh::netdev {
namespace {

std::string field(const Device& d) { return "linux.netDevices." + d.host_name; }

// One request: nlmsghdr, the fixed header T, then attributes.
class Message {
 public:
  template <class T>
  Message(uint16_t type, uint16_t flags, const T& header) {
    buf_.resize(NLMSG_HDRLEN);
    hdr().nlmsg_type = type;
    hdr().nlmsg_flags = flags;
    append(&header, sizeof header);
  }
  void attr(uint16_t type, const void* data, size_t len) {
    struct rtattr a{};
    a.rta_type = type;
    a.rta_len = uint16_t(RTA_LENGTH(len));
    append(&a, sizeof a);
    append(data, len);
  }
  void attr_u32(uint16_t type, uint32_t v) { attr(type, &v, sizeof v); }
  void attr_str(uint16_t type, const std::string& s) { attr(type, s.c_str(), s.size() + 1); }
  // Raw bytes already laid out as header + attributes (a saved RTM_NEWADDR payload).
  void raw(const std::vector<char>& bytes) { append(bytes.data(), bytes.size()); }
  nlmsghdr& hdr() { return *reinterpret_cast<nlmsghdr*>(buf_.data()); }
  char* payload() { return buf_.data() + NLMSG_HDRLEN; }
  std::vector<char>& finish(uint32_t seq) {
    hdr().nlmsg_len = uint32_t(buf_.size());
    hdr().nlmsg_seq = seq;
    return buf_;
  }

 private:
  void append(const void* p, size_t n) {
    size_t at = buf_.size();
    buf_.resize(at + NLMSG_ALIGN(n), 0);
    std::memcpy(buf_.data() + at, p, n);
  }
  std::vector<char> buf_;
};

class Rtnl {
 public:
  static Result<Rtnl> open() {
    Rtnl r;
    r.fd_ = Fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
    if (!r.fd_) return sys_error("rtnetlink socket");
    struct sockaddr_nl sa{};
    sa.nl_family = AF_NETLINK;
    if (::bind(r.fd_.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) return sys_error("bind rtnetlink socket");
    return r;
  }
  // Send `m`, read until its ACK (or the end of a dump); `each` sees every reply message.
  // Returns the kernel's errno as an error naming `what`.
  Result<void> talk(Message& m, const std::string& what, const std::function<void(const nlmsghdr*)>& each = {}) {
    uint32_t seq = ++seq_;
    auto& bytes = m.finish(seq);
    struct sockaddr_nl to{};
    to.nl_family = AF_NETLINK;
    if (::sendto(fd_.get(), bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0)
      return sys_error(what + ": send to rtnetlink");
    std::vector<char> buf(64 * 1024);
    for (;;) {
      ssize_t n = ::recv(fd_.get(), buf.data(), buf.size(), 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        return sys_error(what + ": receive from rtnetlink");
      }
      int len = int(n);
      for (auto* h = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
        if (h->nlmsg_seq != seq) continue;
        if (h->nlmsg_type == NLMSG_DONE) return {};
        if (h->nlmsg_type == NLMSG_ERROR) {
          auto* e = static_cast<nlmsgerr*>(NLMSG_DATA(h));
          if (e->error == 0) return {};
          return sys_error(what, -e->error);
        }
        if (each) each(h);
      }
    }
  }

 private:
  Fd fd_;
  uint32_t seq_ = 0;
};

Result<int> index_of(const std::string& name, const std::string& what) {
  unsigned idx = ::if_nametoindex(name.c_str());
  if (idx == 0) return sys_error(what + ": no interface \"" + name + "\" in this network namespace");
  return int(idx);
}

// The attributes of a saved address worth sending back: not its label (it names the old
// device) nor its cache info (lifetimes: a permanent address has none).
std::vector<char> reusable_address(const nlmsghdr* h) {
  auto* ifa = static_cast<const ifaddrmsg*>(NLMSG_DATA(h));
  std::vector<char> out(NLMSG_ALIGN(sizeof *ifa));
  std::memcpy(out.data(), ifa, sizeof *ifa);
  int len = int(IFA_PAYLOAD(h));
  for (auto* a = IFA_RTA(ifa); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
    if (a->rta_type == IFA_LABEL || a->rta_type == IFA_CACHEINFO) continue;
    size_t at = out.size();
    out.resize(at + RTA_ALIGN(a->rta_len), 0);
    std::memcpy(out.data() + at, a, a->rta_len);
  }
  return out;
}

// The spec: a name already in the container's namespace is an error, checked before anything
// moves (a virtual device moved into a namespace that then goes is destroyed with it). Asked
// in a child that joins the namespace; it exits with the index of the first name taken, + 1.
Result<void> check_names_free(const std::vector<Device>& devices, int netns_fd, const std::string& where) {
  pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork to look into " + where);
  if (pid == 0) {
    if (::setns(netns_fd, CLONE_NEWNET) < 0) ::_exit(255);
    for (size_t i = 0; i < devices.size() && i < 250; ++i) {
      auto& d = devices[i];
      const std::string& inside = d.name.empty() ? d.host_name : d.name;
      if (inside.find('%') == std::string::npos && ::if_nametoindex(inside.c_str()) != 0) ::_exit(int(i) + 1);
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return sys_error("wait for the look into " + where);
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 255) return fail("cannot look into " + where);
  if (int i = WEXITSTATUS(status); i > 0) {
    auto& d = devices[size_t(i - 1)];
    return fail(field(d) + (d.name.empty() ? "" : ".name") + ": an interface \"" +
                (d.name.empty() ? d.host_name : d.name) + "\" already exists in " + where);
  }
  return {};
}

}  // namespace

Result<std::vector<Device>> prepare(const std::map<std::string, oci::NetDevice>& devices) {
  std::vector<Device> out;
  if (devices.empty()) return out;
  auto nl = TRY(Rtnl::open());
  for (auto& [host, d] : devices) {
    Device dev{host, d.name, {}};
    int idx = TRY(index_of(host, field(dev)));
    struct ifaddrmsg req{};
    req.ifa_family = AF_UNSPEC;
    Message m(RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, req);
    TRYV(nl.talk(m, field(dev) + ": list addresses", [&](const nlmsghdr* h) {
      if (h->nlmsg_type != RTM_NEWADDR) return;
      auto* ifa = static_cast<const ifaddrmsg*>(NLMSG_DATA(h));
      if (int(ifa->ifa_index) != idx || ifa->ifa_scope != RT_SCOPE_UNIVERSE) return;
      uint32_t flags = ifa->ifa_flags;
      int len = int(IFA_PAYLOAD(h));
      for (auto* a = IFA_RTA(ifa); RTA_OK(a, len); a = RTA_NEXT(a, len))
        if (a->rta_type == IFA_FLAGS && RTA_PAYLOAD(a) >= sizeof(uint32_t)) std::memcpy(&flags, RTA_DATA(a), sizeof flags);
      if (flags & IFA_F_PERMANENT) dev.addresses.push_back(reusable_address(h));
    }));
    out.push_back(std::move(dev));
  }
  return out;
}

namespace {

// One RTM_NEWLINK moving `name` (in the socket's namespace) into `netns_fd`.
Result<void> move_one(Rtnl& nl, const std::string& name, int netns_fd, const std::string& what) {
  struct ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = TRY(index_of(name, what));
  Message m(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, ifi);
  m.attr_u32(IFLA_NET_NS_FD, uint32_t(netns_fd));
  return nl.talk(m, what);
}

// A create that failed half way gives back what it took: from a child in the container's
// namespace, each device already moved goes back to ours (else a virtual one would die with
// the namespace, and a physical one would come back only then). Best effort.
void move_back(const std::vector<Device>& moved, int netns_fd) {
  Fd ours(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!ours || moved.empty()) return;
  pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid == 0) {
    if (::setns(netns_fd, CLONE_NEWNET) < 0) ::_exit(1);
    auto nl = Rtnl::open();
    if (!nl) ::_exit(1);
    for (auto& d : moved) (void)move_one(*nl, d.host_name, ours.get(), "move back");
    ::_exit(0);
  }
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Result<void> move_all(const std::vector<Device>& devices, int netns_fd, const std::string& where) {
  if (devices.empty()) return {};
  TRYV(check_names_free(devices, netns_fd, where));
  auto nl = TRY(Rtnl::open());
  std::vector<Device> moved;
  for (auto& d : devices) {
    auto r = move_one(nl, d.host_name, netns_fd, field(d) + ": move \"" + d.host_name + "\" into " + where);
    if (!r) {
      move_back(moved, netns_fd);
      if (r.error().err == EINVAL)
        return fail(r.error().what() + " (a device that cannot change namespace, such as a bridge?)");
      return std::unexpected(std::move(r.error()));
    }
    moved.push_back(d);
  }
  return {};
}

Result<void> configure_inside(const std::vector<Device>& devices) {
  if (devices.empty()) return {};
  auto nl = TRY(Rtnl::open());
  for (auto& d : devices) {
    int idx = TRY(index_of(d.host_name, field(d) + " in the container"));
    if (!d.name.empty() && d.name != d.host_name) {
      struct ifinfomsg ifi{};
      ifi.ifi_family = AF_UNSPEC;
      ifi.ifi_index = idx;
      Message m(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, ifi);
      m.attr_str(IFLA_IFNAME, d.name);
      TRYV(nl.talk(m, field(d) + ".name: rename \"" + d.host_name + "\" to \"" + d.name + "\" in the container"));
    }
    for (auto& a : d.addresses) {
      struct ifaddrmsg ifa;
      std::memcpy(&ifa, a.data(), sizeof ifa);
      ifa.ifa_index = uint32_t(idx);
      Message m(RTM_NEWADDR, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, ifa);
      m.raw(std::vector<char>(a.begin() + NLMSG_ALIGN(sizeof ifa), a.end()));
      TRYV(nl.talk(m, field(d) + ": restore an address in the container"));
    }
    struct ifinfomsg up{};
    up.ifi_family = AF_UNSPEC;
    up.ifi_index = idx;
    up.ifi_flags = IFF_UP;
    up.ifi_change = IFF_UP;
    Message m(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, up);
    TRYV(nl.talk(m, field(d) + ": bring it up in the container"));
  }
  return {};
}

}  // namespace sh::netdev
