#pragma once
#include <string>
#include <vector>

#include "opmodel/op_record.h"

namespace skb::opmodel {

/// How a kernel is compiled: every shape a compile-time constant, or shapes passed at run time.
enum class Variant { kStatic, kDynamic };

/// The -D macros a kernel template is compiled with (templates/kernels/README.md lists them):
/// SKB_STATIC or SKB_DYNAMIC, SKB_OP, SKB_NUM_INPUTS/OUTPUTS, per tensor SKB_IN<i>_DTYPE and
/// SKB_IN<i>_FORMAT (SKB_IN<i>_NULL for an absent one); static kernels also get SKB_IN<i>_SHAPE,
/// view strides and offsets, SKB_IN<i>_CONST and SKB_ATTR_<name> (lists with SKB_ATTR_<name>_LEN).
/// A tensor list is SKB_IN<i>_COUNT, each tensor's macros as SKB_IN<i>_<j>_..., and for static
/// kernels SKB_IN<i>_SHAPES (each tensor's rank, then its dims).
/// Values hold only [A-Za-z0-9_.,+-], so they need no quoting in a shell or a Ninja file. Sorted.
std::vector<std::string> kernel_defines(const OpRecord& record, Variant variant);

/// The macros with the commas of their list values replaced by `separator` ("\\," for nvcc).
std::vector<std::string> separate_lists(std::vector<std::string> defines, const std::string& separator);

/// The signature of the dynamic twin of a record: op type and each slot's dtypes, no shapes.
std::string dynamic_signature(const OpRecord& record);

}  // namespace skb::opmodel
