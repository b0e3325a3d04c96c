#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_input.h"

namespace skb::opmodel {

using common::Json;

/// One tensor of an op call, as validated from an op-statistics record.
struct Tensor {
  std::string dtype;                       // lower case, no DT_ prefix: float, float16, bfloat16, int64, ...
  std::string format;                      // storage format: ND, NCHW, FRACTAL_NZ, ...
  std::vector<std::int64_t> shape;         // storage shape
  std::string origin_format;               // the logical layout (not part of the identity)
  std::vector<std::int64_t> origin_shape;  // the logical shape (not part of the identity)
  std::optional<std::int64_t> sub_format, c0_format;
  bool is_view = false;
  std::vector<std::int64_t> stride;  // only with is_view
  std::int64_t offset = 0;           // only with is_view
  bool value_depend = false;
  Json const_data;  // only with value_depend: an array of numbers, or the string "NULL"

  std::int64_t numel() const;
  /// A view whose strides are those of a dense row-major tensor of its shape.
  bool is_contiguous() const;
};

/// One prototype parameter: absent (null), one tensor, or a dynamic list of tensors.
struct Slot {
  enum class Kind { kAbsent, kTensor, kList };
  Kind kind = Kind::kAbsent;
  std::vector<Tensor> tensors;
};

/// An attribute with its dtype reduced to one spelling per kind: str, bool, int, float,
/// list_int, list_float, list_bool.
struct Attr {
  std::string name;
  std::string kind;
  std::int64_t index = 0;
  std::size_t position = 0;  // where it stands in the record's attrs array (for JSON pointers)
  Json value;
};

/// An op call recorded in one op-statistics file, validated field by field.
struct OpRecord {
  std::string op_type;
  std::vector<Slot> inputs, outputs;
  std::vector<Attr> attrs;  // sorted by index
  std::string impl_mode;
  std::string deterministic;  // "true" / "false" / "" when absent
  std::int64_t deterministic_level = 0;
  Json platform_info;  // {cube_core_cnt, vector_core_cnt} or null
  Json extra_params;   // object or null

  const Attr* find_attr(std::string_view name) const;
};

/// The largest op-statistics record any part of skb reads (the generator, skb coverage, skb-replay,
/// skb explain and bench, the runtime): real ones are a few KiB.
inline constexpr std::size_t kMaxRecordSize = std::size_t{4} << 20;

/// Validates a parsed op-statistics document. Throws common::FieldError with the JSON pointer
/// of the first field that is not as the format says.
OpRecord parse_op_record(const Json& doc);

/// The canonical signature: a compact JSON text that holds everything that makes a different
/// kernel (op type, tensors' dtype/format/storage shape/view/value-depend data, null slots,
/// attrs, deterministic, impl mode, core counts, extra params) and nothing else.
std::string canonical_signature(const OpRecord& record);

/// The record a canonical signature was made from, as far as the signature holds it (what makes
/// a kernel: enough for kernel_defines; origin shapes are the storage ones). The compile step
/// reads a kernel's -D macros this way from its .info. Throws common::FieldError for a document
/// that is not a canonical signature.
OpRecord record_from_signature(const Json& signature);

/// True when s is usable as a name in paths, Ninja files and C identifiers: [A-Za-z0-9_],
/// not starting with a digit.
bool is_identifier(std::string_view s);

}  // namespace skb::opmodel
