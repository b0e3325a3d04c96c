#include "explain/build_explain.h"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "common/fs.h"
#include "generator/ninja_writer.h"
#include "opmodel/op_record.h"
#include "store/module.h"

namespace skb::explain {
using common::Error;
using common::Field;
using common::Json;
using generator::KeyFactors;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    std::size_t end = std::min(s.find('\n', at), s.size());
    out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// Two multi-line values (a compiler's identity) by the first line where they differ: "line 3:
// "x" → "y"", or the line alone when it is the first.
std::string line_change(const std::string& a, const std::string& b) {
  std::vector<std::string> la = lines_of(a), lb = lines_of(b);
  std::size_t i = 0;
  while (i < la.size() && i < lb.size() && la[i] == lb[i]) ++i;
  auto at = [](const std::vector<std::string>& l, std::size_t n) {
    return n >= l.size() ? std::string("(no such line)") : l[n].empty() ? std::string("(empty)") : l[n];
  };
  return fmt::format("{}\"{}\" → \"{}\"", i == 0 ? "" : fmt::format("line {}: ", i + 1), at(la, i), at(lb, i));
}

std::string join_words(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& s : w) out += (out.empty() ? "" : " ") + s;
  return out;
}

// "-O3 removed, -O2 added": the words of one list that are not in the other.
std::string word_changes(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> parts;
  for (const auto& w : a)
    if (std::find(b.begin(), b.end(), w) == b.end()) parts.push_back(w + " removed");
  for (const auto& w : b)
    if (std::find(a.begin(), a.end(), w) == a.end()) parts.push_back(w + " added");
  if (parts.empty()) return "the same words in another order: " + join_words(a) + " → " + join_words(b);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

KeyFactors read_factors(const Json& doc, const std::string& where) {
  try {
    return generator::parse_key_factors(doc);
  } catch (const common::FieldError& e) {
    throw Error(fmt::format("{}: {}", where, e.describe()));
  }
}

}  // namespace

KernelSet read_build(const fs::path& dir) {
  KernelSet set;
  set.where = dir.string();
  fs::path plan_path = dir / "plan.json";
  auto text = common::read_file_if_exists(plan_path, 256 << 20);
  if (!text) throw Error(fmt::format("{}: no plan.json: not a build folder of skb-generate", dir.string()));
  Json plan;
  try {
    plan = common::parse_json(*text);
    Field root(plan, "");
    set.identity = root.at("toolchain_identity").string(64);
    Field kernels = root.at("kernels");
    std::size_t n = kernels.array_size(std::size_t(1) << 24);
    set.kernels.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      Field k = kernels.at(i);
      KernelSet::Kernel kernel{k.at("name").string(), k.at("op_type").string(), k.at("variant").string(), ""};
      if (!opmodel::is_identifier(kernel.name)) k.at("name").fail("a kernel name of [A-Za-z0-9_]");
      set.kernels.push_back(std::move(kernel));
    }
  } catch (const common::FieldError& e) {
    throw Error(fmt::format("{}: {}", plan_path.string(), e.describe()));
  }
  fs::path key_path = dir / generator::kKeyFile;
  if (auto key = common::read_file_if_exists(key_path, 1 << 20)) {
    Json doc;
    try {
      doc = common::parse_json(*key);
    } catch (const common::FieldError& e) {
      throw Error(fmt::format("{}: {}", key_path.string(), e.describe()));
    }
    set.factors = read_factors(doc, key_path.string());
    if (set.factors->identity() != set.identity)
      throw Error(fmt::format("{}: its identity is not plan.json's ({}): regenerate the build folder",
                              key_path.string(), set.identity));
  }
  fs::path kdir = dir / generator::kKernelDir;
  for (auto& k : set.kernels) {
    if (auto sig = common::read_file_if_exists(kdir / (k.name + ".info"), 1 << 24)) {
      while (!sig->empty() && sig->back() == '\n') sig->pop_back();
      k.signature = std::move(*sig);
    }
  }
  return set;
}

KernelSet read_entry(const fs::path& file) {
  KernelSet set;
  set.where = file.string();
  set.entry = true;
  store::EntryFiles files;
  try {
    files = store::store_module().unpack_entry(common::read_file(file, std::size_t(1) << 30));
  } catch (const store::BadEntry& e) {
    throw Error(fmt::format("{}: not a kernel store entry: {}", file.string(), e.what()));
  }
  KernelSet::Kernel k;
  try {
    Json record = common::parse_json(files.record);
    Field root(record, "");
    k.name = root.at("name").string();
    k.op_type = root.at("op_type").string();
    k.variant = root.at("variant").string();
    set.identity = root.at("toolchain").string(64);
  } catch (const common::FieldError& e) {
    throw Error(fmt::format("{}: build.json: {}", file.string(), e.describe()));
  }
  if (files.key) {
    Json key;
    try {
      key = common::parse_json(*files.key);
      Field root(key, "");
      root.at("signature").expect_object();
      k.signature = key["signature"].dump();
    } catch (const common::FieldError& e) {
      throw Error(fmt::format("{}: key.json: {}", file.string(), e.describe()));
    }
    set.factors = read_factors(key["factors"], file.string() + ": key.json /factors");
  }
  set.kernels.push_back(std::move(k));
  return set;
}

KernelSet read_side(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_build(path);
  if (fs::is_regular_file(path, ec)) return read_entry(path);
  throw Error(fmt::format("{}: no such build folder or store entry", path.string()));
}

std::vector<std::string> factor_changes(const KeyFactors& a, const KeyFactors& b) {
  std::vector<std::string> out;
  if (a.identify != b.identify) out.push_back("compiler: " + line_change(a.identify, b.identify));
  if (a.flags != b.flags) out.push_back("flags: " + word_changes(a.flags, b.flags));
  if (a.command != b.command) out.push_back("command: " + word_changes(a.command, b.command));
  if (a.link != b.link) out.push_back("link: " + word_changes(a.link, b.link));
  auto scalar = [&out](const char* what, const std::string& x, const std::string& y) {
    if (x != y) out.push_back(fmt::format("{}: \"{}\" → \"{}\"", what, x, y));
  };
  scalar("suffix", a.suffix, b.suffix);
  scalar("entry", a.entry, b.entry);
  scalar("dynamic_entry", a.dynamic_entry, b.dynamic_entry);
  scalar("list_separator", a.list_separator, b.list_separator);
  for (const auto& [name, hash] : a.headers) {
    auto it = b.headers.find(name);
    if (it == b.headers.end())
      out.push_back(fmt::format("header {}: removed", name));
    else if (it->second != hash)
      out.push_back(fmt::format("header {}: its bytes changed", name));
  }
  for (const auto& [name, hash] : b.headers)
    if (!a.headers.count(name)) out.push_back(fmt::format("header {}: added", name));
  return out;
}

BuildExplanation explain_builds(const KernelSet& a, const KernelSet& b) {
  BuildExplanation e;
  e.where_a = a.where;
  e.where_b = b.where;
  e.kernels_a = a.kernels.size();
  e.kernels_b = b.kernels.size();
  bool both_factors = a.factors && b.factors;
  e.against_entry = a.entry != b.entry;
  if (a.identity != b.identity) {
    if (both_factors)
      e.toolchain_changes = factor_changes(*a.factors, *b.factors);
    else
      e.toolchain_changes.push_back(fmt::format(
          "toolchain identity {} → {} (a side keeps no key.json: rebuild it with this skb to name the factor)",
          a.identity.substr(0, 16), b.identity.substr(0, 16)));
  }
  auto one_side = [&](const KernelSet& self, const KernelSet& other, char side) {
    std::unordered_set<std::string> names;
    std::unordered_map<std::string, const KernelSet::Kernel*> by_signature;
    names.reserve(other.kernels.size());
    by_signature.reserve(other.kernels.size());
    for (const auto& k : other.kernels) {
      names.insert(k.name);
      if (!k.signature.empty()) by_signature.emplace(k.signature, &k);
    }
    std::size_t both = 0;
    for (const auto& k : self.kernels) {
      if (names.count(k.name)) {
        ++both;
        continue;
      }
      KernelDiff d{side, k.name, k.op_type, "", "", {}};
      auto it = k.signature.empty() ? by_signature.end() : by_signature.find(k.signature);
      if (it != by_signature.end()) {
        d.counterpart = it->second->name;
        d.cause = "toolchain";
        d.factors = e.toolchain_changes;
        if (both_factors) {
          auto ta = self.factors->templates.find(k.op_type), tb = other.factors->templates.find(k.op_type);
          if (ta != self.factors->templates.end() && tb != other.factors->templates.end() && ta->second != tb->second) {
            const auto& [file_a, hash_a] = side == 'a' ? ta->second : tb->second;
            const auto& [file_b, hash_b] = side == 'a' ? tb->second : ta->second;
            d.factors.push_back(file_a == file_b ? fmt::format("template {}: its bytes changed", file_a)
                                                 : fmt::format("template: {} → {}", file_a, file_b));
          }
        }
      } else if (k.signature.empty() || (other.kernels.size() > 0 && by_signature.empty())) {
        d.cause = "unknown";
        d.factors = e.toolchain_changes;
        d.factors.push_back("a side keeps no signatures to compare");
      } else {
        d.cause = "records";
        d.factors.push_back(fmt::format("no record of {} has its signature", side == 'a' ? "b" : "a"));
      }
      e.kernels.push_back(std::move(d));
    }
    return both;
  };
  // Against one store entry, only the entry's kernel is in question.
  if (b.entry && !a.entry) {
    e.in_both = one_side(b, a, 'b');
  } else if (a.entry && !b.entry) {
    e.in_both = one_side(a, b, 'a');
  } else {
    e.in_both = one_side(a, b, 'a');
    one_side(b, a, 'b');
  }
  return e;
}

std::string build_text(const BuildExplanation& e) {
  std::size_t only_a = 0, only_b = 0;
  std::map<std::string, std::size_t> by_cause;
  for (const auto& k : e.kernels) {
    ++(k.side == 'a' ? only_a : only_b);
    if (k.side == 'a' || k.counterpart.empty() || e.against_entry) ++by_cause[k.cause];  // a pair counts once
  }
  std::string out = fmt::format("a: {} ({} kernel{})\nb: {} ({} kernel{})\n", e.where_a, e.kernels_a,
                                e.kernels_a == 1 ? "" : "s", e.where_b, e.kernels_b, e.kernels_b == 1 ? "" : "s");
  out += fmt::format("in both: {}; only in a: {}; only in b: {}\n", e.in_both, only_a, only_b);
  if (e.kernels.empty()) {
    out += e.against_entry ? "the entry's kernel is in the build\n" : "the same kernels\n";
    return out;
  }
  if (!e.toolchain_changes.empty()) {
    out += "the toolchain changed:\n";
    for (const auto& c : e.toolchain_changes) out += "  " + c + "\n";
  }
  for (const auto& [cause, n] : by_cause) {
    const char* what = cause == "toolchain" ? "the same record, another name: a factor of the toolchain or template"
                       : cause == "records" ? "a record only one side has"
                                            : "not known: a side keeps no signatures";
    out += fmt::format("{} kernel{}: {}\n", n, n == 1 ? "" : "s", what);
  }
  for (const auto& k : e.kernels) {
    if (k.side == 'b' && !k.counterpart.empty() && !e.against_entry) continue;  // shown with its a-side twin
    char other = k.side == 'a' ? 'b' : 'a';
    std::string line = k.counterpart.empty() ? fmt::format("  {} {}", k.side, k.name)
                                             : fmt::format("  {} {} = {} {}", k.side, k.name, other, k.counterpart);
    std::string why;
    for (const auto& f : k.factors) why += (why.empty() ? "" : "; ") + f;
    out += line + ": " + why + "\n";
  }
  return out;
}

Json build_json(const BuildExplanation& e) {
  Json kernels = Json::array();
  for (const auto& k : e.kernels)
    kernels.push_back({{"side", std::string(1, k.side)},
                       {"name", k.name},
                       {"op_type", k.op_type},
                       {"counterpart", k.counterpart.empty() ? Json() : Json(k.counterpart)},
                       {"cause", k.cause},
                       {"factors", k.factors}});
  return Json{{"kind", "builds"},
              {"same", e.kernels.empty()},
              {"a", {{"where", e.where_a}, {"kernels", e.kernels_a}}},
              {"b", {{"where", e.where_b}, {"kernels", e.kernels_b}}},
              {"in_both", e.in_both},
              {"toolchain_changes", e.toolchain_changes},
              {"kernels", std::move(kernels)}};
}

}  // namespace skb::explain
