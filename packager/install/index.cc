#include "packager/install/index.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include "common/json_input.h"

namespace skb::installer {
using common::Json;

std::string config_ini(const std::vector<std::string>& newest_first) {
  std::string line = "load_priority=";
  for (std::size_t i = 0; i < newest_first.size(); ++i) line += (i ? "," : "") + newest_first[i];
  return "[static_kernel]\n" + line + "\n";
}

std::vector<std::string> parse_config_ini(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = text.find("load_priority=");
  if (at == std::string::npos) return out;
  std::size_t end = text.find('\n', at);
  std::string list = text.substr(at + 14, end == std::string::npos ? std::string::npos : end - at - 14);
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string name = list.substr(start, comma - start);
    if (packager::is_package_name(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    start = comma + 1;
  }
  return out;
}

namespace {

// A list of entries, one a line; each entry is an index entry's text, to which `key` (when not
// empty) adds the opbase key as "simplifiedKey".
struct ListEntry {
  std::string_view entry;
  std::string_view key;
};

void append_list(std::string& out, const std::vector<ListEntry>& entries) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    out += i ? ",\n  " : "\n  ";
    const ListEntry& e = entries[i];
    if (e.key.empty()) {
      out += e.entry;
      continue;
    }
    out += e.entry.substr(0, e.entry.size() - 1);
    out += ",\"simplifiedKey\":";
    out += Json(std::string(e.key)).dump();
    out += '}';
  }
  out += entries.empty() ? "]" : "\n ]";
}

}  // namespace

std::map<std::string, std::string> merged_indexes(const std::vector<const PackagePieces*>& oldest_first,
                                                  const std::vector<std::string>& known_socs) {
  // soc → skb key → its piece: later packages overwrite earlier ones.
  std::map<std::string, std::map<std::string_view, const IndexPiece*>> by_soc;
  // soc → opbase key → skb key of the newest kernel with that key: opbase takes the first entry
  // it reads for a key, so only that one goes into staticList. A kernel whose call the two
  // engines key differently has one entry per key, each with the same binPath: the composite
  // engine reads simplifiedKey as a string (OpKernel::AppendStaticBin) and adds a binPath it
  // has already added once (OpKernel::HashAndInsert), so a list there would stop its reading.
  std::map<std::string, std::unordered_map<std::string_view, std::string_view>> opbase_owner;
  for (const auto& soc : known_socs) by_soc[soc];
  for (const auto* p : oldest_first)
    for (const auto& k : p->kernels) {
      by_soc[k.soc][k.key] = &k;
      for (const auto& sk : k.simplified_keys) opbase_owner[k.soc][sk] = k.key;
    }
  std::map<std::string, std::string> out;
  for (const auto& [soc, kernels] : by_soc) {
    // Each op entry's lists, and its valueDependIndex: the union of its kernels' value-depend
    // input positions, in order (the composite engine keys an input's data only at the positions
    // it lists: OpKernel::AppendStaticBin).
    struct Op {
      std::vector<ListEntry> static_list, skb_list;
      std::set<std::int64_t> value_depend;
    };
    std::map<std::string_view, Op> ops;
    const auto& owners = opbase_owner[soc];
    for (const auto& [key, k] : kernels) {
      Op& op = ops[k->op];
      op.value_depend.insert(k->value_depend.begin(), k->value_depend.end());
      bool listed = false;
      for (const auto& sk : k->simplified_keys) {
        auto owner = owners.find(sk);
        if (owner == owners.end() || owner->second != key) continue;
        // The entry, rendered when its package was installed, with its key for opbase.
        op.static_list.push_back({k->entry, sk});
        listed = true;
      }
      if (!listed) op.skb_list.push_back({k->entry, {}});
    }
    // The document: JSON values rendered by nlohmann_json, one entry per line.
    std::string text = "{";
    for (const auto& [name, op] : ops) {
      text += text.size() == 1 ? "\n " : ",\n ";
      text += Json(std::string(name)).dump();
      text += ": {\"dynamicRankSupport\": true, \"simplifiedKeyMode\": 0, \"";
      text += kSkbListField;
      text += "\": [";
      append_list(text, op.skb_list);
      text += ", \"staticList\": [";
      append_list(text, op.static_list);
      if (!op.value_depend.empty())
        text += ", \"valueDependIndex\": " +
                Json(std::vector<std::int64_t>(op.value_depend.begin(), op.value_depend.end())).dump();
      text += "}";
    }
    out[soc] = text + (text.size() == 1 ? "}\n" : "\n}\n");
  }
  return out;
}

std::map<std::string, std::string> merged_indexes(const std::vector<packager::Manifest>& oldest_first,
                                                  const std::vector<std::string>& known_socs) {
  std::vector<PackagePieces> pieces;
  for (const auto& m : oldest_first) pieces.push_back(pieces_of(m));
  std::vector<const PackagePieces*> order;
  for (const auto& p : pieces) order.push_back(&p);
  return merged_indexes(order, known_socs);
}

}  // namespace skb::installer
