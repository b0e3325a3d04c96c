#pragma once
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "generator/plan.h"
#include "generator/toolchain.h"

namespace skb::generator {

/// Everything build.ninja is made of besides the plan.
struct ManifestInputs {
  std::filesystem::path skb_generate;                 // absolute path of this program
  std::vector<std::string> regenerate_args;           // arguments that rerun this generation
  std::vector<std::filesystem::path> regen_inputs;    // folders and files whose change reruns it
  std::filesystem::path skb_package;                  // empty: no packaging step
  std::vector<std::string> package_args;              // extra arguments of the packaging step
  std::vector<std::filesystem::path> package_inputs;  // files it reads besides the kernels (base, payoff, key)
  bool cache = false;                                 // the build has a kernel store: a report step
  bool quiet = false;                                 // the report step prints errors only
  /// Who builds, when builders may share a store ("" otherwise): the compile edges are declared
  /// from a point of the plan this names, so that builders that start together on one plan each
  /// begin with other kernels (ninja runs ready edges in the order they are declared) and claim
  /// different ones first, instead of all waiting on the first one's claimant.
  std::string builder;
  /// Kernels the generation already took from the store (Options::lookup_now): no compile edge,
  /// and no lookup step (the store was looked in).
  std::optional<std::set<std::string>> prebuilt;
};

/// The kernel folder inside OUT.
inline constexpr const char* kKernelDir = "kernel_meta";
/// The factors of the build's kernel names (key_factors.h), beside plan.json.
inline constexpr const char* kKeyFile = "key.json";

/// The text of build.ninja: a self-regenerating generator edge (restat, write-if-changed),
/// one compile edge per kernel, then (with skb_package) the packaging step: package.json from
/// every kernel record through an rspfile, in a pool of depth 1; with a kernel store, the step
/// that reports what the store did (cache/stats.json). `all` is the default.
/// Byte-stable for the same inputs.
std::string write_manifest(const Plan& plan, const Toolchain& toolchain, const ManifestInputs& in);

}  // namespace skb::generator
