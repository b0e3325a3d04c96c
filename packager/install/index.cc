#include "packager/install/index.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/json_input.h"
#include "common/sha256.h"

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
  std::unordered_set<std::string> seen;  // each once: a set, not a search per name of a long list
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string name = list.substr(start, comma - start);
    if (packager::is_package_name(name) && seen.insert(name).second) out.push_back(name);
    start = comma + 1;
  }
  return out;
}

namespace {

// A list of entries, one a line; each entry is an index entry's text, to which `key` (when not
// empty) adds the opbase key as "simplifiedKey". An entry that has its key already (a line of an
// index written before) has none here.
struct ListEntry {
  std::string_view entry;
  std::string_view key;
};

void append_list(Rope& out, const std::vector<ListEntry>& entries) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    out.add(i ? ",\n  " : "\n  ");
    const ListEntry& e = entries[i];
    if (e.key.empty()) {
      out.add(e.entry);
      continue;
    }
    out.add(e.entry.substr(0, e.entry.size() - 1));
    out.add(",\"simplifiedKey\":");
    out.add(out.keep(Json(std::string(e.key)).dump()));
    out.add("}");
  }
  out.add(entries.empty() ? "]" : "\n ]");
}

// An op entry as the index lists it: its lists, and its valueDependIndex rendered ("[1,2]", or
// empty when it has none).
struct OpEntry {
  std::vector<ListEntry> static_list, skb_list;
  std::string value_depend;
};

std::string value_depend_text(const std::set<std::int64_t>& positions) {
  return positions.empty() ? std::string() : Json(std::vector<std::int64_t>(positions.begin(), positions.end())).dump();
}

// What render_index writes around an op entry's lists, and parse_written reads back.
constexpr std::string_view kOpHead = ": {\"dynamicRankSupport\": true, \"simplifiedKeyMode\": 0, \"skbList\": [";
constexpr std::string_view kStaticHead = ", \"staticList\": [";
constexpr std::string_view kValueDependHead = ", \"valueDependIndex\": ";
static_assert(kOpHead.find(kSkbListField) != std::string_view::npos);

// The document: JSON values rendered by nlohmann_json, one entry per line; ops in name order.
void render_index(const std::map<std::string_view, OpEntry>& ops, Rope& text) {
  text.add("{");
  bool first = true;
  for (const auto& [name, op] : ops) {
    text.add(first ? "\n " : ",\n ");
    first = false;
    text.add(text.keep(Json(std::string(name)).dump()));
    text.add(kOpHead);
    append_list(text, op.skb_list);
    text.add(kStaticHead);
    append_list(text, op.static_list);
    if (!op.value_depend.empty()) {
      text.add(kValueDependHead);
      text.add(text.keep(op.value_depend));
    }
    text.add("}");
  }
  text.add(first ? "}\n" : "\n}\n");
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
    std::map<std::string_view, OpEntry> ops;
    std::map<std::string_view, std::set<std::int64_t>> value_depend;
    const auto& owners = opbase_owner[soc];
    for (const auto& [key, k] : kernels) {
      OpEntry& op = ops[k->op];
      value_depend[k->op].insert(k->value_depend.begin(), k->value_depend.end());
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
    for (auto& [name, op] : ops) op.value_depend = value_depend_text(value_depend[name]);
    Rope text;
    render_index(ops, text);
    out[soc] = text.str();
  }
  return out;
}

namespace {

constexpr std::string_view kKeyField = "\"skbKey\":\"";
constexpr std::string_view kSimplifiedField = ",\"simplifiedKey\":";

// An op entry of an index that render_index wrote: its name (as it is in the text: one without
// escapes), its lists' lines (without indent and comma) and its valueDependIndex ("[1,2]" or empty).
struct WrittenOp {
  std::string_view name;
  std::vector<std::string_view> skb_list, static_list;
  std::string_view value_depend;
};

// render_index's text read back by its lines; nullopt when it is not as render_index writes it.
std::optional<std::vector<WrittenOp>> parse_written(std::string_view text) {
  std::vector<WrittenOp> ops;
  if (text == "{}\n") return ops;
  std::vector<std::string_view> lines;
  for (std::size_t start = 0, at; (at = text.find('\n', start)) != std::string_view::npos; start = at + 1)
    lines.push_back(text.substr(start, at - start));
  if (text.empty() || text.back() != '\n' || lines.size() < 3 || lines.front() != "{" || lines.back() != "}")
    return std::nullopt;
  const std::size_t end = lines.size() - 1;
  std::size_t n = 1;
  // A list whose "[" ended the line before: entry lines ("  {...}", each but the last with a
  // comma) up to " ]"; `rest`: what follows " ]".
  auto list = [&](std::vector<std::string_view>& out, std::string_view& rest) {
    bool comma = true;
    for (; n < end; ++n) {
      std::string_view l = lines[n];
      if (l.substr(0, 2) == " ]") {
        rest = l.substr(2);
        ++n;
        return !comma;
      }
      if (!comma || l.substr(0, 3) != "  {") return false;
      l.remove_prefix(2);
      comma = l.back() == ',';
      if (comma) l.remove_suffix(1);
      if (l.back() != '}') return false;
      out.push_back(l);
    }
    return false;
  };
  // After "[": an empty list ("]" on the same line) or a list of lines.
  auto list_after = [&](std::string_view& rest, std::vector<std::string_view>& out) {
    if (rest.empty()) return list(out, rest);
    if (rest[0] != ']') return false;
    rest.remove_prefix(1);
    return true;
  };
  while (n < end) {
    std::string_view l = lines[n++];
    if (l.substr(0, 2) != " \"") return std::nullopt;
    std::size_t quote = l.find('"', 2);
    if (quote == std::string_view::npos) return std::nullopt;
    WrittenOp op;
    op.name = l.substr(2, quote - 2);
    std::string_view rest = l.substr(quote + 1);
    if (op.name.find('\\') != std::string_view::npos || rest.substr(0, kOpHead.size()) != kOpHead) return std::nullopt;
    rest.remove_prefix(kOpHead.size());
    if (!list_after(rest, op.skb_list) || rest.substr(0, kStaticHead.size()) != kStaticHead) return std::nullopt;
    rest.remove_prefix(kStaticHead.size());
    if (!list_after(rest, op.static_list)) return std::nullopt;
    if (rest.substr(0, kValueDependHead.size()) == kValueDependHead) {
      rest.remove_prefix(kValueDependHead.size());
      std::size_t close = rest.find(']');
      if (close == std::string_view::npos || close < 2 || rest[0] != '[') return std::nullopt;
      op.value_depend = rest.substr(0, close + 1);
      rest.remove_prefix(close + 1);
    }
    bool more = rest == "},";
    if ((!more && rest != "}") || more == (n == end)) return std::nullopt;   // a comma when another op follows
    if (op.skb_list.empty() && op.static_list.empty()) return std::nullopt;  // every op entry has a kernel
    if (!ops.empty() && !(ops.back().name < op.name)) return std::nullopt;
    ops.push_back(std::move(op));
  }
  return ops;
}

// s.rfind(what), a byte compared before the rest (libstdc++'s calls memcmp at every position:
// a search per line of the library).
std::size_t last_of(std::string_view s, std::string_view what) {
  if (s.size() < what.size()) return std::string_view::npos;
  for (std::size_t at = s.size() - what.size() + 1; at-- > 0;)
    if (s[at] == what[0] && s.compare(at, what.size(), what) == 0) return at;
  return std::string_view::npos;
}

// Where text's last "skbKey" field starts (npos: none), found from the end by its 'K': few bytes
// of a line are one ("simplifiedKey", after it, has another), while every field has quotes.
std::size_t last_key_field(std::string_view text) {
  constexpr std::size_t kK = kKeyField.find('K');
  for (std::size_t k = text.size(); k > 0;) {
    const void* at = ::memrchr(text.data(), 'K', k);
    if (!at) break;
    k = static_cast<std::size_t>(static_cast<const char*>(at) - text.data());
    if (k >= kK && text.compare(k - kK, kKeyField.size(), kKeyField) == 0) return k - kK;
  }
  return std::string_view::npos;
}

// The skb key of an entry's text, or of an index line (an entry with its opbase key): its last
// "skbKey" (the entry's own, after launch's fields); empty when it has none.
std::string_view key_of(std::string_view entry) {
  std::size_t at = last_key_field(entry);
  if (at == std::string_view::npos) return {};
  std::string_view key = entry.substr(at + kKeyField.size(), 65);
  return key.size() == 65 && key.back() == '"' && common::is_sha256_hex(key.substr(0, 64)) ? key.substr(0, 64)
                                                                                           : std::string_view();
}

}  // namespace

std::optional<Rope> splice_index_parts(std::string old_text, const PackagePieces& fresh, const std::string& soc) {
  Rope out(std::move(old_text));
  const std::string_view old_index = out.base();
  // Fresh's kernels as merged_indexes takes them: the last piece of a key wins, and the last
  // kernel that has an opbase key owns it; fresh, installed last, wins over every older one.
  std::map<std::string_view, const IndexPiece*> winners;
  std::unordered_map<std::string_view, std::string_view> owner;
  for (const auto& k : fresh.kernels) {
    if (k.soc != soc) continue;
    winners[k.key] = &k;
    for (const auto& sk : k.simplified_keys) owner[sk] = k.key;
  }
  if (winners.empty()) {
    out.add(old_index);
    return out;
  }
  std::optional<std::vector<WrittenOp>> old = parse_written(old_index);
  if (!old) return std::nullopt;
  std::set<std::string, std::less<>> taken;  // fresh's opbase keys, as the index writes them
  for (const auto& [sk, key] : owner) taken.insert(Json(std::string(sk)).dump());

  // Each op's lines, by skb key: the old index's that stay, then fresh's.
  struct Keyed {
    std::string_view key;
    ListEntry entry;
  };
  struct Op {
    std::vector<Keyed> skb_list, static_list, demoted, fresh_skb, fresh_static;
    std::string_view old_value_depend;
    std::set<std::int64_t> fresh_value_depend;
    bool replaced = false;  // fresh replaces one of its kernels
  };
  std::map<std::string_view, Op> ops;
  for (const auto& o : *old) {
    Op& op = ops[o.name];
    op.old_value_depend = o.value_depend;
    op.skb_list.reserve(o.skb_list.size());
    op.static_list.reserve(o.static_list.size());
    std::string_view last;
    for (std::string_view l : o.skb_list) {
      std::string_view key = key_of(l);
      if (key.empty() || key <= last) return std::nullopt;
      last = key;
      if (winners.count(key))
        op.replaced = true;
      else
        op.skb_list.push_back({key, {l, {}}});
    }
    last = {};
    for (std::size_t i = 0; i < o.static_list.size();) {
      // The lines of one kernel: its entry, with each opbase key it owns.
      std::size_t at = last_of(o.static_list[i], kSimplifiedField);
      if (at == std::string_view::npos) return std::nullopt;
      std::string_view entry = o.static_list[i].substr(0, at);
      // Its lines all start so; what follows is a JSON string, which cannot hold the field again.
      std::string_view head = o.static_list[i].substr(0, at + kSimplifiedField.size());
      std::string_view key = key_of(entry);
      if (key.empty() || key <= last) return std::nullopt;
      last = key;
      bool replaced = winners.count(key) > 0, kept = false;
      op.replaced |= replaced;
      for (; i < o.static_list.size(); ++i) {
        std::string_view l = o.static_list[i];
        if (l.size() <= head.size() || l.compare(0, head.size(), head) != 0) break;
        std::string_view sk = l.substr(head.size(), l.size() - head.size() - 1);
        if (replaced || taken.count(sk)) continue;
        op.static_list.push_back({key, {l, {}}});
        kept = true;
      }
      if (!replaced && !kept) {  // every opbase key it had is fresh's now: listed for skb only
        op.demoted.push_back({key, {out.keep(std::string(entry) + "}"), {}}});
      }
    }
  }
  for (const auto& [key, k] : winners) {
    Op& op = ops[k->op];
    op.fresh_value_depend.insert(k->value_depend.begin(), k->value_depend.end());
    const std::string_view entry = out.keep(k->entry);  // the text may outlive fresh's pieces
    bool listed = false;
    for (const auto& sk : k->simplified_keys) {
      auto o = owner.find(sk);
      if (o == owner.end() || o->second != key) continue;
      op.fresh_static.push_back({key, {entry, sk}});
      listed = true;
    }
    if (!listed) op.fresh_skb.push_back({key, {entry, {}}});
  }

  auto by_key = [](const Keyed& a, const Keyed& b) { return a.key < b.key; };
  auto merged = [&](std::initializer_list<const std::vector<Keyed>*> lists) {
    std::vector<Keyed> all;
    std::size_t size = 0;
    for (const auto* l : lists) size += l->size();
    all.reserve(size);
    for (const auto* l : lists) {
      std::size_t mid = all.size();
      all.insert(all.end(), l->begin(), l->end());
      std::inplace_merge(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(mid), all.end(), by_key);
    }
    std::vector<ListEntry> in_order;
    in_order.reserve(all.size());
    for (const auto& k : all) in_order.push_back(k.entry);
    return in_order;
  };
  std::map<std::string_view, OpEntry> entries;
  for (auto& [name, op] : ops) {
    if (op.skb_list.empty() && op.demoted.empty() && op.fresh_skb.empty() && op.static_list.empty() &&
        op.fresh_static.empty())
      continue;  // fresh took its every kernel (under another op)
    OpEntry& e = entries[name];
    e.skb_list = merged({&op.skb_list, &op.demoted, &op.fresh_skb});
    e.static_list = merged({&op.static_list, &op.fresh_static});
    if (op.replaced && !op.old_value_depend.empty()) return std::nullopt;
    if (op.fresh_value_depend.empty()) {
      e.value_depend = std::string(op.old_value_depend);
      continue;
    }
    std::set<std::int64_t> positions = op.fresh_value_depend;
    if (!op.old_value_depend.empty()) try {
        for (const auto& v : Json::parse(op.old_value_depend)) positions.insert(v.get<std::int64_t>());
      } catch (const std::exception&) {
        return std::nullopt;
      }
    e.value_depend = value_depend_text(positions);
  }
  render_index(entries, out);
  return out;
}

std::optional<std::string> splice_index(std::string_view old_index, const PackagePieces& fresh,
                                        const std::string& soc) {
  std::optional<Rope> text = splice_index_parts(std::string(old_index), fresh, soc);
  if (!text) return std::nullopt;
  return text->str();
}

std::unordered_map<std::string, std::string> listed_bins(std::string_view index,
                                                         const std::unordered_set<std::string_view>& keys) {
  constexpr std::string_view kBin = "\"binPath\":\"";
  std::unordered_map<std::string, std::string> out;
  for (std::size_t start = 0, end; start < index.size() && out.size() < keys.size(); start = end + 1) {
    end = std::min(index.find('\n', start), index.size());
    std::string_view line = index.substr(start, end - start);
    if (line.substr(0, 3) != "  {") continue;  // an entry's line
    std::string_view key = key_of(line);
    if (key.empty() || !keys.count(key) || out.count(std::string(key))) continue;
    std::size_t bin = line.find(kBin);
    std::size_t close = bin == std::string_view::npos ? bin : line.find('"', bin + kBin.size());
    if (close != std::string_view::npos) out.emplace(key, line.substr(bin + kBin.size(), close - bin - kBin.size()));
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
