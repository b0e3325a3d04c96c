#include "opmodel/ge_types.h"

#include <array>

namespace skb::opmodel {

std::optional<std::string_view> ge_dtype_name(std::int64_t number) {
  // Indexed by GE's DataType value: DT_FLOAT = 0 ... DT_COMPLEX32 = 33.
  static constexpr std::array<std::string_view, 34> kNames = {
      "float",         "float16",        "int8",      "int32",      "uint8",  "",         "int16",
      "uint16",        "uint32",         "int64",     "uint64",     "double", "bool",     "string",
      "dual_sub_int8", "dual_sub_uint8", "complex64", "complex128", "qint8",  "qint16",   "qint32",
      "quint8",        "quint16",        "resource",  "string_ref", "dual",   "variant",  "bfloat16",
      "undefined",     "int4",           "uint1",     "int2",       "uint2",  "complex32"};
  if (number < 0 || number >= static_cast<std::int64_t>(kNames.size()) || kNames[number].empty() ||
      kNames[number] == "undefined")
    return std::nullopt;
  return kNames[number];
}

}  // namespace skb::opmodel
