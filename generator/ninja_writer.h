#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "generator/plan.h"
#include "generator/toolchain.h"

namespace skb::generator {

/// Everything build.ninja is made of besides the plan.
struct ManifestInputs {
  std::filesystem::path skb_generate;               // absolute path of this program
  std::vector<std::string> regenerate_args;         // arguments that rerun this generation
  std::vector<std::filesystem::path> regen_inputs;  // folders and files whose change reruns it
};

/// The kernel folder inside OUT.
inline constexpr const char* kKernelDir = "kernel_meta";

/// The text of build.ninja: a self-regenerating generator edge (restat, write-if-changed),
/// one compile edge per kernel, `all` as default. Byte-stable for the same inputs.
std::string write_manifest(const Plan& plan, const Toolchain& toolchain, const ManifestInputs& in);

}  // namespace skb::generator
