#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skb::opmodel {

/// The dtype spelling of op statistics (lower case, no DT_ prefix) for a number of GE's
/// DataType enum (metadef's graph/types.h), as attrs such as Cast's dst_type carry it; nothing
/// for a number GE does not define.
std::optional<std::string_view> ge_dtype_name(std::int64_t number);

/// GE's DataType number of an op-statistics dtype spelling; nothing for a name GE does not define.
std::optional<std::int64_t> ge_dtype_number(std::string_view name);

/// GE's Format number (metadef's graph/types.h: FORMAT_NCHW = 0, FORMAT_ND = 2, FORMAT_FRACTAL_NZ
/// = 29, ...) of a format spelling without its FORMAT_ prefix; nothing for a name GE does not define.
std::optional<std::int64_t> ge_format_number(std::string_view name);

/// The bytes one element of a dtype takes in memory (GE's TypeSize); 0 for a dtype without a
/// fixed byte width (string, sub-byte and resource types).
std::size_t ge_dtype_size(std::string_view name);

}  // namespace skb::opmodel
