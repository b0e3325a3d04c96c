#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json_input.h"

namespace skb::generator {

/// What a compiler says of a kernel it built, in its own JSON beside the binary (CANN's compiler:
/// `blockDim`, `kernelName`, `workspace`, `platformInfo`, ...): the fields the operator library's
/// index takes from it. Other fields are kept in the file, not read.
struct Sidecar {
  std::uint32_t block_dim = 0;
  std::string kernel_name;
  std::vector<std::int64_t> workspace;
  std::optional<int> core_type;  // the index's integer coreType, when the JSON says the kernel's kind
};

/// The index's integer coreType of a kernel JSON's `coreType` name, as opbase maps them
/// (g_nnopbaseKernelTypeMap onto the individual engine's CoreType: kMix 0, kAicore 1,
/// kVectorcore 2, kMixAiCore 3, kMixAiv 4); nullopt for a name opbase does not know.
std::optional<int> opbase_core_type(const std::string& name);

/// Validates a compiler's sidecar document as opbase reads it (UpdateRunInfoForStaticJson): the
/// block dim is `runInfo.block_dim` when there is a `runInfo`, else `blockDim` (unsigned); a
/// `kernelName` that is a C symbol; an optional `workspace` (an array of sizes, or an object with
/// `size`); an optional `coreType` that opbase knows. Throws common::FieldError with the JSON
/// pointer of the first bad field.
Sidecar parse_sidecar(const common::Json& doc);

}  // namespace skb::generator
