#pragma once
#include <cstdint>
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
};

/// Validates a compiler's sidecar document: an unsigned `blockDim` (or `runInfo.blockDim`), a
/// `kernelName` that is a C symbol, and an optional `workspace` (an array of sizes, or an object
/// with `size`). Throws common::FieldError with the JSON pointer of the first bad field.
Sidecar parse_sidecar(const common::Json& doc);

}  // namespace skb::generator
