// Every host template, compiled by the real generator and ninja, static and dynamic, loaded
// with dlopen and checked against reference_ops on random data, for float, float16, bfloat16
// (and int64 where a template computes integers).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cmath>
#include <filesystem>
#include <random>

#include "common/fs.h"
#include "common/process.h"
#include "generator/plan.h"
#include "generator/toolchain.h"
#include "opmodel/defines.h"
#include "runtime/reference/tensors.h"
#include "skb_dtypes.h"
#include "skb_kernel_abi.h"

namespace skb::test {
namespace {
using namespace skb::reference;
namespace fs = std::filesystem;
using common::Json;

struct Spec {
  std::string dtype;
  Shape shape;
  bool null = false;
  std::vector<std::int64_t> const_data;
  std::vector<Spec> list;  // a tensor list's tensors (dtype and shape then unused)
  bool is_list = false;
};

struct Case {
  std::string label, op;
  std::vector<Spec> inputs, outputs;
  Json attrs = Json::array();
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

Spec T(std::string dtype, Shape shape) { return Spec{std::move(dtype), std::move(shape), false, {}, {}, false}; }
Spec Null() { return Spec{"", {}, true, {}, {}, false}; }
Spec Perm(std::vector<std::int64_t> p) {
  return Spec{"int64", {static_cast<std::int64_t>(p.size())}, false, p, {}, false};
}
Spec Multiples(std::vector<std::int64_t> m) { return Perm(std::move(m)); }
Spec List(std::vector<Spec> tensors) { return Spec{"", {}, false, {}, std::move(tensors), true}; }
Json A(const char* name, int index, const char* dtype, Json value) {
  return {{"name", name}, {"index", index}, {"dtype", dtype}, {"value", std::move(value)}};
}

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"square_f32", "Square", {T("float", {3, 5})}, {T("float", {3, 5})}});
  c.push_back({"relu_f16", "Relu", {T("float16", {17})}, {T("float16", {17})}});
  c.push_back({"gelu_bf16", "Gelu", {T("bfloat16", {4, 8})}, {T("bfloat16", {4, 8})}});
  c.push_back({"fastgelu_f32", "FastGelu", {T("float", {2, 3, 4})}, {T("float", {2, 3, 4})}});
  c.push_back(
      {"cast_f16_f32", "Cast", {T("float16", {10})}, {T("float", {10})}, Json::array({A("dst_type", 0, "int", 0)})});
  c.push_back({"cast_f32_bf16",
               "Cast",
               {T("float", {6, 2})},
               {T("bfloat16", {6, 2})},
               Json::array({A("dst_type", 0, "int", 27)})});
  c.push_back({"add_f32", "Add", {T("float", {4, 5}), T("float", {4, 5})}, {T("float", {4, 5})}});
  c.push_back({"sub_f16_bcast", "Sub", {T("float16", {2, 3, 4}), T("float16", {4})}, {T("float16", {2, 3, 4})}});
  c.push_back(
      {"mul_bf16_bcast2", "Mul", {T("bfloat16", {2, 1, 4}), T("bfloat16", {3, 1})}, {T("bfloat16", {2, 3, 4})}});
  c.push_back({"realdiv_f32_col", "RealDiv", {T("float", {3, 4}), T("float", {3, 1})}, {T("float", {3, 4})}});
  c.push_back({"add_scalar", "Add", {T("float", {}), T("float", {})}, {T("float", {})}});
  Json mm = Json::array({A("transpose_x1", 0, "bool", false), A("transpose_x2", 1, "bool", false)});
  c.push_back(
      {"matmul_f32", "MatMulV2", {T("float", {5, 7}), T("float", {7, 3}), Null(), Null()}, {T("float", {5, 3})}, mm});
  c.push_back({"matmul_f32_ta",
               "MatMulV2",
               {T("float", {7, 5}), T("float", {7, 3}), Null(), Null()},
               {T("float", {5, 3})},
               Json::array({A("transpose_x1", 0, "bool", true), A("transpose_x2", 1, "bool", false)})});
  c.push_back({"matmul_f16_tb_bias",
               "MatMulV2",
               {T("float16", {4, 16}), T("float16", {6, 16}), T("float16", {6}), Null()},
               {T("float16", {4, 6})},
               Json::array({A("transpose_x1", 0, "bool", false), A("transpose_x2", 1, "bool", true)})});
  c.push_back({"bmm_f32",
               "BatchMatMulV2",
               {T("float", {2, 3, 4, 5}), T("float", {2, 3, 5, 6}), Null(), Null()},
               {T("float", {2, 3, 4, 6})},
               Json::array({A("adj_x1", 0, "bool", false), A("adj_x2", 1, "bool", false)})});
  c.push_back({"bmm_bf16_bcast_adj",
               "BatchMatMulV2",
               {T("bfloat16", {2, 1, 4, 5}), T("bfloat16", {3, 6, 5}), Null(), Null()},
               {T("bfloat16", {2, 3, 4, 6})},
               Json::array({A("adj_x1", 0, "bool", false), A("adj_x2", 1, "bool", true)})});
  c.push_back({"softmax_f32_last",
               "SoftmaxV2",
               {T("float", {3, 7})},
               {T("float", {3, 7})},
               Json::array({A("axes", 0, "list_int", {-1})})});
  c.push_back({"softmax_f16_mid",
               "SoftmaxV2",
               {T("float16", {2, 5, 3})},
               {T("float16", {2, 5, 3})},
               Json::array({A("axes", 0, "list_int", {1})})});
  // Several axes, negative, unsorted, every axis (CANN's axes is a list_int).
  for (const auto& [label, axes] : std::vector<std::pair<std::string, std::vector<int>>>{
           {"last2", {-2, -1}}, {"0_3", {0, 3}}, {"3_1", {3, 1}}, {"all", {0, 1, 2, 3}}, {"2_0", {2, 0}}}) {
    for (const char* dtype : {"float", "float16"})
      c.push_back({std::string("softmax_") + (dtype[5] ? "f16_" : "f32_") + label,
                   "SoftmaxV2",
                   {T(dtype, {2, 3, 4, 5})},
                   {T(dtype, {2, 3, 4, 5})},
                   Json::array({A("axes", 0, "list_int", axes)})});
  }
  c.push_back({"layernorm_f32",
               "LayerNorm",
               {T("float", {4, 16}), T("float", {16}), T("float", {16})},
               {T("float", {4, 16}), T("float", {4, 1}), T("float", {4, 1})},
               Json::array({A("begin_norm_axis", 0, "int", -1), A("begin_params_axis", 1, "int", -1),
                            A("epsilon", 2, "float", 1e-5)})});
  // gamma and beta from begin_params_axis, before or after the normalized axes.
  c.push_back({"layernorm_f32_params_before",
               "LayerNorm",
               {T("float", {3, 2, 8}), T("float", {2, 8}), T("float", {2, 8})},
               {T("float", {3, 2, 8}), T("float", {3, 2, 1}), T("float", {3, 2, 1})},
               Json::array({A("begin_norm_axis", 0, "int", 2), A("begin_params_axis", 1, "int", 1),
                            A("epsilon", 2, "float", 1e-5)})});
  c.push_back({"layernorm_f32_params_after",
               "LayerNorm",
               {T("float", {3, 2, 8}), T("float", {8}), T("float", {8})},
               {T("float", {3, 2, 8}), T("float", {3, 1, 1}), T("float", {3, 1, 1})},
               Json::array({A("begin_norm_axis", 0, "int", 1), A("begin_params_axis", 1, "int", -1),
                            A("epsilon", 2, "float", 1e-5)})});
  c.push_back({"layernorm_f16",
               "LayerNorm",
               {T("float16", {3, 2, 8}), T("float16", {8}), T("float16", {8})},
               {T("float16", {3, 2, 8}), T("float", {3, 2, 1}), T("float", {3, 2, 1})},
               Json::array({A("begin_norm_axis", 0, "int", 2), A("begin_params_axis", 1, "int", 2),
                            A("epsilon", 2, "float", 1e-5)})});
  c.push_back({"rmsnorm_bf16",
               "RmsNorm",
               {T("bfloat16", {3, 32}), T("bfloat16", {32})},
               {T("bfloat16", {3, 32}), T("float", {3, 1})},
               Json::array({A("epsilon", 0, "float", 1e-6)})});
  c.push_back({"transpose_f32", "Transpose", {T("float", {2, 3, 4}), Perm({2, 0, 1})}, {T("float", {4, 2, 3})}});
  c.push_back({"transpose_f16_4d",
               "Transpose",
               {T("float16", {2, 3, 4, 5}), Perm({0, 2, 1, 3})},
               {T("float16", {2, 4, 3, 5})}});
  c.push_back({"add_i64", "Add", {T("int64", {3, 4}), T("int64", {4})}, {T("int64", {3, 4})}});
  c.push_back({"tile_f16_rows", "Tile", {T("float16", {1, 32}), Multiples({16, 1})}, {T("float16", {16, 32})}});
  c.push_back({"tile_f32_every_axis", "Tile", {T("float", {2, 3, 4}), Multiples({2, 1, 3})}, {T("float", {4, 3, 12})}});
  // multiples longer than x's rank: x is padded with leading ones, as numpy.tile does
  c.push_back(
      {"tile_bf16_new_axes", "Tile", {T("bfloat16", {3, 2}), Multiples({2, 1, 2})}, {T("bfloat16", {2, 3, 4})}});
  Json concat_1 = Json::array({A("concat_dim", 0, "int", 1), A("N", 1, "int", 2)});
  c.push_back({"concat_f16_mid",
               "ConcatD",
               {List({T("float16", {1, 16, 32}), T("float16", {1, 16, 32})})},
               {T("float16", {1, 32, 32})},
               concat_1});
  c.push_back({"concat_f32_three_sizes",
               "ConcatD",
               {List({T("float", {2, 3, 4}), T("float", {2, 1, 4}), T("float", {2, 5, 4})})},
               {T("float", {2, 9, 4})},
               Json::array({A("concat_dim", 0, "int", -2), A("N", 1, "int", 3)})});
  c.push_back({"concat_bf16_first",
               "ConcatD",
               {List({T("bfloat16", {1, 3}), T("bfloat16", {4, 3})})},
               {T("bfloat16", {5, 3})},
               Json::array({A("concat_dim", 0, "int", 0), A("N", 1, "int", 2)})});
  c.push_back({"concat_f32_last",
               "ConcatD",
               {List({T("float", {3, 2}), T("float", {3, 5})})},
               {T("float", {3, 7})},
               Json::array({A("concat_dim", 0, "int", -1), A("N", 1, "int", 2)})});
  return c;
}

Json tensor_json(const Spec& s, int index) {
  if (s.null) return nullptr;
  if (s.is_list) {
    Json list = Json::array();
    for (const Spec& t : s.list) {
      list.push_back(tensor_json(t, index));
      list.back()["param_type"] = "dynamic";
    }
    return list;
  }
  Json t = {{"name", fmt::format("t{}", index)},
            {"index", index},
            {"param_type", "required"},
            {"dtype", s.dtype},
            {"format", "ND"},
            {"shape", s.shape},
            {"origin_format", "ND"},
            {"origin_shape", s.shape},
            {"is_view", false},
            {"value_depend", !s.const_data.empty()}};
  if (!s.const_data.empty()) t["const_data"] = s.const_data;
  return t;
}

Json record_json(const Case& c) {
  Json in = Json::array(), out = Json::array();
  for (std::size_t i = 0; i < c.inputs.size(); ++i) in.push_back(tensor_json(c.inputs[i], static_cast<int>(i)));
  for (std::size_t i = 0; i < c.outputs.size(); ++i) out.push_back(tensor_json(c.outputs[i], static_cast<int>(i)));
  return {{"op_type", c.op},
          {"inputs", in},
          {"outputs", out},
          {"attrs", c.attrs},
          {"deterministic", "false"},
          {"deterministic_level", 0},
          {"impl_mode", "high_performance"},
          {"tune_mode", "all"},
          {"platform_info", {{"cube_core_cnt", 24}, {"vector_core_cnt", 48}}}};
}

double as_double(const Json& v) { return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>(); }

class Built {
 public:
  static Built& get() {
    static Built b;
    return b;
  }
  fs::path out;
  generator::Toolchain tc;
  std::string error;

 private:
  Built() {
    fs::path root = fs::path(SKB_TEST_SCRATCH) / "kernels";
    fs::remove_all(root);
    fs::create_directories(root / "dump");
    for (const Case& c : cases()) common::write_atomic(root / "dump" / (c.label + ".json"), record_json(c).dump(2));
    out = root / "out";
    auto gen = common::run_process(
        {SKB_GENERATE_EXE, "-p", (root / "dump").string(), "-o", out.string(), "--dynamic", "--quiet", "--strict"},
        true);
    if (gen.exit_code != 0) error = "skb-generate failed: " + gen.output;
    auto nin = common::run_process({"ninja", "-C", out.string()}, true);
    if (error.empty() && nin.exit_code != 0) error = "ninja failed: " + nin.output;
    tc = generator::load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  }
};

struct Loaded {
  void* handle = nullptr;
  ~Loaded() {
    if (handle) dlclose(handle);
  }
};

class KernelTest : public ::testing::TestWithParam<Case> {};

// The built kernel of a record, static or its dynamic twin.
fs::path kernel_so(const opmodel::OpRecord& rec, bool dynamic) {
  Built& b = Built::get();
  std::string sig = dynamic ? opmodel::dynamic_signature(rec) : opmodel::canonical_signature(rec);
  return b.out / "kernel_meta" / (generator::kernel_name(rec.op_type, sig, b.tc, *b.tc.find(rec.op_type)) + ".so");
}

void run_and_check(const Case& c, bool dynamic) {
  Built& b = Built::get();
  ASSERT_EQ(b.error, "");
  opmodel::OpRecord rec = opmodel::parse_op_record(record_json(c));
  fs::path so = kernel_so(rec, dynamic);
  ASSERT_TRUE(fs::exists(so)) << so;
  Loaded lib;
  lib.handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib.handle, nullptr) << dlerror();

  std::mt19937 rng(42);
  std::vector<Buffer> in = make_inputs(rec, rng);
  std::vector<Buffer> out = make_outputs(rec);
  std::vector<const void*> in_ptr = input_pointers(in);
  std::vector<void*> out_ptr = output_pointers(out);

  int rc;
  if (!dynamic) {
    auto fn = reinterpret_cast<skb_kernel_fn>(dlsym(lib.handle, "skb_kernel"));
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(dlsym(lib.handle, "skb_kernel_dynamic"), nullptr);
    rc = fn(in_ptr.data(), out_ptr.data());
  } else {
    auto fn = reinterpret_cast<skb_kernel_dynamic_fn>(dlsym(lib.handle, "skb_kernel_dynamic"));
    ASSERT_NE(fn, nullptr);
    std::vector<skb_shape> ishapes, oshapes;
    for (const Spec& slot : c.inputs) {
      // A list gives one shape per tensor, in its slot's place.
      for (const Spec& s : slot.is_list ? slot.list : std::vector<Spec>{slot}) {
        skb_shape sh{s.null ? -1 : static_cast<int32_t>(s.shape.size()), {}};
        for (std::size_t d = 0; d < s.shape.size(); ++d) sh.dims[d] = s.shape[d];
        ishapes.push_back(sh);
      }
    }
    for (const Spec& s : c.outputs) {
      skb_shape sh{static_cast<int32_t>(s.shape.size()), {}};
      for (std::size_t d = 0; d < s.shape.size(); ++d) sh.dims[d] = s.shape[d];
      oshapes.push_back(sh);
    }
    std::vector<std::vector<double>> values;
    std::vector<std::string> names;
    for (const auto& a : c.attrs) {
      std::vector<double> v;
      if (a["value"].is_array())
        for (const auto& e : a["value"]) v.push_back(as_double(e));
      else
        v.push_back(as_double(a["value"]));
      values.push_back(v);
      names.push_back(a["name"]);
    }
    std::vector<skb_attr> attrs;
    for (std::size_t i = 0; i < values.size(); ++i)
      attrs.push_back({names[i].c_str(), static_cast<int32_t>(values[i].size()), values[i].data()});
    skb_call call{static_cast<int32_t>(ishapes.size()),
                  static_cast<int32_t>(oshapes.size()),
                  ishapes.data(),
                  oshapes.data(),
                  static_cast<int32_t>(attrs.size()),
                  attrs.data()};
    rc = fn(&call, in_ptr.data(), out_ptr.data());
  }
  ASSERT_EQ(rc, 0);

  auto want = expected_outputs(rec, in);
  ASSERT_EQ(want.size(), c.outputs.size());
  EXPECT_EQ(compare_outputs(rec, out, want), "");
}

TEST_P(KernelTest, StaticKernelMatchesReference) { run_and_check(GetParam(), false); }
TEST_P(KernelTest, DynamicKernelMatchesReference) { run_and_check(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(HostTemplates, KernelTest, ::testing::ValuesIn(cases()),
                         [](const auto& test) { return test.param.label; });

// int64 Add computes in int64, not float: exact beyond 2^24 and 2^53, wrapping around as numpy's.
TEST(KernelTemplates, Int64AddIsExactAndWrapsAround) {
  ASSERT_EQ(Built::get().error, "");
  Case add = {"", "Add", {T("int64", {3, 4}), T("int64", {4})}, {T("int64", {3, 4})}};  // add_i64's record
  Loaded lib;
  lib.handle = dlopen(kernel_so(opmodel::parse_op_record(record_json(add)), false).c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  auto fn = reinterpret_cast<skb_kernel_fn>(dlsym(lib.handle, "skb_kernel"));
  ASSERT_NE(fn, nullptr);
  std::vector<std::int64_t> a(12), b = {1, -3, INT64_MAX, (std::int64_t{1} << 53) + 1}, y(12);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = (std::int64_t{1} << 53) + 1 + static_cast<std::int64_t>(i);
  const void* in[] = {a.data(), b.data()};
  void* out[] = {y.data()};
  ASSERT_EQ(fn(in, out), 0);
  for (std::size_t i = 0; i < y.size(); ++i)
    EXPECT_EQ(y[i], static_cast<std::int64_t>(static_cast<std::uint64_t>(a[i]) + static_cast<std::uint64_t>(b[i % 4])))
        << i;
  EXPECT_EQ(y[0], (std::int64_t{1} << 53) + 2);
  EXPECT_EQ(y[2], INT64_MIN + (std::int64_t{1} << 53) + 2);  // 2^53 + 3 + INT64_MAX, wrapped
}

// Records whose shapes contradict their op (skb-generate refuses them; here they bypass it):
// their static kernels must not compile, and the compile step reports that for the kernel and
// leaves nothing of it.
std::vector<Case> contradictions() {
  std::vector<Case> c;
  c.push_back({"matmul_k", "MatMulV2", {T("float", {4, 5}), T("float", {6, 3})}, {T("float", {4, 3})}});
  c.push_back(
      {"matmul_bias", "MatMulV2", {T("float", {4, 5}), T("float", {5, 3}), T("float", {4})}, {T("float", {4, 3})}});
  c.push_back({"bmm_adj",
               "BatchMatMulV2",
               {T("float", {2, 4, 5}), T("float", {2, 5, 3})},
               {T("float", {2, 4, 3})},
               Json::array({A("adj_x2", 0, "bool", true)})});
  c.push_back({"add_broadcast", "Add", {T("float", {4, 5}), T("float", {3, 5})}, {T("float", {4, 5})}});
  c.push_back({"relu_output", "Relu", {T("float", {4})}, {T("float", {5})}});
  c.push_back({"softmax_axis",
               "SoftmaxV2",
               {T("float", {4, 5})},
               {T("float", {4, 5})},
               Json::array({A("axes", 0, "list_int", {2})})});
  c.push_back({"softmax_axis_twice",
               "SoftmaxV2",
               {T("float", {4, 5})},
               {T("float", {4, 5})},
               Json::array({A("axes", 0, "list_int", {1, -1})})});
  c.push_back({"layernorm_gamma",
               "LayerNorm",
               {T("float", {4, 6}), T("float", {5}), T("float", {5})},
               {T("float", {4, 6}), T("float", {4, 1}), T("float", {4, 1})},
               Json::array({A("begin_norm_axis", 0, "int", -1), A("begin_params_axis", 1, "int", -1)})});
  c.push_back(
      {"rmsnorm_rstd", "RmsNorm", {T("float", {4, 6}), T("float", {6})}, {T("float", {4, 6}), T("float", {6})}});
  c.push_back({"transpose_perm", "Transpose", {T("float", {4, 6}), Perm({0, 0})}, {T("float", {4, 4})}});
  c.push_back({"tile_multiples", "Tile", {T("float", {2, 3}), Multiples({2, 2})}, {T("float", {4, 3})}});
  c.push_back({"concat_extents",
               "ConcatD",
               {List({T("float", {2, 3}), T("float", {3, 3})})},
               {T("float", {2, 6})},
               Json::array({A("concat_dim", 0, "int", 1), A("N", 1, "int", 2)})});
  return c;
}

TEST(KernelTemplates, AStaticKernelWhoseConstantsContradictEachOtherDoesNotCompile) {
  Built& b = Built::get();
  ASSERT_EQ(b.error, "");
  fs::path dir = fs::path(SKB_TEST_SCRATCH) / "kernels_contradicting";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path host = fs::path(SKB_TEST_TEMPLATES) / "kernels" / "host";
  for (const Case& c : contradictions()) {
    opmodel::OpRecord rec = opmodel::parse_op_record(record_json(c));  // not checked against its op
    std::string name = c.op + "_00000000000000000000000000000000";
    std::vector<std::string> argv = {SKB_GENERATE_EXE,
                                     "compile-step",
                                     "--dir",
                                     dir.string(),
                                     "--name",
                                     name,
                                     "--op",
                                     c.op,
                                     "--variant",
                                     "static",
                                     "--suffix",
                                     ".so",
                                     "--entry",
                                     "skb_kernel",
                                     "--toolchain-id",
                                     "test",
                                     "--",
                                     "c++",
                                     "-std=c++17",
                                     "-fPIC",
                                     "-shared",
                                     "-I" + host.string(),
                                     "-I" + (host / ".." / "common").string()};
    for (const auto& d : opmodel::kernel_defines(rec, opmodel::Variant::kStatic)) argv.push_back(d);
    argv.insert(argv.end(), {"-o", "@OUT@", b.tc.find(c.op)->source.string()});
    auto r = common::run_process(argv, true);
    EXPECT_NE(r.exit_code, 0) << c.label;
    EXPECT_NE(r.output.find("contradict each other"), std::string::npos) << c.label << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir / (name + ".so"))) << c.label;
    EXPECT_FALSE(fs::exists(dir / (name + ".json"))) << c.label;
  }
}

}  // namespace
}  // namespace skb::test
