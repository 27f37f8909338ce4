#include "spec-mapping/pin.hpp"

#include <algorithm>

#include "spec-mapping/canonical.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {
namespace {

// Replace every `"old"` string literal by `"new"`; how many were replaced.
size_t replace_literal(std::string& text, const std::string& old_sha, const std::string& new_sha) {
  const std::string from = "\"" + old_sha + "\"", to = "\"" + new_sha + "\"";
  size_t n = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++n;
  }
  return n;
}

}  // namespace

Result<Repinned> repin(std::string_view text, const std::string& origin,
                       const std::function<Result<Pin>(const std::string& path)>& look) {
  Policy before = TRY(parse_policy(text, origin));
  if (!before.exec) return fail(origin + ": exec: absent, so there are no pins to refresh");
  Repinned r;
  r.old_hash = before.hash;
  r.pins = before.exec->size();
  Policy want = before;
  std::vector<Pin> pins;
  for (const auto& pin : *before.exec) {
    Pin now = TRY(look(pin.path));
    if (now == pin) {
      pins.push_back(pin);
      continue;
    }
    r.changes.push_back({pin.path, pin.sha256, now.sha256, now.path == pin.path ? std::string() : now.path});
    pins.push_back(std::move(now));
  }
  std::ranges::sort(pins, {}, &Pin::path);
  auto [first, last] = std::ranges::unique(pins);  // two links to one file: one pin
  pins.erase(first, last);
  want.exec = std::move(pins);
  if (r.changes.empty()) {
    r.text = std::string(text);
    r.new_hash = r.old_hash;
    return r;
  }
  // Keep the document as written: only the digests' literals change. Should a digest also be
  // written elsewhere (a description), escaped, or shared by pins that now differ, the parse
  // below does not give `want`, and the policy is written from the model instead.
  std::string edited(text);
  for (const auto& c : r.changes) {
    replace_literal(edited, c.old_sha256, c.new_sha256);
    if (!c.new_path.empty()) replace_literal(edited, c.path, c.new_path);
  }
  auto again = parse_policy(edited, origin);
  if (!again || !again->same_rules(want))
    edited = policy_to_json(want, true) + "\n";
  Policy after = TRY(parse_policy(edited, origin));
  if (!after.same_rules(want)) return fail(origin + ": the refreshed policy does not read back as written");
  r.text = std::move(edited);
  r.new_hash = after.hash;
  return r;
}

std::string format_changes(const Repinned& r) {
  std::string out;
  for (const auto& c : r.changes) {
    out += c.path + (c.new_path.empty() ? "" : " -> " + c.new_path) + ": ";
    out += c.old_sha256 == c.new_sha256 ? "unchanged " + c.new_sha256 : c.old_sha256 + " -> " + c.new_sha256;
    out += "\n";
  }
  if (r.changes.empty())
    out += "no pin changed (" + std::to_string(r.pins) + " checked); hash " + r.new_hash + "\n";
  else
    out += std::to_string(r.changes.size()) + " of " + std::to_string(r.pins) + " pins changed; hash " + r.old_hash +
           " -> " + r.new_hash + "\n";
  return out;
}

}  // namespace sh::policy
