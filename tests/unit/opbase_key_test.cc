// opbase's simplified keys: the published example keys made again from records; each engine's
// rules (the composite engine's OpKernel::GenerateStaticParam and NnopbaseCollectorGenStaticKey,
// the individual engine's NnopbaseExecutorGenTensorsKey and NnopbaseExecutorGenAttrsKey) for
// dynamic lists, empty lists, strings, impl modes and determinism; and every key of the example
// dump and the fuzz corpus decoded by opbase's converter rules into exactly the bytes each engine
// builds at run time for the same call.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "common/fs.h"
#include "opmodel/ge_types.h"
#include "opmodel/opbase_key.h"
#include "skb_dtypes.h"
#include "tests/support/records.h"

namespace skb::opmodel {
namespace {
using Bytes = std::string;

// ---- opbase's converter (NnopbaseCollectorConvertStaticVerbKey), rule by rule ----
void put8(Bytes& b, std::uint64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// A run of more than 16 hex digits: 8-byte words taken from its end, 16 digits each.
void put_long_run(Bytes& b, const std::string& run) {
  std::uint64_t word = 0;
  int digits = 0;
  for (std::size_t i = run.size(); i-- > 0;) {
    word |= static_cast<std::uint64_t>(hex_value(run[i])) << (4 * digits);
    if (++digits == 16) {
      put8(b, word);
      word = 0;
      digits = 0;
    }
  }
  if (digits > 0) put8(b, word);
}

Bytes convert(const std::string& key) {
  Bytes b;
  std::size_t i = 0;
  for (; i < key.size() && key[i] != '/'; ++i) b += key[i];  // the op type, byte for byte
  for (++i; i < key.size() && key[i] != '/'; ++i)            // d= and p=: digits 0-2 only
    if (key[i] >= '0' && key[i] <= '2') put8(b, static_cast<std::uint64_t>(key[i] - '0'));
  std::string run;
  auto flush = [&] {
    if (run.size() > 16)
      put_long_run(b, run);
    else if (!run.empty())
      put8(b, std::stoull(run, nullptr, 16));
    run.clear();
  };
  for (++i; i < key.size(); ++i) {
    if (key[i] == '_') {
      put8(b, '_');
    } else if (hex_value(key[i]) >= 0) {
      run += key[i];
    } else {
      flush();
    }
  }
  flush();
  return b;
}

// ---- opbase's generator (NnopbaseCollectorGenStaticKey), from values in memory ----
void copy8(Bytes& b, const void* data, std::size_t size) {  // NnopbaseExecutor8ByteCopy
  const auto* p = static_cast<const unsigned char*>(data);
  b.append(reinterpret_cast<const char*>(p), size / 8 * 8);
  if (size % 8) {
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < size % 8; ++i) w |= static_cast<std::uint64_t>(p[size / 8 * 8 + i]) << (8 * i);
    put8(b, w);
  }
}

// One element of a value-depend tensor as it sits in device memory.
Bytes element_memory(const Json& v, const std::string& dtype) {
  auto as = [](auto x) { return Bytes(reinterpret_cast<const char*>(&x), sizeof x); };
  if (dtype == "float") return as(v.get<float>());
  if (dtype == "double") return as(v.get<double>());
  if (dtype == "float16") return as(skb_k::from_float<skb_k::f16>(v.get<float>()).bits);
  if (dtype == "bfloat16") return as(skb_k::from_float<skb_k::bf16>(v.get<float>()).bits);
  if (dtype == "int64") return as(v.get<std::int64_t>());
  if (dtype == "int32") return as(static_cast<std::int32_t>(v.get<std::int64_t>()));
  if (dtype == "int16") return as(static_cast<std::int16_t>(v.get<std::int64_t>()));
  if (dtype == "int8") return as(static_cast<std::int8_t>(v.get<std::int64_t>()));
  if (dtype == "uint64") return as(v.get<std::uint64_t>());
  if (dtype == "uint32") return as(static_cast<std::uint32_t>(v.get<std::int64_t>()));
  if (dtype == "uint16") return as(static_cast<std::uint16_t>(v.get<std::int64_t>()));
  if (dtype == "uint8") return as(static_cast<std::uint8_t>(v.get<std::int64_t>()));
  if (dtype == "bool") return as(static_cast<std::uint8_t>(v.get<double>() != 0));
  ADD_FAILURE() << "no memory form for dtype " << dtype;
  return {};
}

Bytes attr_memory(const Json& v, const std::string& kind) {
  auto as = [](auto x) { return Bytes(reinterpret_cast<const char*>(&x), sizeof x); };
  if (kind == "bool") return as(static_cast<std::uint8_t>(v.get<bool>()));
  if (kind == "int") return as(v.get<std::int64_t>());
  if (kind == "float") return as(v.get<float>());
  return v.get<std::string>();  // str: its characters, no terminator
}

// A tensor's words, the part both engines build alike.
void tensor_words(Bytes& b, const Tensor& t, bool strides, bool with_dtype_format) {
  if (with_dtype_format) {
    std::uint64_t format = static_cast<std::uint64_t>(*ge_format_number(t.format));
    if (t.sub_format) format |= (static_cast<std::uint64_t>(*t.sub_format) & 0xffff) << 8;
    if (t.c0_format) format |= (static_cast<std::uint64_t>(*t.c0_format) & 0xf) << 24;
    put8(b, static_cast<std::uint64_t>(*ge_dtype_number(t.dtype)));
    put8(b, format);
  }
  for (auto d : t.shape) put8(b, static_cast<std::uint64_t>(d));
  if (strides) {
    std::vector<std::int64_t> st = t.stride;
    if (!t.is_view) {
      st.assign(t.shape.size(), 1);
      for (std::size_t i = t.shape.size(); i-- > 1;) st[i - 1] = st[i] * t.shape[i];
    }
    for (auto x : st) put8(b, static_cast<std::uint64_t>(x));
    put8(b, static_cast<std::uint64_t>(t.is_view ? t.offset : 0));
  }
  if (t.value_depend)
    for (const auto& v : t.const_data) {
      Bytes m = element_memory(v, t.dtype);
      copy8(b, m.data(), m.size());
    }
}

bool any_view(const OpRecord& r) {
  bool strides = false;
  for (const auto* slots : {&r.inputs, &r.outputs})
    for (const auto& s : *slots)
      for (const auto& t : s.tensors) strides |= t.is_view && !t.is_contiguous();
  return strides;
}

// Attrs as both engines copy them; a string with its NUL for the individual engine.
void attr_words(Bytes& b, const OpRecord& r, bool string_with_nul) {
  for (const auto& a : r.attrs) {
    if (a.kind.rfind("list_", 0) == 0) {
      for (const auto& v : a.value) {
        Bytes m = attr_memory(v, a.kind.substr(5));
        copy8(b, m.data(), m.size());
      }
    } else {
      Bytes m = attr_memory(a.value, a.kind);
      if (m.empty()) continue;  // an empty string: both engines skip it
      if (a.kind == "str" && string_with_nul) m.push_back('\0');
      copy8(b, m.data(), m.size());
    }
  }
}

// The composite engine: OpKernel::GenerateStaticParam gathers every tensor of the call, a list's
// tensors one by one, nullptr for an absent one, and pads the inputs with nullptr up to the op's
// input count; NnopbaseCollectorGenStaticKey writes each whole ('_' for nullptr), then the attrs
// (a string's strlen bytes: OpKernel::AppendAttr).
Bytes composite_bytes(const OpRecord& r, int impl_index) {
  Bytes b = r.op_type;
  put8(b, r.deterministic == "true" ? 1 : 0);
  put8(b, static_cast<std::uint64_t>(impl_index));
  std::vector<const Tensor*> tensors;
  for (const auto& s : r.inputs) {
    if (s.kind == Slot::Kind::kAbsent) tensors.push_back(nullptr);
    for (const auto& t : s.tensors) tensors.push_back(&t);
  }
  for (std::size_t i = tensors.size(); i < r.inputs.size(); ++i) tensors.push_back(nullptr);
  for (const auto& s : r.outputs) {
    if (s.kind == Slot::Kind::kAbsent) tensors.push_back(nullptr);
    for (const auto& t : s.tensors) tensors.push_back(&t);
  }
  const bool strides = any_view(r);
  for (const Tensor* t : tensors) {
    if (t == nullptr)
      put8(b, '_');
    else
      tensor_words(b, *t, strides, true);
  }
  attr_words(b, r, false);
  return b;
}

// The individual engine: NnopbaseExecutorGenTensorsKey writes dtype and format only for a
// tensor marked required or optional, which NnopbaseExecutorAddDynamicTensors does for a list's
// first tensor only; an empty list adds no tensor; NnopbaseExecutorGenAttrsKey copies a string
// with its NUL (addr.size is strlen + 1) and skips it when that size is 1.
Bytes individual_bytes(const OpRecord& r, int impl_index) {
  Bytes b = r.op_type;
  put8(b, r.deterministic == "true" ? 1 : 0);
  put8(b, static_cast<std::uint64_t>(impl_index));
  const bool strides = any_view(r);
  for (const auto* slots : {&r.inputs, &r.outputs})
    for (const auto& s : *slots) {
      if (s.kind == Slot::Kind::kAbsent) put8(b, '_');
      for (std::size_t i = 0; i < s.tensors.size(); ++i)
        tensor_words(b, s.tensors[i], strides, s.kind != Slot::Kind::kList || i == 0);
    }
  attr_words(b, r, true);
  return b;
}

Bytes engine_bytes(const OpRecord& r, OpbaseEngine engine, int impl_index) {
  return engine == OpbaseEngine::kComposite ? composite_bytes(r, impl_index) : individual_bytes(r, impl_index);
}

// The key the composite engine builds at the record's own impl mode index (as opbase's tests
// give it).
std::optional<std::string> composite_key(const OpRecord& r) {
  return opbase_engine_key(r, OpbaseEngine::kComposite, *opbase_impl_mode_index(r.impl_mode));
}

// Each key an engine looks the call up with decodes to that engine's bytes and is one of the
// kernel's keys.
void expect_both_engines_find(const OpRecord& r) {
  auto keys = opbase_simplified_keys(r);
  ASSERT_FALSE(keys.empty());
  for (OpbaseEngine engine : {OpbaseEngine::kComposite, OpbaseEngine::kIndividual})
    for (int p : opbase_impl_indexes(r, engine)) {
      SCOPED_TRACE(fmt::format("{} engine, p={}", engine == OpbaseEngine::kComposite ? "composite" : "individual", p));
      auto key = opbase_engine_key(r, engine, p);
      ASSERT_TRUE(key.has_value());
      EXPECT_EQ(convert(*key), engine_bytes(r, engine, p)) << *key;
      EXPECT_NE(std::find(keys.begin(), keys.end(), *key), keys.end()) << *key;
    }
}

OpRecord parse(const Json& j) { return parse_op_record(j); }

Json nc1hwc0(const std::string& dtype, std::vector<std::int64_t> shape, int index, const std::string& format) {
  Json t = test::tensor(dtype, std::move(shape), index, format);
  t["origin_format"] = "NCHW";
  t["origin_shape"] = {1, 1, 1, 1};
  return t;
}

// opbase's published keys (tests/nnopbase/common/utils/file_faker.cpp), made from records.
TEST(OpbaseKey, ReproducesOpbasesPublishedExampleKeys) {
  Json add = test::record(
      "TestStaticAdd",
      {test::tensor("float", {512, 512, 3, 3}, 0, "NCHW"), test::tensor("float", {512, 512, 3, 3}, 1, "NCHW")},
      {test::tensor("float", {512, 512, 3, 3}, 0, "NCHW")});
  add["impl_mode"] = "high_performance";
  EXPECT_EQ(composite_key(parse(add)).value() + "/",
            "TestStaticAdd/d=0,p=1/0,0,(200,200,3,3)/0,0,(200,200,3,3)/0,0,(200,200,3,3)/");

  Json conv =
      test::record("Conv2D",
                   {nc1hwc0("float16", {32, 4, 96, 96, 16}, 0, "NC1HWC0"),
                    nc1hwc0("float16", {36, 4, 16, 16}, 1, "FRACTAL_Z"), nullptr, nullptr},
                   {nc1hwc0("float16", {32, 4, 96, 96, 16}, 0, "NC1HWC0")},
                   {test::attr("strides", 0, "list_int", {1, 1, 1, 1}), test::attr("pads", 1, "list_int", {1, 1, 1, 1}),
                    test::attr("dilations", 2, "list_int", {1, 1, 1, 1}), test::attr("groups", 3, "int", 1),
                    test::attr("data_format", 4, "str", "NCHW"), test::attr("offset_x", 5, "int", 0)});
  conv["impl_mode"] = "high_precision";
  EXPECT_EQ(composite_key(parse(conv)).value(),
            "Conv2D/d=0,p=2/1,3,(20,4,60,60,10)/1,4,(24,4,10,10)/_/_/1,3,(20,4,60,60,10)/[1,1,1,1]/[1,1,1,1]/"
            "[1,1,1,1]/1/5748434e/0");

  std::vector<Json> five = {test::tensor("float", {1, 1, 1, 1, 1}, 0), test::tensor("float", {1, 1, 1, 1, 1}, 1)};
  Json flash =
      test::record("Flash", five, five,
                   {test::attr("a", 0, "list_bool", {true, false, true}), test::attr("b", 1, "list_int", {3, 40, 5}),
                    test::attr("c", 2, "str", "abce"), test::attr("d", 3, "list_float", {0.8, 0.8, 0.8})});
  flash["impl_mode"] = "";
  EXPECT_EQ(composite_key(parse(flash)).value(),
            "Flash/d=0,p=0/0,2,(1,1,1,1,1)/0,2,(1,1,1,1,1)/0,2,(1,1,1,1,1)/0,2,(1,1,1,1,1)/[1,0,1]/[3,28,5]/"
            "65636261/[3f4ccccd,3f4ccccd,3f4ccccd]");

  Json depend = test::value_tensor("int32", {27, 27, 27, 27, 39856}, 0);
  Json five_int = test::record("Flash", {depend, test::tensor("int32", {5}, 1)},
                               {test::tensor("int32", {5}, 0), test::tensor("int32", {5}, 1)});
  five_int["impl_mode"] = "";
  EXPECT_EQ(composite_key(parse(five_int)).value(), "Flash/d=0,p=0/3,2,(5),[1b,1b,1b,1b,9bb0]/3,2,(5)/3,2,(5)/3,2,(5)");

  Json fz = test::record("Flash", {test::tensor("float", {5}, 0), test::tensor("float", {5}, 1)},
                         {test::tensor("float", {5}, 0), test::tensor("float", {5}, 1)},
                         {test::attr("format", 0, "str", "FRACTAL_Z")});
  fz["impl_mode"] = "default";
  EXPECT_EQ(composite_key(parse(fz)).value(), "Flash/d=0,p=0/0,2,(5)/0,2,(5)/0,2,(5)/0,2,(5)/5a5f4c415443415246");
}

// d= and p=: NnopbaseAppendStaticKeyHead (individual: the process's precision as it is, 0 for
// default) and GenerateStaticParam (composite: ToIndex(GetCurrentImplMode()), which turns
// default into high precision, or high performance for an op without it). Every impl mode and
// determinism level.
TEST(OpbaseKey, EachImplModeAndDeterminismLevelIsKeyedAsEachEngineKeysIt) {
  struct Case {
    const char* impl_mode;
    std::vector<int> individual, composite;
  };
  const Case cases[] = {
      {"", {0}, {2, 1}}, {"default", {0}, {2, 1}}, {"high_performance", {1}, {1}}, {"high_precision", {2}, {2}}};
  // deterministic level 2 is strong consistency: still d=1 (determinLevel == 0 ? 0 : 1).
  for (int level : {0, 1, 2})
    for (const Case& c : cases) {
      SCOPED_TRACE(fmt::format("impl_mode \"{}\", deterministic level {}", c.impl_mode, level));
      Json j = test::record("Relu", {test::tensor("float16", {4})}, {test::tensor("float16", {4})});
      j["deterministic"] = level > 0 ? "true" : "false";
      j["deterministic_level"] = level;
      j["impl_mode"] = c.impl_mode;
      OpRecord r = parse(j);
      EXPECT_EQ(opbase_impl_indexes(r, OpbaseEngine::kIndividual), c.individual);
      EXPECT_EQ(opbase_impl_indexes(r, OpbaseEngine::kComposite), c.composite);
      std::vector<std::string> want;
      for (const auto* ps : {&c.individual, &c.composite})
        for (int p : *ps) {
          std::string key = fmt::format("Relu/d={},p={}/1,2,(4)/1,2,(4)", level > 0 ? 1 : 0, p);
          if (std::find(want.begin(), want.end(), key) == want.end()) want.push_back(key);
        }
      EXPECT_EQ(opbase_simplified_keys(r), want);
      expect_both_engines_find(r);
    }
  Json r = test::record("Relu", {test::tensor("float16", {4})}, {test::tensor("float16", {4})});
  r["impl_mode"] = "keep_fp16";  // index 7: opbase's string form reads the digits 0-2 only
  EXPECT_TRUE(opbase_simplified_keys(parse(r)).empty());
  EXPECT_EQ(opbase_impl_mode_index("super_performance"), 3);
  EXPECT_FALSE(opbase_impl_mode_index("fastest").has_value());
}

TEST(OpbaseKey, NegativeNumbersAndLongStringsKeepTheirBytes) {
  Json r = test::record("Op", {test::value_tensor("int32", {-1, 2}, 0)}, {test::tensor("int32", {2})},
                        {test::attr("k", 0, "int", -2), test::attr("s", 1, "str", "abcdefghijklmnopq")});
  r["impl_mode"] = "high_precision";
  std::string key = opbase_engine_key(parse(r), OpbaseEngine::kComposite, 2).value();
  EXPECT_EQ(key, "Op/d=0,p=2/3,2,(2),[ffffffff,2]/3,2,(2)/fffffffffffffffe/71706f6e6d6c6b6a696867666564636261");
  EXPECT_EQ(convert(key), composite_bytes(parse(r), 2));
  expect_both_engines_find(parse(r));
}

// A string attr: OpKernel::AppendAttr gives the composite engine strlen bytes,
// NnopbaseExecutorAddAttr gives the individual engine strlen + 1 (NnopbaseExecutorGenAttrsKey
// copies both with NnopbaseExecutor8ByteCopy). Only a length that is a multiple of 8 ends up in a
// different number of words: then the kernel has a key for each engine.
TEST(OpbaseKey, StringsOf7And8And16CharactersAreKeyedAsEachEngineKeysThem) {
  struct Case {
    std::string value;
    const char* composite_words;
    const char* individual_words;
  };
  const Case cases[] = {
      {"", "", ""},  // both skip it
      {"abcdefg", "67666564636261", "67666564636261"},
      {"abcdefgh", "6867666564636261", "06867666564636261"},
      {"abcdefghijklmnop", "706f6e6d6c6b6a696867666564636261", "0706f6e6d6c6b6a696867666564636261"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("\"{}\" ({} characters)", c.value, c.value.size()));
    OpRecord r = parse(test::record("Pad", {test::tensor("float", {4})}, {test::tensor("float", {4})},
                                    {test::attr("mode", 0, "str", c.value), test::attr("n", 1, "int", 3)}));
    auto tail = [](const char* words) { return std::string(*words ? "/" : "") + words + "/3"; };
    EXPECT_EQ(opbase_engine_key(r, OpbaseEngine::kComposite, 1).value(),
              "Pad/d=0,p=1/0,2,(4)/0,2,(4)" + tail(c.composite_words));
    EXPECT_EQ(opbase_engine_key(r, OpbaseEngine::kIndividual, 1).value(),
              "Pad/d=0,p=1/0,2,(4)/0,2,(4)" + tail(c.individual_words));
    EXPECT_EQ(opbase_simplified_keys(r).size(), std::string(c.composite_words) == c.individual_words ? 1u : 2u);
    expect_both_engines_find(r);
  }
}

// ConcatD of two tensors of different shapes: GenerateStaticParam gives the composite engine
// both tensors whole; the individual engine has dtype and format on the first one only
// (NnopbaseExecutorAddDynamicTensors marks it required, NnopbaseCheckAndSaveTensor the others
// not, and NnopbaseExecutorGenTensorsKey writes dtype and format for a required one only).
TEST(OpbaseKey, ConcatDOfTwoShapesIsKeyedAsEachEngineKeysADynamicList) {
  Json x = Json::array({test::tensor("float16", {2, 3}, 0), test::tensor("float16", {2, 5}, 1)});
  for (auto& t : x) t["param_type"] = "dynamic";
  OpRecord r = parse(test::record("ConcatD", {x}, {test::tensor("float16", {2, 8})},
                                  {test::attr("concat_dim", 0, "int", 1), test::attr("N", 1, "int", 2)}));
  EXPECT_EQ(opbase_engine_key(r, OpbaseEngine::kComposite, 1).value(),
            "ConcatD/d=0,p=1/1,2,(2,3)/1,2,(2,5)/1,2,(2,8)/1/2");
  EXPECT_EQ(opbase_engine_key(r, OpbaseEngine::kIndividual, 1).value(),
            "ConcatD/d=0,p=1/1,2,(2,3)/(2,5)/1,2,(2,8)/1/2");
  EXPECT_EQ(opbase_simplified_keys(r).size(), 2u);
  expect_both_engines_find(r);
}

// An empty dynamic list: neither engine has a tensor for it (NnopbaseExecutorAddDynamicTensors
// returns at once; OpKernel::AppendTensor appends none), but GenerateStaticParam then pads the
// inputs with nullptr up to the op's input count: a trailing `_`, after the inputs that follow.
TEST(OpbaseKey, AnEmptyDynamicListPadsTheCompositeEnginesInputs) {
  OpRecord r = parse(test::record(
      "GroupedMatmul", {test::tensor("float16", {4, 8}, 0), Json::array(), test::tensor("float16", {8, 2}, 2)},
      {test::tensor("float16", {4, 2})}));
  EXPECT_EQ(opbase_engine_key(r, OpbaseEngine::kComposite, 1).value(),
            "GroupedMatmul/d=0,p=1/1,2,(4,8)/1,2,(8,2)/_/1,2,(4,2)");
  EXPECT_EQ(opbase_engine_key(r, OpbaseEngine::kIndividual, 1).value(),
            "GroupedMatmul/d=0,p=1/1,2,(4,8)/1,2,(8,2)/1,2,(4,2)");
  expect_both_engines_find(r);
  // An absent optional input is nullptr for both: `_` where it stands.
  OpRecord absent = parse(
      test::record("GroupedMatmul", {test::tensor("float16", {4, 8}, 0), nullptr, test::tensor("float16", {8, 2}, 2)},
                   {test::tensor("float16", {4, 2})}));
  EXPECT_EQ(opbase_simplified_keys(absent),
            std::vector<std::string>{"GroupedMatmul/d=0,p=1/1,2,(4,8)/_/1,2,(8,2)/1,2,(4,2)"});
}

// NnopbaseCollectorGenStaticKey copies each element of a value-depend input with
// NnopbaseExecutor8ByteCopy(TypeSize(dtype), ...): its own bytes, zero-extended to one 8-byte
// word, never sign-extended. Transpose's perm and Tile's multiples, in a dtype of every width.
TEST(OpbaseKey, ValueDependDataOfEveryDtypeWidthIsOneZeroExtendedWordPerElement) {
  struct Case {
    const char* dtype;
    Json values;
    const char* words;  // what the key says of the data
  };
  const Case cases[] = {
      {"int8", {0, -1, 2}, "0,ff,2"},
      {"uint8", {0, 255, 2}, "0,ff,2"},
      {"bool", {1, 0, 1}, "1,0,1"},
      {"int16", {0, -2, 300}, "0,fffe,12c"},
      {"uint16", {0, 65535, 1}, "0,ffff,1"},
      {"float16", {1.0, -2.0, 0.5}, "3c00,c000,3800"},
      {"bfloat16", {1.0, -2.0, 0.5}, "3f80,c000,3f00"},
      {"int32", {0, -1, 2}, "0,ffffffff,2"},
      {"uint32", {0, 4294967295u, 2}, "0,ffffffff,2"},
      {"float", {1.0, -2.0, 0.5}, "3f800000,c0000000,3f000000"},
      {"int64", {0, -1, 2}, "0,ffffffffffffffff,2"},
      {"uint64", {0, 18446744073709551615u, 2}, "0,ffffffffffffffff,2"},
      {"double", {1.0, -2.0, 0.5}, "3ff0000000000000,c000000000000000,3fe0000000000000"},
  };
  for (const char* op : {"Transpose", "Tile"}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(op) + " " + c.dtype);
      Json data = test::value_tensor(c.dtype, {0, 0, 0}, 1);
      data["const_data"] = c.values;
      Json r = test::record(op, {test::tensor("float16", {2, 3, 4}), data}, {test::tensor("float16", {2, 3, 4})});
      auto key = composite_key(parse(r));
      ASSERT_TRUE(key.has_value());
      EXPECT_NE(key->find(fmt::format("(3),[{}]", c.words)), std::string::npos) << *key;
      EXPECT_EQ(convert(*key), composite_bytes(parse(r), 1)) << *key;
      EXPECT_EQ(opbase_simplified_keys(parse(r)), std::vector<std::string>{*key});
      expect_both_engines_find(parse(r));
    }
  }
}

// A call on a strided view: every tensor's strides and offset, dense ones for the others.
TEST(OpbaseKey, AViewAddsStridesAndOffsetToEveryTensor) {
  Json x = test::tensor("float", {2, 3}, 0);
  x["is_view"] = true;
  x["stride"] = {1, 2};
  x["offset"] = 4;
  Json r = test::record("Relu", {x}, {test::tensor("float", {2, 3})});
  std::string key = composite_key(parse(r)).value();
  EXPECT_EQ(key, "Relu/d=0,p=1/0,2,(2,3),(1,2),4/0,2,(2,3),(3,1),0");
  EXPECT_EQ(convert(key), composite_bytes(parse(r), 1));
  expect_both_engines_find(parse(r));
  x["stride"] = {3, 1};  // a contiguous view is keyed as a plain tensor
  x["offset"] = 0;
  EXPECT_EQ(composite_key(parse(test::record("Relu", {x}, {test::tensor("float", {2, 3})}))).value(),
            "Relu/d=0,p=1/0,2,(2,3)/0,2,(2,3)");
}

// Every record the project ships: each key an engine looks the call up with decodes by opbase's
// converter to the bytes that engine builds from the call, and the keys made from the kernel's
// .info are the same keys.
TEST(OpbaseKey, EveryKeyDecodesToTheBytesOpbaseBuildsAtRunTime) {
  std::size_t n = 0, depend = 0;
  for (const auto& [path, r] : test::valid_records({SKB_EXAMPLES, SKB_FUZZ_CORPUS "/op_record"})) {
    auto keys = opbase_simplified_keys(r);
    if (keys.empty()) continue;
    SCOPED_TRACE(path.string());
    expect_both_engines_find(r);
    EXPECT_EQ(opbase_simplified_keys(record_from_signature(common::parse_json(canonical_signature(r)))), keys);
    for (const auto& s : r.inputs)
      for (const auto& t : s.tensors) depend += t.value_depend;
    ++n;
  }
  EXPECT_GT(n, 100u);
  EXPECT_GT(depend, 0u);
  std::printf("    %zu keys decoded to opbase's bytes (%zu value-dependent inputs)\n", n, depend);
}

}  // namespace
}  // namespace skb::opmodel
