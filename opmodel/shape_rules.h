#pragma once
#include <string_view>

#include "opmodel/op_record.h"

namespace skb::opmodel {

/// Whether the op model knows what the tensors of an op type must agree on.
bool has_shape_rules(std::string_view op_type);

/// Checks a validated record against its op as Ascend defines it: the parameters it has, what
/// its inputs must agree on (matmul k under transposes, broadcasting, gamma and beta against the
/// normalized axes, a permutation, axes in range) and its outputs' shapes and dtypes. Shapes of
/// tensors in a private format (FRACTAL_NZ, NC1HWC0, ...) are checked on their origin shape.
/// Throws common::FieldError with the pointer of the first contradiction, as
/// `expected <shape> for <Op> with <attr>=<value>, found <shape>`. Returns false, checking
/// nothing, for an op without rules.
bool check_shapes(const OpRecord& record);

/// Formats whose storage shape is the logical shape (ND, NCHW, NHWC, ...).
bool is_plain_format(std::string_view format);

}  // namespace skb::opmodel
