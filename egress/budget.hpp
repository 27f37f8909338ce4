// The policy's budgets (docs/egress.md): requests and bytes over the container's life, and a
// rate. Shared by every connection of the door, so one lock.
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "spec-mapping/egress.hpp"

namespace sh::egress {

class Budget {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Budget(const policy::EgressBudgets& b, Clock::time_point now = Clock::now());
  // Counts one more request; "" when it may go, else the check that refuses it
  // ("budget-requests", "budget-rate", "budget-bytes": nothing more may go once bytes are spent).
  std::string admit(Clock::time_point now = Clock::now());
  // `n` more bytes through the door, either way: how many of them the bytes budget allows.
  uint64_t take(uint64_t n);

 private:
  std::mutex mu_;
  policy::EgressBudgets b_;
  uint64_t requests_ = 0, bytes_ = 0;
  double tokens_ = 0;  // the rate: a bucket of requestsPerSecond, refilled continuously
  Clock::time_point last_;
};

}  // namespace sh::egress
