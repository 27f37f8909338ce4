// Names to addresses, once per connection (the door connects only to an address it checked, so
// a second answer, DNS rebinding, changes nothing). Either a static hosts file (`hosts` in the
// config: operators, tests) or DNS through the C library's resolver (res_nquery, A and AAAA over
// UDP to /etc/resolv.conf's servers, read once at start), never NSS: after the door confines
// itself it opens no file and loads no module.
#pragma once
#include <resolv.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "egress/address.hpp"

namespace sh::egress {

class Resolver {
 public:
  static Result<std::unique_ptr<Resolver>> from_hosts_file(const std::string& path);
  static Result<std::unique_ptr<Resolver>> from_dns();
  ~Resolver();
  // Every address of `name` (a lower-case DNS name); an error when there is none.
  Result<std::vector<Ip>> resolve(const std::string& name);

 private:
  Resolver() = default;
  Result<std::vector<Ip>> query(const std::string& name, int type);
  bool use_dns_ = false;
  std::map<std::string, std::vector<Ip>> hosts_;
  std::mutex mu_;  // one resolver state for every connection
  struct __res_state res_ {};
};

// /etc/hosts syntax: "ADDRESS NAME [NAME...]", # comments; names kept in lower case.
Result<std::map<std::string, std::vector<Ip>>> parse_hosts(std::string_view text);

}  // namespace sh::egress
