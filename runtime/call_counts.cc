#include "runtime/call_counts.h"

#include <fmt/format.h>
#include <algorithm>
#include <tuple>

namespace skb::runtime {

std::string op_of_kernel(const std::string& kernel_name) {
  std::size_t cut = kernel_name.rfind('_');
  return cut == std::string::npos ? kernel_name : kernel_name.substr(0, cut);
}

CallCount& CallCounts::row(const std::string& key, const std::string& op_type, const std::string& kernel) {
  if (auto it = rows_.find(key); it != rows_.end()) return it->second;
  if (rows_.size() >= kMaxRows) {
    CallCount& other = rows_["(other) "];
    other.op_type = "(other)";
    return other;
  }
  CallCount& r = rows_[key];
  r.op_type = op_type;
  r.kernel = kernel;
  return r;
}

void CallCounts::add_static(const std::string& kernel_name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = rows_.find(kernel_name); it != rows_.end()) {
    ++it->second.static_hits;
    return;
  }
  ++row(kernel_name, op_of_kernel(kernel_name), kernel_name).static_hits;
}

void CallCounts::add(const std::string& op_type, const std::string& kernel, Outcome outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  CallCount& r = row(kernel.empty() ? op_type + " " : kernel, op_type, kernel);
  ++(outcome == Outcome::kStatic ? r.static_hits : outcome == Outcome::kDynamic ? r.dynamic_fallbacks : r.no_kernel);
}

std::vector<CallCount> CallCounts::rows() const {
  std::vector<CallCount> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, r] : rows_) out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const CallCount& a, const CallCount& b) {
    return std::tie(a.op_type, a.kernel) < std::tie(b.op_type, b.kernel);
  });
  return out;
}

CallCount CallCounts::totals() const {
  CallCount sum;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, r] : rows_) {
    sum.static_hits += r.static_hits;
    sum.dynamic_fallbacks += r.dynamic_fallbacks;
    sum.no_kernel += r.no_kernel;
  }
  return sum;
}

void CallCounts::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  rows_.clear();
}

namespace {
std::string counted(const CallCount& c) {
  return fmt::format("{} static, {} dynamic, {} no kernel", c.static_hits, c.dynamic_fallbacks, c.no_kernel);
}
}  // namespace

std::string CallCounts::text() const {
  std::string out;
  for (const CallCount& r : rows())
    out += fmt::format("{} {}: {}\n", r.op_type, r.kernel.empty() ? "-" : r.kernel, counted(r));
  return out;
}

std::string CallCounts::summary() const { return "calls: " + counted(totals()); }

CallCounts& call_counts() {
  static CallCounts* counts = new CallCounts;  // never destroyed: read by exit-time flushes
  return *counts;
}

}  // namespace skb::runtime
