// skb_runtime against real packages: built by skb-package, installed by their .run into a scratch
// operator library, then found, verified, loaded and run through the C API.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "common/fs.h"
#include "common/json_input.h"
#include "common/process.h"
#include "runtime/reference/tensors.h"
#include "skb/runtime.h"
#include "tests/support/records.h"

namespace skb::test {
namespace {
namespace fs = std::filesystem;
using common::Json;

Json add_record() {
  return record("Add", {tensor("float", {4, 5}, 0), tensor("float", {4, 5}, 1)}, {tensor("float", {4, 5}, 0)});
}
Json matmul_record() {
  return record("MatMulV2", {tensor("float", {5, 7}, 0), tensor("float", {7, 3}, 1), nullptr, nullptr},
                {tensor("float", {5, 3}, 0)},
                {attr("transpose_x1", 0, "bool", false), attr("transpose_x2", 1, "bool", false)});
}
Json softmax_record() {
  return record("SoftmaxV2", {tensor("float", {3, 9}, 0)}, {tensor("float", {3, 9}, 0)},
                {attr("axes", 0, "list_int", {-1})});
}
// Only in the second package.
Json relu_record() { return record("Relu", {tensor("float", {33}, 0)}, {tensor("float", {33}, 0)}); }

fs::path root() { return fs::path(SKB_TEST_SCRATCH) / "runtime"; }

// Builds a package of `records` with skb-package's whole job (dynamic twins included).
fs::path build_package(const std::string& name, const std::vector<Json>& records, const char* epoch) {
  fs::path dump = root() / name / "dump";
  fs::create_directories(dump);
  for (std::size_t i = 0; i < records.size(); ++i)
    common::write_atomic(dump / fmt::format("r{}.json", i), records[i].dump(1));
  auto r = common::run_process({"env", std::string("SOURCE_DATE_EPOCH=") + epoch, SKB_PACKAGE_EXE, "-p", dump.string(),
                                "-o", (root() / name / "out").string(), "--dynamic", "--quiet"},
                               true);
  if (r.exit_code != 0) throw std::runtime_error("skb-package failed: " + r.output);
  std::string run = r.output.substr(0, r.output.find('\n'));
  return run;
}

int sh(const std::vector<std::string>& args) { return common::run_process(args, true).exit_code; }

struct Packages {
  fs::path first, second;
  static Packages& get() {
    static Packages p = [] {
      fs::remove_all(root());
      return Packages{build_package("first", {add_record(), matmul_record(), softmax_record()}, "1790000000"),
                      build_package("second", {relu_record()}, "1790000100")};
    }();
    return p;
  }
};

// A fresh library with the first package installed.
fs::path fresh_library(const std::string& name) {
  fs::path lib = root() / "libs" / name;
  fs::remove_all(lib);
  EXPECT_EQ(sh({"sh", Packages::get().first.string(), "--quiet", "--install-path=" + lib.string()}), 0);
  return lib;
}

struct Runtime {
  skb_runtime* rt = nullptr;
  explicit Runtime(const fs::path& lib) {
    EXPECT_EQ(skb_runtime_open(lib.c_str(), nullptr, &rt), SKB_OK) << skb_last_error();
  }
  ~Runtime() { skb_runtime_close(rt); }
};

struct Op {
  skb_op* op = nullptr;
  int rc = 0;
  Op(skb_runtime* rt, const Json& rec, bool dynamic = false) {
    rc = (dynamic ? skb_runtime_find_dynamic : skb_runtime_find)(rt, rec.dump().c_str(), &op);
  }
  ~Op() { skb_op_free(op); }
  std::string name() const { return op ? skb_op_kernel_name(op) : ""; }
};

// Runs op on random inputs and compares with the reference; returns the first difference.
std::string run_and_compare(const Op& op, const Json& rec) {
  auto r = opmodel::parse_op_record(rec);
  std::mt19937 rng(7);
  auto in = reference::make_inputs(r, rng);
  auto out = reference::make_outputs(r);
  std::vector<const void*> ip;
  for (auto& b : in) ip.push_back(b.bytes.empty() ? nullptr : b.bytes.data());
  std::vector<void*> op_out;
  for (auto& b : out) op_out.push_back(b.bytes.data());
  if (skb_op_run(op.op, ip.data(), op_out.data()) != SKB_OK) return skb_last_error();
  return reference::compare_outputs(r, out, reference::expected_outputs(r, in));
}

TEST(Runtime, EveryRecordedCallRunsItsStaticKernel) {
  Runtime rt(fresh_library("hits"));
  ASSERT_NE(rt.rt, nullptr);
  EXPECT_EQ(skb_runtime_kernel_count(rt.rt), 6u);  // 3 static, 3 dynamic twins
  for (const Json& rec : {add_record(), matmul_record(), softmax_record()}) {
    Op op(rt.rt, rec);
    ASSERT_EQ(op.rc, SKB_OK) << skb_last_error();
    EXPECT_EQ(skb_op_kind(op.op), SKB_KERNEL_STATIC) << rec["op_type"];
    EXPECT_EQ(std::string(skb_op_package(op.op)), Packages::get().first.stem().string());
    EXPECT_EQ(run_and_compare(op, rec), "") << rec["op_type"];
  }
}

// skb_runtime_explain into a caller's buffer: the whole line (and its length), or a cut one.
std::string explain(skb_runtime* rt, const Json& rec, std::size_t size = 1024, std::size_t* needed = nullptr) {
  std::string buf(size, '#');
  EXPECT_EQ(skb_runtime_explain(rt, rec.dump().c_str(), size ? buf.data() : nullptr, size, needed), SKB_OK)
      << skb_last_error();
  return size ? std::string(buf.c_str()) : "";
}

TEST(Runtime, ExplainNamesTheNearestInstalledKernelAndTheFirstFieldThatDiffers) {
  Runtime rt(fresh_library("explain"));
  Op hit(rt.rt, matmul_record());
  ASSERT_EQ(hit.rc, SKB_OK);
  EXPECT_EQ(explain(rt.rt, matmul_record()),
            fmt::format("MatMulV2: static kernel {} (package {})", hit.name(), Packages::get().first.stem().string()));

  Json unseen = matmul_record();  // m 5 → 6: a shape the dump never saw
  unseen["inputs"][0]["shape"] = unseen["inputs"][0]["origin_shape"] = {6, 7};
  unseen["outputs"][0]["shape"] = unseen["outputs"][0]["origin_shape"] = {6, 3};
  std::size_t needed = 0;
  std::string why = explain(rt.rt, unseen, 1024, &needed);
  EXPECT_EQ(why.size(), needed);
  EXPECT_NE(why.find("MatMulV2: no static kernel for this call; nearest of 1 installed: " + hit.name()),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("2 fields differ; first /inputs/0/shape/0: installed 5, called 6"), std::string::npos) << why;
  EXPECT_NE(why.find("the dynamic kernel of its op and dtypes serves it"), std::string::npos) << why;

  // A short buffer gets the start of the line, NUL-terminated, and the length it needs.
  std::size_t again = 0;
  EXPECT_EQ(explain(rt.rt, unseen, 9, &again), why.substr(0, 8));
  EXPECT_EQ(again, needed);
  explain(rt.rt, unseen, 0, &again);  // size 0: only the length
  EXPECT_EQ(again, needed);

  EXPECT_EQ(explain(rt.rt, relu_record()), "Relu: no static kernel of this op is installed for SoC host");
  char buf[8];
  EXPECT_EQ(skb_runtime_explain(rt.rt, "{\"op_type\": 1}", buf, sizeof buf, nullptr), SKB_ERR_INVALID);
  EXPECT_EQ(skb_runtime_explain(nullptr, "{}", buf, sizeof buf, nullptr), SKB_ERR_INVALID);
  // A NULL argument is said in the words of the entry called.
  skb_op* op = nullptr;
  EXPECT_EQ(skb_runtime_find_dynamic(rt.rt, nullptr, &op), SKB_ERR_INVALID);
  EXPECT_STREQ(skb_last_error(), "skb_runtime_find_dynamic: NULL argument");
  EXPECT_EQ(skb_runtime_find(rt.rt, nullptr, &op), SKB_ERR_INVALID);
  EXPECT_STREQ(skb_last_error(), "skb_runtime_find: NULL argument");
}

TEST(Runtime, ADynamicKernelServesEveryRowMajorFormatAndRefusesOthers) {
  Runtime rt(fresh_library("formats"));
  // Add's twin was built from an ND record; a call of an unseen shape in each plain format.
  for (const char* format : {"ND", "NCHW", "NHWC", "HWCN"}) {
    Json rec = record("Add", {tensor("float", {2, 3, 4, 5}, 0, format), tensor("float", {2, 3, 4, 5}, 1, format)},
                      {tensor("float", {2, 3, 4, 5}, 0, format)});
    Op op(rt.rt, rec);
    ASSERT_EQ(op.rc, SKB_OK) << format << ": " << skb_last_error();
    EXPECT_EQ(skb_op_kind(op.op), SKB_KERNEL_DYNAMIC) << format;
    EXPECT_EQ(run_and_compare(op, rec), "") << format;
  }
  Json nz = record("Add",
                   {tensor("float", {1, 1, 16, 16}, 0, "FRACTAL_NZ"), tensor("float", {1, 1, 16, 16}, 1, "FRACTAL_NZ")},
                   {tensor("float", {1, 1, 16, 16}, 0, "FRACTAL_NZ")});
  Op refused(rt.rt, nz);
  EXPECT_EQ(refused.rc, SKB_ERR_UNSUPPORTED);
  EXPECT_EQ(refused.op, nullptr);
  EXPECT_NE(std::string(skb_last_error()).find("format FRACTAL_NZ: a dynamic kernel computes row-major layouts only"),
            std::string::npos)
      << skb_last_error();
  // skb_runtime_explain says what find answers.
  std::string why = explain(rt.rt, nz);
  EXPECT_NE(why.find("; the dynamic kernel of its op and dtypes cannot serve it: format FRACTAL_NZ"), std::string::npos)
      << why;
  EXPECT_EQ(why.find("serves it"), std::string::npos) << why;
}

TEST(Runtime, ACallOfAnAttributeTheTemplatesDoNotComputeIsRefusedNeverRun) {
  Runtime rt(fresh_library("unsupported"));
  Json quantized = matmul_record();  // its twin is installed, and must not serve it
  quantized["attrs"].push_back(attr("offset_x", 2, "int", 3));
  Op a(rt.rt, quantized);
  EXPECT_EQ(a.rc, SKB_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(skb_last_error()).find("MatMulV2: attr offset_x 3: a quantization offset"), std::string::npos)
      << skb_last_error();
  EXPECT_EQ(
      explain(rt.rt, quantized).rfind("MatMulV2: refused as unsupported: attr offset_x 3: a quantization offset", 0),
      0u)
      << explain(rt.rt, quantized);
  Json unknown = add_record();
  unknown["attrs"].push_back(attr("alpha", 0, "float", 0.5));
  Op b(rt.rt, unknown);
  EXPECT_EQ(b.rc, SKB_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(skb_last_error()).find("attr alpha: not one the Add template reads"), std::string::npos)
      << skb_last_error();
  Json zero = matmul_record();  // offset_x 0 is what the templates compute
  zero["attrs"].push_back(attr("offset_x", 2, "int", 0));
  Op c(rt.rt, zero);
  EXPECT_EQ(c.rc, SKB_OK) << skb_last_error();
}

TEST(Runtime, EveryFieldOfTheSignatureChangesTheMatch) {
  Runtime rt(fresh_library("fields"));
  ASSERT_NE(rt.rt, nullptr);
  Op base(rt.rt, matmul_record());
  ASSERT_EQ(base.rc, SKB_OK) << skb_last_error();
  ASSERT_EQ(skb_op_kind(base.op), SKB_KERNEL_STATIC);
  using Edit = std::pair<std::string, Json>;  // JSON pointer, new value
  // Each change keeps the call consistent with its op (a contradiction is refused: ShapeProperty).
  const std::vector<std::vector<Edit>> changes = {
      {{"/op_type", "BatchMatMulV2"}},
      {{"/inputs/0/shape", {5, 8}}, {"/inputs/1/shape", {8, 3}}},
      {{"/inputs/1/shape", {7, 4}}, {"/outputs/0/shape", {5, 4}}},
      {{"/inputs/0/dtype", "float16"}},
      {{"/outputs/0/dtype", "bfloat16"}},
      {{"/inputs/0/format", "NCHW"}},
      {{"/inputs/2", tensor("float", {3}, 2)}},
      {{"/attrs/0/value", true}, {"/inputs/0/shape", {7, 5}}},
      {{"/attrs/1/value", true}, {"/inputs/1/shape", {3, 7}}},
      {{"/attrs/1/name", "transpose_b"}},
      {{"/impl_mode", "high_precision"}},
      {{"/deterministic", "true"}},
      {{"/deterministic_level", 1}},
      {{"/platform_info/cube_core_cnt", 20}},
      {{"/platform_info/vector_core_cnt", 40}},
      {{"/extra_params", {{"opt", 1}}}},
  };
  for (const auto& edits : changes) {
    Json rec = matmul_record();
    for (const auto& [pointer, value] : edits) rec[Json::json_pointer(pointer)] = value;
    const std::string& pointer = edits[0].first;
    Op op(rt.rt, rec);
    // Another kernel, none, or refused: a BatchMatMulV2 with MatMulV2's attribute names, or an
    // attribute no template reads, is SKB_ERR_UNSUPPORTED (its twin would ignore the attribute).
    EXPECT_TRUE(op.rc == SKB_ERR_NOT_FOUND || op.rc == SKB_ERR_UNSUPPORTED ||
                (op.rc == SKB_OK && skb_op_kind(op.op) == SKB_KERNEL_DYNAMIC))
        << pointer << ": rc " << op.rc << " " << op.name() << " " << skb_last_error();
    EXPECT_NE(op.name(), base.name()) << pointer;
  }
  // What does not make another kernel does not change the match.
  const std::vector<Edit> same = {
      {"/inputs/0/name", "a"}, {"/tune_mode", "static_kernel"}, {"/inputs/0/param_type", "optional"}};
  for (const auto& [pointer, value] : same) {
    Json rec = matmul_record();
    rec[Json::json_pointer(pointer)] = value;
    Op op(rt.rt, rec);
    ASSERT_EQ(op.rc, SKB_OK) << pointer << ": " << skb_last_error();
    EXPECT_EQ(op.name(), base.name()) << pointer;
  }
}

TEST(Runtime, AnUnseenShapeFallsBackToTheDynamicKernel) {
  Runtime rt(fresh_library("fallback"));
  ASSERT_NE(rt.rt, nullptr);
  Json rec = record("Add", {tensor("float", {2, 3, 8}, 0), tensor("float", {8}, 1)}, {tensor("float", {2, 3, 8}, 0)});
  Op op(rt.rt, rec);
  ASSERT_EQ(op.rc, SKB_OK) << skb_last_error();
  EXPECT_EQ(skb_op_kind(op.op), SKB_KERNEL_DYNAMIC);
  EXPECT_EQ(run_and_compare(op, rec), "");
  Op none(rt.rt, record("Square", {tensor("int32", {4}, 0)}, {tensor("int32", {4}, 0)}));
  EXPECT_EQ(none.rc, SKB_ERR_NOT_FOUND);
  EXPECT_NE(std::string(skb_last_error()).find("Square"), std::string::npos) << skb_last_error();
}

// The dynamic twin of a call a static kernel serves, to compare the two; host buffers through
// every entry point of a host kernel.
TEST(Runtime, TheDynamicTwinIsFoundOnAskingAndEveryEntryPointRunsAHostKernel) {
  Runtime rt(fresh_library("twin"));
  ASSERT_NE(rt.rt, nullptr);
  Json rec = add_record();
  Op fixed(rt.rt, rec), twin(rt.rt, rec, true);
  ASSERT_EQ(fixed.rc, SKB_OK) << skb_last_error();
  ASSERT_EQ(twin.rc, SKB_OK) << skb_last_error();
  EXPECT_EQ(skb_op_kind(fixed.op), SKB_KERNEL_STATIC);
  EXPECT_EQ(skb_op_kind(twin.op), SKB_KERNEL_DYNAMIC);
  EXPECT_NE(fixed.name(), twin.name());
  EXPECT_EQ(skb_op_device(twin.op), SKB_DEVICE_HOST);
  EXPECT_EQ(run_and_compare(twin, rec), "");
  std::vector<float> a(20, 1.5f), b(20, 2.0f), y(20, 0.f);
  const void* in[] = {a.data(), b.data()};
  void* out[] = {y.data()};
  ASSERT_EQ(skb_op_run_host(fixed.op, in, out), SKB_OK) << skb_last_error();
  EXPECT_EQ(y[19], 3.5f);
  y.assign(20, 0.f);
  ASSERT_EQ(skb_op_launch(twin.op, in, out, nullptr), SKB_OK) << skb_last_error();
  EXPECT_EQ(y[0], 3.5f);
  Op none(rt.rt, record("Square", {tensor("int32", {4}, 0)}, {tensor("int32", {4}, 0)}), true);
  EXPECT_EQ(none.rc, SKB_ERR_NOT_FOUND);
  EXPECT_NE(std::string(skb_last_error()).find("no dynamic kernel"), std::string::npos) << skb_last_error();
  EXPECT_EQ(skb_op_device(nullptr), 0);
  EXPECT_EQ(skb_op_run_host(nullptr, in, out), SKB_ERR_INVALID);
  EXPECT_EQ(skb_op_launch(nullptr, in, out, nullptr), SKB_ERR_INVALID);
}

TEST(Runtime, AKernelWhoseBytesDoNotMatchTheIndexIsRefused) {
  fs::path lib = fresh_library("tampered");
  fs::path victim;
  for (const auto& e : fs::recursive_directory_iterator(lib))
    if (e.path().extension() == ".so" && e.path().filename().string().rfind("SoftmaxV2_", 0) == 0) {
      Runtime probe(lib);
      Op op(probe.rt, softmax_record());
      if (op.name() + ".so" == e.path().filename().string()) victim = e.path();
    }
  ASSERT_FALSE(victim.empty());
  fs::permissions(victim, fs::perms::owner_write, fs::perm_options::add);
  {
    std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x7f');
  }
  Runtime rt(lib);
  Op op(rt.rt, softmax_record());
  EXPECT_EQ(op.rc, SKB_ERR_INTEGRITY);
  EXPECT_EQ(op.op, nullptr);
  EXPECT_NE(std::string(skb_last_error()).find(victim.string()), std::string::npos) << skb_last_error();
  Op other(rt.rt, add_record());  // the others still load
  EXPECT_EQ(other.rc, SKB_OK) << skb_last_error();
}

// A host kernel runs the bytes that were checked: they are loaded from a sealed memfd, never from
// the kernel's file again, which could be replaced between the check and the load (and a library
// dlopen has loaded from a path is what it hands back for that path, whatever the file holds now).
TEST(Runtime, AHostKernelIsLoadedFromTheBytesThatWereCheckedNotFromItsFile) {
  Runtime rt(fresh_library("checked-bytes"));
  Op op(rt.rt, add_record());
  ASSERT_EQ(op.rc, SKB_OK) << skb_last_error();
  std::ifstream maps("/proc/self/maps");
  std::string line, kernel = op.name(), from_memfd, from_file;
  while (std::getline(maps, line)) {
    if (line.find("/memfd:" + kernel) != std::string::npos) from_memfd = line;
    if (line.find("/" + kernel + ".so") != std::string::npos) from_file = line;
  }
  EXPECT_NE(from_memfd, "") << "no mapping of the kernel's memfd";
  EXPECT_EQ(from_file, "") << "the kernel was mapped from its file: " << from_file;
  EXPECT_EQ(run_and_compare(op, add_record()), "");
}

// A FIFO where a library's file should be (a kernel, an index) is refused, never waited on for
// ever: a reader opening one would block until a writer came.
TEST(Runtime, AFifoInPlaceOfALibraryFileIsRefusedNotWaitedOn) {
  fs::path lib = fresh_library("fifo");
  fs::path kernel;
  {
    Runtime probe(lib);
    Op op(probe.rt, softmax_record());
    ASSERT_EQ(op.rc, SKB_OK) << skb_last_error();
    for (const auto& e : fs::recursive_directory_iterator(lib))
      if (e.path().filename().string() == op.name() + ".so") kernel = e.path();
  }
  ASSERT_FALSE(kernel.empty());
  alarm(120);  // a blocked open ends the test, failed, rather than hanging it
  fs::remove(kernel);
  ASSERT_EQ(mkfifo(kernel.c_str(), 0644), 0);
  {
    Runtime rt(lib);
    Op op(rt.rt, softmax_record());
    EXPECT_EQ(op.rc, SKB_ERR_LOAD);
    EXPECT_NE(std::string(skb_last_error()).find(kernel.string() + ": not a regular file"), std::string::npos)
        << skb_last_error();
  }
  fs::path index;
  for (const auto& e : fs::recursive_directory_iterator(lib / "opp" / "static_kernel" / "ai_core" / "config"))
    if (e.path().filename() == "binary_info_config.json") index = e.path();
  ASSERT_FALSE(index.empty());
  fs::remove(index);
  ASSERT_EQ(mkfifo(index.c_str(), 0644), 0);
  skb_runtime* rt = nullptr;
  EXPECT_EQ(skb_runtime_open(lib.c_str(), nullptr, &rt), SKB_ERR_LOAD);
  EXPECT_NE(std::string(skb_last_error()).find("not a regular file"), std::string::npos) << skb_last_error();
  alarm(0);
}

// NULL where the call has a tensor is an error, never a kernel reading address 0; NULL for an
// absent optional input is how a call says it is absent.
TEST(Runtime, ANullBufferWhereTheCallHasATensorIsRefused) {
  Runtime rt(fresh_library("null-buffers"));
  Op mm(rt.rt, matmul_record());
  ASSERT_EQ(mm.rc, SKB_OK) << skb_last_error();
  std::vector<float> a(35), b(21), c(15);
  const void* in[] = {a.data(), b.data(), nullptr, nullptr};  // bias and offset_w absent
  void* out[] = {c.data()};
  EXPECT_EQ(skb_op_run(mm.op, in, out), SKB_OK) << skb_last_error();
  EXPECT_EQ(skb_op_run(mm.op, nullptr, nullptr), SKB_ERR_INVALID);
  EXPECT_STREQ(skb_last_error(), "skb_op_run: the inputs array is NULL, where the call has a tensor");
  const void* no_b[] = {a.data(), nullptr, nullptr, nullptr};
  EXPECT_EQ(skb_op_run_host(mm.op, no_b, out), SKB_ERR_INVALID);
  EXPECT_STREQ(skb_last_error(), "skb_op_run_host: input 1 is NULL, where the call has a tensor");
  void* no_c[] = {nullptr};
  EXPECT_EQ(skb_op_launch(mm.op, in, no_c, nullptr), SKB_ERR_INVALID);
  EXPECT_STREQ(skb_last_error(), "skb_op_launch: output 0 is NULL, where the call has a tensor");
  Op dyn(rt.rt, matmul_record(), true);
  ASSERT_EQ(dyn.rc, SKB_OK) << skb_last_error();
  EXPECT_EQ(skb_op_run(dyn.op, no_b, out), SKB_ERR_INVALID);
}

TEST(Runtime, ReloadFindsPackagesInstalledLater) {
  fs::path lib = fresh_library("reload");
  Runtime rt(lib);
  ASSERT_NE(rt.rt, nullptr);
  Op before(rt.rt, relu_record());
  EXPECT_EQ(before.rc, SKB_ERR_NOT_FOUND);
  Op add(rt.rt, add_record());
  ASSERT_EQ(add.rc, SKB_OK);
  ASSERT_EQ(sh({"sh", Packages::get().second.string(), "--quiet", "--install-path=" + lib.string()}), 0);
  ASSERT_EQ(skb_runtime_reload(rt.rt), SKB_OK) << skb_last_error();
  Op after(rt.rt, relu_record());
  ASSERT_EQ(after.rc, SKB_OK) << skb_last_error();
  EXPECT_EQ(skb_op_kind(after.op), SKB_KERNEL_STATIC);
  EXPECT_EQ(run_and_compare(after, relu_record()), "");
  EXPECT_EQ(run_and_compare(add, add_record()), "");  // resolved before the reload, still runs
}

TEST(Runtime, ReloadingWhileInstallsAndUninstallsRunNeverFails) {
  fs::path lib = fresh_library("concurrent");
  Runtime rt(lib);
  ASSERT_NE(rt.rt, nullptr);
  std::atomic<bool> done{false};
  std::atomic<int> reloads{0}, failures{0}, relu_hits{0};
  std::string first_failure;
  std::thread reader([&] {
    while (!done) {
      int rc = skb_runtime_reload(rt.rt);
      Op add(rt.rt, add_record());
      Op relu(rt.rt, relu_record());
      bool ok = rc == SKB_OK && add.rc == SKB_OK && skb_op_kind(add.op) == SKB_KERNEL_STATIC &&
                (relu.rc == SKB_OK || relu.rc == SKB_ERR_NOT_FOUND);
      if (!ok && failures++ == 0)
        first_failure = fmt::format("reload {} add {} relu {}: {}", rc, add.rc, relu.rc, skb_last_error());
      relu_hits += relu.rc == SKB_OK;
      ++reloads;
    }
  });
  const int cycles = 4;
  for (int i = 0; i < cycles; ++i) {
    EXPECT_EQ(sh({"sh", Packages::get().second.string(), "--quiet", "--install-path=" + lib.string()}), 0);
    EXPECT_EQ(sh({"sh", Packages::get().second.string(), "--quiet", "--uninstall", "--install-path=" + lib.string()}),
              0);
  }
  done = true;
  reader.join();
  EXPECT_EQ(failures, 0) << first_failure;
  EXPECT_GT(reloads, 10);
  std::printf("%d reloads during %d installs and %d uninstalls, %d found the second package, %d failed\n",
              reloads.load(), cycles, cycles, relu_hits.load(), failures.load());
}

TEST(Runtime, BadArgumentsAreErrorsNotCrashes) {
  skb_runtime* rt = nullptr;
  EXPECT_EQ(skb_runtime_open((root() / "libs" / "none").c_str(), nullptr, &rt), SKB_ERR_LOAD);
  EXPECT_EQ(rt, nullptr);
  EXPECT_NE(std::string(skb_last_error()).find("no installed kernels"), std::string::npos) << skb_last_error();
  Runtime ok(fresh_library("bad-args"));
  // A SoC named as -v takes it, not by its folder: the message lists what is installed.
  EXPECT_EQ(skb_runtime_open(fresh_library("bad-args-soc").c_str(), "Ascend910B3", &rt), SKB_ERR_LOAD);
  EXPECT_NE(std::string(skb_last_error()).find("(installed: host; a SoC is named by its folder in config/"),
            std::string::npos)
      << skb_last_error();
  skb_op* op = nullptr;
  EXPECT_EQ(skb_runtime_find(ok.rt, "{\"op_type\": 3}", &op), SKB_ERR_INVALID);
  EXPECT_NE(std::string(skb_last_error()).find("/op_type"), std::string::npos) << skb_last_error();
  EXPECT_EQ(skb_runtime_find(ok.rt, "{not json", &op), SKB_ERR_INVALID);
  // Larger than any op record may be (a valid one padded): refused before it is parsed.
  std::string padded = add_record().dump();
  padded.insert(padded.size() - 1, ", \"padding\": \"" + std::string(opmodel::kMaxRecordSize, 'x') + "\"");
  EXPECT_EQ(skb_runtime_find(ok.rt, padded.c_str(), &op), SKB_ERR_INVALID);
  EXPECT_NE(std::string(skb_last_error()).find("larger than 4194304 bytes"), std::string::npos) << skb_last_error();
  EXPECT_EQ(skb_runtime_find(ok.rt, nullptr, &op), SKB_ERR_INVALID);
  EXPECT_EQ(skb_op_run(nullptr, nullptr, nullptr), SKB_ERR_INVALID);
  EXPECT_EQ(op, nullptr);
}

}  // namespace
}  // namespace skb::test
