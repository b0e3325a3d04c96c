#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skb::opmodel {

/// The dtype spelling of op statistics (lower case, no DT_ prefix) for a number of GE's
/// DataType enum (metadef's graph/types.h), as attrs such as Cast's dst_type carry it; nothing
/// for a number GE does not define.
std::optional<std::string_view> ge_dtype_name(std::int64_t number);

}  // namespace skb::opmodel
