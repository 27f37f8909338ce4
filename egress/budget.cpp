#include "egress/budget.hpp"

#include <algorithm>

namespace sh::egress {

Budget::Budget(const policy::EgressBudgets& b, Clock::time_point now) : b_(b), last_(now) {
  if (b_.requests_per_second) tokens_ = double(*b_.requests_per_second);
}

std::string Budget::admit(Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (b_.bytes && bytes_ >= *b_.bytes) return "budget-bytes";
  if (b_.requests && requests_ >= *b_.requests) return "budget-requests";
  if (b_.requests_per_second) {
    double rate = double(*b_.requests_per_second);
    std::chrono::duration<double> dt = now - last_;
    last_ = now;
    tokens_ = std::min(rate, tokens_ + std::max(0.0, dt.count()) * rate);
    if (tokens_ < 1) return "budget-rate";
    tokens_ -= 1;
  }
  ++requests_;
  return "";
}

uint64_t Budget::take(uint64_t n) {
  std::lock_guard lock(mu_);
  if (b_.bytes) n = std::min(n, *b_.bytes - std::min(bytes_, *b_.bytes));
  bytes_ += n;
  return n;
}

}  // namespace sh::egress
