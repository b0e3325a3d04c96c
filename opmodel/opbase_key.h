#pragma once
#include <optional>
#include <string>

#include "opmodel/op_record.h"

namespace skb::opmodel {

/// A static kernel's key in opbase's own string form (`simplifiedKey` of
/// binary_info_config.json), from its record:
///   <OpType>/d=<0|1>,p=<impl mode index>/<slot>/.../<attr>/...
/// with one group per input and output tensor in order (`_` for an absent slot, each tensor of a
/// list its own group): `<dtype>,<format>,(<dims>)` in GE's enum numbers, the storage shape, a
/// view's `,(<strides>),<offset>` when the call is made on a view, and a value-depend input's
/// values as `,[...]`; then each attr's little-endian bytes as 8-byte words (lists in `[...]`).
/// Every number is lower-case hex. opbase turns the string into bytes and compares them with the
/// bytes it builds from the call at run time, so the two must agree byte for byte.
///
/// Nothing when the record holds what the form cannot say: a dtype or format GE does not
/// number, an impl mode opbase does not know (or whose index is above 2), a value-depend input
/// without values.
std::optional<std::string> opbase_simplified_key(const OpRecord& record);

/// The index of an impl mode in opbase's OpImplMode flags (ffs(mode) - 1): "" and "default" 0,
/// "high_performance" 1, "high_precision" 2, ...; nothing for a mode opbase does not name.
std::optional<int> opbase_impl_mode_index(const std::string& impl_mode);

}  // namespace skb::opmodel
