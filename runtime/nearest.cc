#include "runtime/nearest.h"

#include <fmt/format.h>
#include <tuple>

#include "common/fs.h"
#include "common/json_diff.h"

namespace skb::runtime {
using common::Json;

namespace {

// How far an installed kernel is from a call: fields that are not shapes (a dtype, a format, an
// attr) first, then shapes of another rank, then dims; the smallest is the nearest.
struct Distance {
  std::size_t other = 0, ranks = 0, dims = 0;
  bool operator<(const Distance& d) const { return std::tie(other, ranks, dims) < std::tie(d.other, d.ranks, d.dims); }
};

Distance distance(const std::vector<common::FieldDiff>& diff) {
  Distance d;
  for (const auto& f : diff) {
    const std::string& p = f.pointer;
    if (p.size() >= 6 && p.compare(p.size() - 6, 6, "/shape") == 0)
      ++d.ranks;
    else if (p.find("/shape/") != std::string::npos)
      ++d.dims;
    else
      ++d.other;
  }
  return d;
}

}  // namespace

namespace {

// An installed kernel's signature, from its .info; null when it cannot be read (an explanation
// skips what it cannot read).
Json read_signature(const IndexEntry& entry) {
  std::filesystem::path info = entry.bin;
  info.replace_extension(".info");
  try {
    auto text = common::read_file_if_exists(info, 1 << 24, common::Accept::kRegularFile);
    if (text) return common::parse_json(*text);
  } catch (const std::exception&) {
  }
  return nullptr;
}

}  // namespace

const Json* InstalledSignatures::get(const IndexEntry& entry) {
  auto it = by_key_.find(entry.key);
  if (it == by_key_.end()) it = by_key_.emplace(entry.key, read_signature(entry)).first;
  return it->second.is_null() ? nullptr : &it->second;
}

std::string explain_miss(const Index& index, const opmodel::OpRecord& call) {
  InstalledSignatures once;
  return explain_miss(index, call, once);
}

std::string explain_miss(const Index& index, const opmodel::OpRecord& call, InstalledSignatures& signatures) {
  Json called = common::parse_json(opmodel::canonical_signature(call));
  const IndexEntry* best = nullptr;
  std::vector<common::FieldDiff> best_diff;
  Distance best_distance;
  std::size_t candidates = 0;
  for (const auto& [key, entry] : index.by_key) {
    if (entry.op_type != call.op_type || entry.variant == "dynamic") continue;
    const Json* installed = signatures.get(entry);
    if (!installed) continue;
    ++candidates;
    std::vector<common::FieldDiff> diff = common::diff_json(*installed, called);
    Distance d = distance(diff);
    if (!best || d < best_distance || (!(best_distance < d) && entry.kernel_name < best->kernel_name)) {
      best = &entry;
      best_diff = std::move(diff);
      best_distance = d;
    }
  }
  if (!best) return fmt::format("{}: no static kernel of this op is installed for SoC {}", call.op_type, index.soc);
  if (best_diff.empty())
    return fmt::format("{}: static kernel {} (package {})", call.op_type, best->kernel_name, best->package);
  const common::FieldDiff& first = best_diff.front();
  return fmt::format(
      "{}: no static kernel for this call; nearest of {} installed: {} (package {}), {} field{} differ{}; first "
      "{}: installed {}, called {}",
      call.op_type, candidates, best->kernel_name, best->package, best_diff.size(), best_diff.size() == 1 ? "" : "s",
      best_diff.size() == 1 ? "s" : "", first.pointer, common::show_value(first.a, first.in_a),
      common::show_value(first.b, first.in_b));
}

}  // namespace skb::runtime
