#include "generator/summary.h"

#include <fmt/format.h>

namespace skb::generator {

std::string summary_json(const ScanResult& scan, const Plan& plan, const Toolchain& tc, const common::Json* cache) {
  common::Json rejected = common::Json::array();
  for (const auto& r : scan.rejected) rejected.push_back({{"file", r.file}, {"error", r.error}});
  std::size_t statics = 0;
  for (const auto& [op, n] : plan.planned) statics += n;
  common::Json j = {{"files_scanned", scan.files_scanned},
                    {"files_rejected", std::move(rejected)},
                    {"records", scan.records},
                    {"distinct_kernels", plan.distinct_kernels},
                    {"planned", plan.planned},
                    {"planned_total", statics},
                    {"unsupported", plan.unsupported},
                    {"unsupported_reason", plan.unsupported_reason},
                    {"unsupported_file", plan.unsupported_file},
                    {"shapes_unchecked", plan.shapes_unchecked},
                    {"kernels", plan.kernels.size()},
                    {"toolchain", {{"name", tc.name}, {"profile", tc.profile.string()}, {"identity", tc.identity}}},
                    {"soc", tc.soc}};
  if (cache) j["cache"] = *cache;
  return j.dump(2) + "\n";
}

std::string summary_text(const ScanResult& scan, const Plan& plan) {
  std::size_t planned = 0, unsupported = 0;
  for (const auto& [op, n] : plan.planned) planned += n;
  for (const auto& [op, n] : plan.unsupported) unsupported += n;
  std::string text =
      fmt::format("{} files, {} rejected, {} records: {} distinct kernels, {} planned, {} unsupported",
                  scan.files_scanned, scan.rejected.size(), scan.records, plan.distinct_kernels, planned, unsupported);
  if (!plan.unsupported.empty()) {
    text += " (";
    bool first = true;
    for (const auto& [op, n] : plan.unsupported) {
      text += fmt::format("{}{} {}: {}", first ? "" : "; ", op, n, plan.unsupported_reason.at(op));
      first = false;
    }
    text += ")";
  }
  if (!plan.shapes_unchecked.empty()) {
    text += "; shapes not checked (no rules for the op):";
    for (const auto& [op, n] : plan.shapes_unchecked) text += fmt::format(" {} {}", op, n);
  }
  return text;
}

}  // namespace skb::generator
