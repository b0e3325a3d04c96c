#include "common/json_diff.h"

#include <set>

namespace skb::common {

namespace {

void walk(const Json& a, const Json& b, const std::string& at, std::vector<FieldDiff>& out) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const auto& k : keys) {
      std::string p = at + "/" + pointer_token(k);
      auto ia = a.find(k), ib = b.find(k);
      if (ia == a.end())
        out.push_back({p, Json(), *ib, false, true});
      else if (ib == b.end())
        out.push_back({p, *ia, Json(), true, false});
      else
        walk(*ia, *ib, p, out);
    }
    return;
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) walk(a[i], b[i], at + "/" + std::to_string(i), out);
    return;
  }
  if (a != b) out.push_back({at.empty() ? "/" : at, a, b, true, true});
}

}  // namespace

std::vector<FieldDiff> diff_json(const Json& a, const Json& b) {
  std::vector<FieldDiff> out;
  walk(a, b, "", out);
  return out;
}

std::string show_value(const Json& v, bool present) { return present ? v.dump() : "absent"; }

}  // namespace skb::common
