#include "egress/scrub.hpp"

#include <algorithm>
#include <numeric>

namespace sh::egress {

Scanner::Scanner(std::vector<std::string> needles, bool mask) : mask_(mask) {
  std::vector<size_t> order(needles.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, [&](size_t a, size_t b) { return needles[a].size() > needles[b].size(); });
  for (size_t i : order)
    if (!needles[i].empty()) {
      needles_.push_back(std::move(needles[i]));
      index_.push_back(i);
    }
  if (!needles_.empty()) longest_ = needles_.front().size();
}

// Looks for a needle at every position below `until`; a match there lies wholly in `buf` (the
// caller keeps `until` a longest needle short of the end). `*done` is where it stopped: past
// the last match, or `until`.
void Scanner::scan(std::string& buf, size_t until, size_t* done) {
  size_t i = 0;
  while (i < until) {
    size_t hit = needles_.size();
    for (size_t k = 0; k < needles_.size(); ++k)
      if (buf.compare(i, needles_[k].size(), needles_[k]) == 0) {
        hit = k;
        break;
      }
    if (hit == needles_.size()) {
      ++i;
      continue;
    }
    if (std::ranges::find(found_, index_[hit]) == found_.end()) found_.push_back(index_[hit]);
    if (mask_) std::fill_n(buf.begin() + long(i), needles_[hit].size(), '*');
    i += needles_[hit].size();
  }
  *done = std::max(i, until);
}

void Scanner::feed(std::string_view in, std::string& out) {
  if (needles_.empty()) {
    out.append(in);
    return;
  }
  held_.append(in);
  if (held_.size() < longest_) return;
  size_t done = 0;
  scan(held_, held_.size() - longest_ + 1, &done);
  out.append(held_, 0, done);
  held_.erase(0, done);
}

void Scanner::finish(std::string& out) {
  if (!needles_.empty()) {
    size_t done = 0;
    scan(held_, held_.size(), &done);
  }
  out.append(held_);
  held_.clear();
}

}  // namespace sh::egress
