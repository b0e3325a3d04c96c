#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json_input.h"
#include "generator/key_factors.h"

namespace skb::explain {

/// The kernels of one side of a comparison, each with what named it: a build folder (plan.json,
/// key.json, kernel_meta/<name>.info) or one kernel store entry (its build.json and key.json).
struct KernelSet {
  struct Kernel {
    std::string name, op_type, variant, signature;  // signature: "" when the side does not keep it
  };
  std::string where;
  bool entry = false;                            // one store entry: only its kernel is in question
  std::string identity;                          // the toolchain identity
  std::optional<generator::KeyFactors> factors;  // none: a build or entry made before key.json
  std::vector<Kernel> kernels;
};

/// Reads a build folder. Throws common::Error naming the file and field that is missing or bad.
KernelSet read_build(const std::filesystem::path& dir);
/// Reads one entry of a kernel store (a file of a file:// store).
KernelSet read_entry(const std::filesystem::path& file);
/// A folder is a build, a file an entry.
KernelSet read_side(const std::filesystem::path& path);

/// A kernel in one side and not the other, and which factor of its key changed.
struct KernelDiff {
  char side = 'a';  // where it is
  std::string name, op_type;
  std::string counterpart;  // the other side's kernel of the same signature, "" when none
  /// "records" (the other side has no call with this signature), "toolchain" (what changed is
  /// in `factors`), or "unknown" (a side keeps no signatures).
  std::string cause;
  std::vector<std::string> factors;
};

struct BuildExplanation {
  std::string where_a, where_b;
  std::size_t kernels_a = 0, kernels_b = 0, in_both = 0;
  bool against_entry = false;                  // one side is a store entry: only its kernel is compared
  std::vector<std::string> toolchain_changes;  // every factor of the shared identity that differs
  std::vector<KernelDiff> kernels;             // a's only, then b's only, each by name
};

/// Compares two sides. Linear in their kernels.
BuildExplanation explain_builds(const KernelSet& a, const KernelSet& b);

/// What differs between two toolchains' factors, one line each ("flags: -O3 removed, -O2 added").
std::vector<std::string> factor_changes(const generator::KeyFactors& a, const generator::KeyFactors& b);

std::string build_text(const BuildExplanation& e);
common::Json build_json(const BuildExplanation& e);

}  // namespace skb::explain
