#pragma once
#include <string>

#include "common/json_input.h"
#include "generator/plan.h"
#include "generator/scan.h"

namespace skb::generator {

/// OUT/summary.json: files_scanned, files_rejected [{file, error}], records, distinct_kernels,
/// planned {op: n}, unsupported {op: n}, unsupported_reason {op: why},
/// shapes_unchecked {op: n} (distinct records of ops without shape rules), kernels, toolchain, soc;
/// with a kernel store, cache: the last build's counts (null before the first build).
std::string summary_json(const ScanResult& scan, const Plan& plan, const Toolchain& toolchain,
                         const common::Json* cache = nullptr);

/// Two or three lines for people.
std::string summary_text(const ScanResult& scan, const Plan& plan);

}  // namespace skb::generator
