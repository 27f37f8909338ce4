// linux.netDevices (runtime-spec 1.3): host interfaces moved into the container's network
// namespace over rtnetlink. The runtime, in the host's namespace, reads each device's
// permanent global addresses and moves it (which drops them and takes it down); init, inside,
// renames it, puts the addresses back and brings it up, as the spec asks. Nothing moves it
// back (the spec forbids it; the kernel returns a physical device to the initial namespace and
// destroys a virtual one when the namespace goes), except when the create that moved it fails.
// Plain netlink sockets (libmnl has no static archive in Debian, and the runtime is static).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/config.hpp"

namespace sh::netdev {

struct Device {
  std::string host_name;               // the map key
  std::string name;                    // inside; empty: the host name
  std::vector<std::vector<char>> addresses;  // RTM_NEWADDR payloads (ifaddrmsg + attributes)
};

// In the host's namespace, before init exists: each device must be there; its permanent
// (IFA_F_PERMANENT) addresses of global scope are kept to be re-added inside.
Result<std::vector<Device>> prepare(const std::map<std::string, oci::NetDevice>& devices);
// Move each device into the network namespace `netns_fd` (`where` names it in errors), after
// checking that no name it will have is taken there; if one fails, those moved go back first.
Result<void> move_all(const std::vector<Device>& devices, int netns_fd, const std::string& where);
// Inside the container's namespace: rename, addresses, up.
Result<void> configure_inside(const std::vector<Device>& devices);

}  // namespace sh::netdev
