#include "opmodel/ge_types.h"

#include <array>

namespace skb::opmodel {

namespace {

// Indexed by GE's DataType value: DT_FLOAT = 0 ... DT_COMPLEX32 = 33.
constexpr std::array<std::string_view, 34> kNames = {
    "float",         "float16",        "int8",      "int32",      "uint8",  "",         "int16",
    "uint16",        "uint32",         "int64",     "uint64",     "double", "bool",     "string",
    "dual_sub_int8", "dual_sub_uint8", "complex64", "complex128", "qint8",  "qint16",   "qint32",
    "quint8",        "quint16",        "resource",  "string_ref", "dual",   "variant",  "bfloat16",
    "undefined",     "int4",           "uint1",     "int2",       "uint2",  "complex32"};

// Indexed by GE's Format value: FORMAT_NCHW = 0 ... FORMAT_FRACTAL_NZ_C0_32 = 51.
constexpr std::array<std::string_view, 52> kFormats = {"NCHW",
                                                       "NHWC",
                                                       "ND",
                                                       "NC1HWC0",
                                                       "FRACTAL_Z",
                                                       "NC1C0HWPAD",
                                                       "NHWC1C0",
                                                       "FSR_NCHW",
                                                       "FRACTAL_DECONV",
                                                       "C1HWNC0",
                                                       "FRACTAL_DECONV_TRANSPOSE",
                                                       "FRACTAL_DECONV_SP_STRIDE_TRANS",
                                                       "NC1HWC0_C04",
                                                       "FRACTAL_Z_C04",
                                                       "CHWN",
                                                       "FRACTAL_DECONV_SP_STRIDE8_TRANS",
                                                       "HWCN",
                                                       "NC1KHKWHWC0",
                                                       "BN_WEIGHT",
                                                       "FILTER_HWCK",
                                                       "HASHTABLE_LOOKUP_LOOKUPS",
                                                       "HASHTABLE_LOOKUP_KEYS",
                                                       "HASHTABLE_LOOKUP_VALUE",
                                                       "HASHTABLE_LOOKUP_OUTPUT",
                                                       "HASHTABLE_LOOKUP_HITS",
                                                       "C1HWNCOC0",
                                                       "MD",
                                                       "NDHWC",
                                                       "FRACTAL_ZZ",
                                                       "FRACTAL_NZ",
                                                       "NCDHW",
                                                       "DHWCN",
                                                       "NDC1HWC0",
                                                       "FRACTAL_Z_3D",
                                                       "CN",
                                                       "NC",
                                                       "DHWNC",
                                                       "FRACTAL_Z_3D_TRANSPOSE",
                                                       "FRACTAL_ZN_LSTM",
                                                       "FRACTAL_Z_G",
                                                       "RESERVED",
                                                       "ALL",
                                                       "NULL",
                                                       "ND_RNN_BIAS",
                                                       "FRACTAL_ZN_RNN",
                                                       "NYUV",
                                                       "NYUV_A",
                                                       "NCL",
                                                       "FRACTAL_Z_WINO",
                                                       "C1HWC0",
                                                       "FRACTAL_NZ_C0_16",
                                                       "FRACTAL_NZ_C0_32"};

}  // namespace

std::optional<std::string_view> ge_dtype_name(std::int64_t number) {
  if (number < 0 || number >= static_cast<std::int64_t>(kNames.size()) || kNames[number].empty() ||
      kNames[number] == "undefined")
    return std::nullopt;
  return kNames[number];
}

std::optional<std::int64_t> ge_dtype_number(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (!name.empty() && kNames[i] == name && name != "undefined") return static_cast<std::int64_t>(i);
  return std::nullopt;
}

std::optional<std::int64_t> ge_format_number(std::string_view name) {
  for (std::size_t i = 0; i < kFormats.size(); ++i)
    if (kFormats[i] == name) return static_cast<std::int64_t>(i);
  return std::nullopt;
}

std::size_t ge_dtype_size(std::string_view name) {
  struct Width {
    std::string_view name;
    std::size_t bytes;
  };
  static constexpr Width kWidths[] = {
      {"float", 4},     {"float16", 2},     {"bfloat16", 2}, {"double", 8}, {"int8", 1},    {"uint8", 1},
      {"int16", 2},     {"uint16", 2},      {"int32", 4},    {"uint32", 4}, {"int64", 8},   {"uint64", 8},
      {"bool", 1},      {"qint8", 1},       {"quint8", 1},   {"qint16", 2}, {"quint16", 2}, {"qint32", 4},
      {"complex64", 8}, {"complex128", 16}, {"complex32", 4}};
  for (const auto& w : kWidths)
    if (w.name == name) return w.bytes;
  return 0;
}

}  // namespace skb::opmodel
