#pragma once
#include <optional>
#include <string>
#include <vector>

#include "opmodel/op_record.h"

namespace skb::opmodel {

/// The two parts of opbase that look a static kernel up, each building its own key for a call:
/// the composite engine serves op_api's l0 ops (the built-in aclnn ops: OpKernel::
/// GenerateStaticParam, then NnopbaseCollectorGenStaticKey), the individual engine serves
/// generated aclnn code (NnopbaseExecutorGenTensorsKey, NnopbaseExecutorGenAttrsKey).
enum class OpbaseEngine { kComposite, kIndividual };

/// A static kernel's key as one engine builds it, in opbase's string form (`simplifiedKey` of
/// binary_info_config.json), for impl mode index `impl_index` (the `p=` of the key):
///   <OpType>/d=<0|1>,p=<impl>/<tensor>/.../<attr>/...
/// A tensor is `<dtype>,<format>,(<dims>)` in GE's enum numbers and its storage shape, plus a
/// view's `,(<strides>),<offset>` when the call is made on a view and a value-depend input's
/// data as `,[...]`; `_` for an absent one. Then each attr's little-endian bytes as 8-byte words
/// (lists in `[...]`). Every number is lower-case hex. opbase turns the string into bytes and
/// compares them with the bytes it builds from the call, so the two must agree byte for byte.
///
/// Where the engines differ:
/// - a dynamic list: the composite engine writes every tensor whole; the individual engine
///   writes dtype and format on the list's first tensor only (`(<dims>)` for the others);
/// - an empty dynamic list: nothing in either, but the composite engine then pads the inputs
///   with `_` up to the op's input count (one per input parameter of the record);
/// - a string attr: the composite engine keys strlen bytes, the individual engine strlen + 1
///   (its NUL), so a string whose length is a multiple of 8 takes one more zero word there;
///   both skip an empty string.
///
/// Nothing when the record holds what the form cannot say: a dtype or format GE does not
/// number, an impl mode index above 2, a value-depend input without values.
std::optional<std::string> opbase_engine_key(const OpRecord& record, OpbaseEngine engine, int impl_index);

/// The impl mode indexes an engine looks the call up with. The individual engine keys the
/// process's mode as it is (0 for default). The composite engine never keys 0: GetCurrentImplMode
/// turns default into high precision (2) or, for an op that does not support it, high
/// performance (1); which one depends on the op's own kernel config, so both.
std::vector<int> opbase_impl_indexes(const OpRecord& record, OpbaseEngine engine);

/// Every key either engine builds for the call, each once, the individual engine's first.
/// Empty when the form cannot say the call (see opbase_engine_key).
std::vector<std::string> opbase_simplified_keys(const OpRecord& record);

/// The index of an impl mode in opbase's OpImplMode flags (ffs(mode) - 1): "" and "default" 0,
/// "high_performance" 1, "high_precision" 2, ...; nothing for a mode opbase does not name.
std::optional<int> opbase_impl_mode_index(const std::string& impl_mode);

}  // namespace skb::opmodel
