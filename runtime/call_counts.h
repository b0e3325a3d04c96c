#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace skb::runtime {

/// What skb_runtime_find gave one call.
enum class Outcome { kStatic, kDynamic, kNone };

/// The calls of one op served by one kernel ("" for calls that found none), by outcome.
struct CallCount {
  std::string op_type, kernel;
  std::uint64_t static_hits = 0, dynamic_fallbacks = 0, no_kernel = 0;
};

/// Calls counted per op and kernel, for the whole process: thread-safe, and bounded (past
/// kMaxRows distinct op and kernel pairs, further ones are counted under op "(other)").
class CallCounts {
 public:
  static constexpr std::size_t kMaxRows = 1 << 16;

  /// A static hit, by kernel name alone (<OpType>_<hash>): the hot path, no allocation once seen.
  void add_static(const std::string& kernel_name);
  void add(const std::string& op_type, const std::string& kernel, Outcome outcome);

  /// Every row, sorted by op then kernel; and their sum (op and kernel empty).
  std::vector<CallCount> rows() const;
  CallCount totals() const;
  void clear();

  /// One line per row: "MatMulV2 MatMulV2_0f3c...: 12 static, 0 dynamic, 0 no kernel".
  std::string text() const;
  /// One line for all: "calls: 12 static, 3 dynamic, 1 no kernel".
  std::string summary() const;

 private:
  CallCount& row(const std::string& key, const std::string& op_type, const std::string& kernel);

  mutable std::mutex mu_;
  std::unordered_map<std::string, CallCount> rows_;  // by kernel name, or "<op> " for no kernel
};

/// The process's counts, which the C API reads.
CallCounts& call_counts();

/// The op type of a kernel name <OpType>_<hash>.
std::string op_of_kernel(const std::string& kernel_name);

}  // namespace skb::runtime
