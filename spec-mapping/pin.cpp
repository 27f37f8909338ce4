#include "spec-mapping/pin.hpp"

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
                       const std::function<Result<std::string>(const std::string& path)>& digest) {
  Policy before = TRY(parse_policy(text, origin));
  if (!before.exec) return fail(origin + ": exec: absent, so there are no pins to refresh");
  Repinned r;
  r.old_hash = before.hash;
  r.pins = before.exec->size();
  Policy want = before;
  for (auto& pin : *want.exec) {
    std::string now = TRY(digest(pin.path));
    if (now == pin.sha256) continue;
    r.changes.push_back({pin.path, pin.sha256, now});
    pin.sha256 = now;
  }
  if (r.changes.empty()) {
    r.text = std::string(text);
    r.new_hash = r.old_hash;
    return r;
  }
  // Keep the document as written: only the digests' literals change. Should a digest also be
  // written elsewhere (a description), escaped, or shared by pins that now differ, the parse
  // below does not give `want`, and the policy is written from the model instead.
  std::string edited(text);
  for (const auto& c : r.changes) replace_literal(edited, c.old_sha256, c.new_sha256);
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
  for (const auto& c : r.changes) out += c.path + ": " + c.old_sha256 + " -> " + c.new_sha256 + "\n";
  if (r.changes.empty())
    out += "no pin changed (" + std::to_string(r.pins) + " checked); hash " + r.new_hash + "\n";
  else
    out += std::to_string(r.changes.size()) + " of " + std::to_string(r.pins) + " pins changed; hash " + r.old_hash +
           " -> " + r.new_hash + "\n";
  return out;
}

}  // namespace sh::policy
