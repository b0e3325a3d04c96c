#pragma once
#include <string>

#include "opmodel/op_record.h"
#include "runtime/index_reader.h"
#include "runtime/nearest.h"

namespace skb::runtime {

/// What skb_runtime_find answers for one checked call, and why, in one line: the account both
/// skb_runtime_explain and `skb coverage` give, so the two never drift apart. Reads the library
/// (each kernel's .info, through `signatures`) only for a call without a static kernel.
struct Answer {
  enum class Kind { kStatic, kDynamic, kNone } kind = Kind::kNone;
  /// Begins with the op type: the static kernel and its package; or why there is none (refused
  /// as unsupported, withheld by payoff evidence, a kernel whose launch cannot carry the call, or
  /// the nearest installed kernel and the first field that differs), then whether the dynamic
  /// kernel of its op and dtypes serves it.
  std::string why;
};
Answer answer(const Index& index, const opmodel::OpRecord& call, InstalledSignatures& signatures);

}  // namespace skb::runtime
