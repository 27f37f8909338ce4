// A search for a few needles in a stream cut anywhere: a credential in what comes back from
// upstream (replaced by as many '*', so lengths and chunk sizes stay right), a placeholder in
// what the workload sends (found, and the request refused). It holds back the tail that could
// still begin a needle, so a needle split across two reads is found all the same.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sh::egress {

class Scanner {
 public:
  // `mask`: replace each needle found by '*'s; otherwise only record it. Empty needles ignored;
  // where two start at one place, the longer is taken.
  Scanner(std::vector<std::string> needles, bool mask);
  // Appends to `out` what may go on now; holds back at most the longest needle less one byte.
  void feed(std::string_view in, std::string& out);
  // The end of the stream: what was held back.
  void finish(std::string& out);
  // The needles found so far (indices into the constructor's list), each once.
  const std::vector<size_t>& found() const { return found_; }
  bool empty() const { return needles_.empty(); }

 private:
  void scan(std::string& buf, size_t until, size_t* done);
  std::vector<std::string> needles_;  // longest first
  std::vector<size_t> index_;         // their indices in the constructor's list
  bool mask_;
  size_t longest_ = 0;
  std::string held_;
  std::vector<size_t> found_;
};

}  // namespace sh::egress
