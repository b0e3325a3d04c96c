#pragma once
#include <cstddef>
#include <filesystem>

#include "packager/collect.h"
#include "packager/format/payoff_evidence.h"

namespace skb::packager {

/// The evidence file of skb-package --payoff; throws Error naming the file and, for a document
/// that is not valid evidence, the JSON pointer of the first bad field.
Payoff read_payoff_file(const std::filesystem::path& file);

/// Leaves out of c the static kernels the evidence found slower, each matched by its key and the
/// SHA-256 of its bytes (a kernel rebuilt since stays), with all their files, and records each in
/// the manifest's left_out with why; the verdicts of the kernels it keeps go into its measured.
/// Returns how many it left out.
std::size_t leave_out_slower(Collected& c, const Payoff& evidence);

}  // namespace skb::packager
