#include "runtime/nearest.h"

#include <fmt/format.h>
#include <limits>

#include "common/fs.h"
#include "common/json_diff.h"

namespace skb::runtime {
using common::Json;

std::string explain_miss(const Index& index, const opmodel::OpRecord& call) {
  Json called = common::parse_json(opmodel::canonical_signature(call));
  const IndexEntry* best = nullptr;
  std::vector<common::FieldDiff> best_diff;
  std::size_t candidates = 0;
  for (const auto& [key, entry] : index.by_key) {
    if (entry.op_type != call.op_type || entry.variant == "dynamic") continue;
    std::filesystem::path info = entry.bin;
    info.replace_extension(".info");
    Json installed;
    try {
      auto text = common::read_file_if_exists(info, 1 << 24);
      if (!text) continue;
      installed = common::parse_json(*text);
    } catch (const std::exception&) {
      continue;  // an explanation skips what it cannot read
    }
    ++candidates;
    std::vector<common::FieldDiff> diff = common::diff_json(installed, called);
    if (!best || diff.size() < best_diff.size() ||
        (diff.size() == best_diff.size() && entry.kernel_name < best->kernel_name)) {
      best = &entry;
      best_diff = std::move(diff);
    }
  }
  if (!best) return fmt::format("{}: no static kernel of this op is installed for SoC {}", call.op_type, index.soc);
  if (best_diff.empty()) return fmt::format("{}: static kernel {} (package {})", call.op_type, best->kernel_name,
                                            best->package);
  const common::FieldDiff& first = best_diff.front();
  return fmt::format(
      "{}: no static kernel for this call; nearest of {} installed: {} (package {}), {} field{} differ{}; first "
      "{}: installed {}, called {}",
      call.op_type, candidates, best->kernel_name, best->package, best_diff.size(), best_diff.size() == 1 ? "" : "s",
      best_diff.size() == 1 ? "s" : "", first.pointer, common::show_value(first.a, first.in_a),
      common::show_value(first.b, first.in_b));
}

}  // namespace skb::runtime
