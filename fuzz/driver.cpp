// A standalone libFuzzer-compatible driver, for compilers without -fsanitize=fuzzer (the g++
// fallback of fuzz/build.sh). Same command line subset as libFuzzer:
//   fuzz_X [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=N] [-artifact_prefix=P] DIR|FILE...
// Replays every corpus file, then mutates corpus inputs at random (bit flips, byte edits,
// inserts, deletes, splices, JSON tokens) until the time or run budget is spent. Coverage is not
// measured: this is a sanitizer-checked random search, weaker than libFuzzer. On a crash the
// sanitizer's death callback writes the input to <artifact_prefix>crash-<hash>.
#include <sanitizer/common_interface_defs.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {
std::string g_current;
std::string g_prefix = "./";

void save_crash() {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : g_current) h = (h ^ c) * 1099511628211ull;
  char name[64];
  std::snprintf(name, sizeof name, "crash-%016llx", (unsigned long long)h);
  std::string path = g_prefix + name;
  std::ofstream(path, std::ios::binary) << g_current;
  std::fprintf(stderr, "driver: crashing input (%zu bytes) saved to %s\n", g_current.size(), path.c_str());
}

void run_one(const std::string& in) {
  g_current = in;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(g_current.data()), g_current.size());
}

const char* kTokens[] = {"{", "}", "[", "]", ",", ":", "\"", "null", "true", "false", "0", "-1",
                         "18446744073709551616", "1e400", "\"\\u0000\"", "\"\\ud800\"", "\"../..\"",
                         "\"/proc/self/fd/3\"", "{\"a\":1,\"a\":2}", "[[[[[[[[", "\xff\xfe", "\"\""};

std::string mutate(std::mt19937_64& rng, const std::vector<std::string>& corpus, std::string s, size_t max_len) {
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  int edits = 1 + int(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 7) {
      case 0: if (!s.empty()) s[pick(s.size())] ^= char(1u << (rng() % 8)); break;
      case 1: if (!s.empty()) s[pick(s.size())] = char(rng()); break;
      case 2: s.insert(pick(s.size() + 1), 1, char(rng())); break;
      case 3: if (!s.empty()) { size_t a = pick(s.size()); s.erase(a, 1 + pick(std::min<size_t>(16, s.size() - a))); } break;
      case 4: s.insert(pick(s.size() + 1), kTokens[pick(sizeof kTokens / sizeof *kTokens)]); break;
      case 5: if (!corpus.empty()) { const std::string& o = corpus[pick(corpus.size())];
                if (!o.empty()) { size_t a = pick(o.size()); s.insert(pick(s.size() + 1), o.substr(a, 1 + pick(64))); } } break;
      case 6: if (s.size() > 1) { size_t a = pick(s.size()); s.resize(a); } break;
    }
  }
  if (s.size() > max_len) s.resize(max_len);
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  double max_time = 0;
  long long runs = -1;
  uint64_t seed = std::random_device{}();
  size_t max_len = 65536;
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* k) -> const char* { size_t n = std::strlen(k); return a.compare(0, n, k) == 0 ? argv[i] + n : nullptr; };
    if (auto v = val("-max_total_time=")) max_time = std::atof(v);
    else if (auto v = val("-runs=")) runs = std::atoll(v);
    else if (auto v = val("-seed=")) seed = std::strtoull(v, nullptr, 10);
    else if (auto v = val("-max_len=")) max_len = std::strtoull(v, nullptr, 10);
    else if (auto v = val("-artifact_prefix=")) g_prefix = v;
    else if (a[0] == '-') continue;  // other libFuzzer flags: ignored
    else if (std::filesystem::is_directory(a)) {
      for (auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) {
          std::ifstream f(e.path(), std::ios::binary);
          corpus.emplace_back((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        }
    } else {
      std::ifstream f(a, std::ios::binary);
      corpus.emplace_back((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    }
  }
  __sanitizer_set_death_callback(save_crash);
  for (auto& c : corpus) run_one(c);
  std::fprintf(stderr, "driver: replayed %zu corpus inputs, seed %llu\n", corpus.size(), (unsigned long long)seed);
  if (runs == 0 || (max_time <= 0 && runs < 0)) return 0;
  std::mt19937_64 rng(seed);
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_time > 0 ? max_time : 1e9);
  long long n = 0;
  std::string empty;
  while ((runs < 0 || n < runs) && std::chrono::steady_clock::now() < end) {
    const std::string& base = corpus.empty() ? empty : corpus[rng() % corpus.size()];
    run_one(mutate(rng, corpus, base, max_len));
    ++n;
  }
  std::fprintf(stderr, "driver: %lld mutated runs, no crash\n", n);
  return 0;
}
