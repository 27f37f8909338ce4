// The oracle for "JSON with one reading", shared by the JSON targets: whatever
// json::Document::parse accepts, yajl's own parser with comments OFF (yajl_allow_comments 0, as
// Go's decoder reads: no comments) accepts too. Document::parse builds its tree with
// yajl_tree_parse, which switches comments on, and refuses them in its pre-scan instead; a
// document that parses here but not there is a second reading, and traps.
#pragma once
#include <yajl/yajl_parse.h>

#include <string_view>

#include "base/json.hpp"

namespace fuzz {

inline bool strict_yajl_accepts(std::string_view text) {
  yajl_handle h = yajl_alloc(nullptr, nullptr, nullptr);
  if (!h) return false;
  yajl_config(h, yajl_allow_comments, 0);
  bool ok = yajl_parse(h, reinterpret_cast<const unsigned char*>(text.data()), text.size()) == yajl_status_ok &&
            yajl_complete_parse(h) == yajl_status_ok;
  yajl_free(h);
  return ok;
}

// Call with the input of any parser built on json::Document::parse.
inline void one_reading(std::string_view text) {
  if (sh::json::Document::parse(text, "fuzz") && !strict_yajl_accepts(text)) __builtin_trap();
}

}  // namespace fuzz
