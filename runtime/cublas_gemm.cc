#include "runtime/cublas_gemm.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "runtime/kernel_module.h"
#include "skb/runtime.h"

namespace skb::runtime {

// cuBLASLt's API, spelled without its header (cublasLt.h, CUDA 11 to 13): the values below are
// that header's.
struct CublasGemm::Lt {
  using Status = int;
  using Handle = void*;
  enum : int { kCompute32F = 68 };                   // CUBLAS_COMPUTE_32F: no TF32
  enum : int { kR32F = 0, kR16F = 2, kR16BF = 14 };  // cudaDataType
  enum : int { kTransA = 3, kTransB = 4, kEpilogue = 7, kBiasPointer = 8, kBiasDataType = 26 };
  enum : int { kBatchCount = 5, kStridedBatchOffset = 6 };  // cublasLtMatrixLayoutAttribute_t
  enum : int { kOpN = 0, kOpT = 1, kEpilogueBias = 4, kPrefMaxWorkspace = 1 };
  struct Heuristic {  // cublasLtMatmulHeuristicResult_t
    unsigned char algo[64];
    std::size_t workspace;
    Status state;
    float waves;
    int reserved[4];
  };

  Status (*create)(Handle*) = nullptr;
  Status (*desc_create)(void**, int, int) = nullptr;
  Status (*desc_destroy)(void*) = nullptr;
  Status (*desc_set)(void*, int, const void*, std::size_t) = nullptr;
  Status (*layout_create)(void**, int, std::uint64_t, std::uint64_t, std::int64_t) = nullptr;
  Status (*layout_destroy)(void*) = nullptr;
  Status (*layout_set)(void*, int, const void*, std::size_t) = nullptr;
  Status (*pref_create)(void**) = nullptr;
  Status (*pref_destroy)(void*) = nullptr;
  Status (*pref_set)(void*, int, const void*, std::size_t) = nullptr;
  Status (*heuristic)(Handle, void*, void*, void*, void*, void*, void*, int, Heuristic*, int*) = nullptr;
  Status (*matmul)(Handle, void*, const void*, const void*, void*, const void*, void*, const void*, const void*, void*,
                   void*, void*, const void*, void*, std::size_t, void*) = nullptr;
  Handle handle = nullptr;
  std::string problem;  // why it did not open, when it did not

  // The process's cuBLASLt, opened once; problem says why not.
  static const Lt& get() {
    static std::once_flag once;
    static Lt* lt = new Lt;  // never destroyed: plans may outlive static destruction
    std::call_once(once, [] { lt->open(); });
    return *lt;
  }

 private:
  template <typename F>
  bool resolve(void* h, const char* name, F*& fn) {
    fn = reinterpret_cast<F*>(dlsym(h, name));
    if (!fn) problem = fmt::format("cuBLASLt has no {}", name);
    return fn != nullptr;
  }

  void open() {
    const char* env = std::getenv("SKB_CUBLASLT");
    if (env && std::strcmp(env, "off") == 0) {
      problem = "cuBLASLt is off (SKB_CUBLASLT=off)";
      return;
    }
    void* h = nullptr;
    for (const char* name : {env && *env ? env : "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"})
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) {
      problem = fmt::format("cuBLASLt does not open here ({})", dlerror());
      return;
    }
    bool ok = resolve(h, "cublasLtCreate", create) && resolve(h, "cublasLtMatmulDescCreate", desc_create) &&
              resolve(h, "cublasLtMatmulDescDestroy", desc_destroy) &&
              resolve(h, "cublasLtMatmulDescSetAttribute", desc_set) &&
              resolve(h, "cublasLtMatrixLayoutCreate", layout_create) &&
              resolve(h, "cublasLtMatrixLayoutDestroy", layout_destroy) &&
              resolve(h, "cublasLtMatrixLayoutSetAttribute", layout_set) &&
              resolve(h, "cublasLtMatmulPreferenceCreate", pref_create) &&
              resolve(h, "cublasLtMatmulPreferenceDestroy", pref_destroy) &&
              resolve(h, "cublasLtMatmulPreferenceSetAttribute", pref_set) &&
              resolve(h, "cublasLtMatmulAlgoGetHeuristic", heuristic) && resolve(h, "cublasLtMatmul", matmul);
    if (!ok) return;
    CudaDriver& cuda = CudaDriver::get();
    CudaDriver::Scope scope(cuda);
    if (Status s = create(&handle); s != 0) {
      problem = fmt::format("cublasLtCreate: status {}", s);
      handle = nullptr;
    }
  }
};

namespace {

using opmodel::Slot;

int data_type(const std::string& dtype) {
  if (dtype == "float" || dtype == "float32") return CublasGemm::Lt::kR32F;
  if (dtype == "float16") return CublasGemm::Lt::kR16F;
  if (dtype == "bfloat16") return CublasGemm::Lt::kR16BF;
  return -1;
}

const opmodel::Tensor* tensor(const std::vector<Slot>& slots, std::size_t i) {
  return i < slots.size() && slots[i].kind == Slot::Kind::kTensor ? &slots[i].tensors[0] : nullptr;
}

bool flag(const opmodel::OpRecord& r, const char* name) {
  for (const auto& a : r.attrs)
    if (a.name == name) return a.value.is_boolean() ? a.value.get<bool>() : a.value.is_number() && a.value != 0;
  return false;
}

std::int64_t product(const std::vector<std::int64_t>& s, std::size_t drop) {
  std::int64_t n = 1;
  for (std::size_t i = 0; i + drop < s.size(); ++i) n *= s[i];
  return n;
}

}  // namespace

bool cublas_opens(std::string& why) {
  const CublasGemm::Lt& lt = CublasGemm::Lt::get();
  if (!lt.handle) why = lt.problem;
  return lt.handle != nullptr;
}

std::unique_ptr<CublasGemm> CublasGemm::plan(const opmodel::OpRecord& r, std::string& why) {
  const Lt& lt = Lt::get();
  if (!lt.handle) {
    why = lt.problem;
    return nullptr;
  }
  const bool mm = r.op_type == "MatMulV2";
  const opmodel::Tensor *a = tensor(r.inputs, 0), *b = tensor(r.inputs, 1), *bias = tensor(r.inputs, 2),
                        *y = tensor(r.outputs, 0);
  if ((!mm && r.op_type != "BatchMatMulV2") || !a || !b || !y || tensor(r.inputs, 3) || a->shape.size() < 2 ||
      b->shape.size() < 2 || y->shape.size() < 2) {
    why = "not a matmul cuBLASLt computes";
    return nullptr;
  }
  const int type = data_type(y->dtype);
  if (type < 0 || data_type(a->dtype) != type || data_type(b->dtype) != type || (bias && data_type(bias->dtype) < 0)) {
    why = fmt::format("cuBLASLt is not given {} x {} -> {}", a->dtype, b->dtype, y->dtype);
    return nullptr;
  }
  const bool ta = flag(r, mm ? "transpose_x1" : "adj_x1"), tb = flag(r, mm ? "transpose_x2" : "adj_x2");
  const auto &as = a->shape, &bs = b->shape, &ys = y->shape;
  const std::int64_t m = ys[ys.size() - 2], n = ys.back(), k = ta ? as[as.size() - 2] : as.back();
  const std::int64_t batches = product(ys, 2), a_batches = product(as, 2), b_batches = product(bs, 2);
  // Batches as strided batches: an operand has all of them or one, shared by every batch.
  if ((a_batches != batches && a_batches != 1) || (b_batches != batches && b_batches != 1) ||
      (bias && product(bias->shape, 0) != n)) {
    why = "its batches broadcast partly, which strided batches cannot say";
    return nullptr;
  }
  std::unique_ptr<CublasGemm> g(new CublasGemm);
  g->lt_ = &lt;
  g->bias_ = bias != nullptr;
  // Row-major y = op(a) op(b) is column-major y^T = op(b)^T op(a)^T: cuBLASLt's A is b, its B is a.
  auto fail = [&](const char* what, int s) {
    why = fmt::format("cuBLASLt {}: status {}", what, s);
    return nullptr;
  };
  if (int s = lt.desc_create(&g->desc_, Lt::kCompute32F, Lt::kR32F)) return fail("matmul descriptor", s);
  const int op_a = tb ? Lt::kOpT : Lt::kOpN, op_b = ta ? Lt::kOpT : Lt::kOpN;
  lt.desc_set(g->desc_, Lt::kTransA, &op_a, sizeof op_a);
  lt.desc_set(g->desc_, Lt::kTransB, &op_b, sizeof op_b);
  if (bias) {
    const int epilogue = Lt::kEpilogueBias, bias_type = data_type(bias->dtype);
    lt.desc_set(g->desc_, Lt::kEpilogue, &epilogue, sizeof epilogue);
    lt.desc_set(g->desc_, Lt::kBiasDataType, &bias_type, sizeof bias_type);
  }
  auto layout = [&](void** l, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t count,
                    std::int64_t stride) {
    if (int s = lt.layout_create(l, type, rows, cols, ld)) return s;
    const int c = static_cast<int>(batches);
    lt.layout_set(*l, Lt::kBatchCount, &c, sizeof c);
    const std::int64_t st = count == 1 ? 0 : stride;
    return lt.layout_set(*l, Lt::kStridedBatchOffset, &st, sizeof st);
  };
  if (int s = layout(&g->a_, tb ? k : n, tb ? n : k, tb ? k : n, b_batches, k * n)) return fail("layout of x2", s);
  if (int s = layout(&g->b_, ta ? m : k, ta ? k : m, ta ? m : k, a_batches, m * k)) return fail("layout of x1", s);
  if (int s = layout(&g->d_, n, m, n, batches, m * n)) return fail("layout of y", s);
  void* pref = nullptr;
  if (int s = lt.pref_create(&pref)) return fail("preference", s);
  const std::uint64_t max_workspace = std::uint64_t{32} << 20;
  lt.pref_set(pref, Lt::kPrefMaxWorkspace, &max_workspace, sizeof max_workspace);
  Lt::Heuristic h{};
  int found = 0;
  CudaDriver& cuda = CudaDriver::get();
  CudaDriver::Scope scope(cuda);
  const int s = lt.heuristic(lt.handle, g->desc_, g->a_, g->b_, g->d_, g->d_, pref, 1, &h, &found);
  lt.pref_destroy(pref);
  if (s || found < 1 || h.state) return fail("finds no algorithm for it", s ? s : h.state);
  std::memcpy(g->algo_, h.algo, sizeof g->algo_);
  g->workspace_bytes_ = h.workspace;
  if (h.workspace) g->workspace_ = std::make_unique<CudaDriver::Buffer>(cuda, h.workspace);
  return g;
}

CublasGemm::~CublasGemm() {
  if (!lt_) return;
  if (d_) lt_->layout_destroy(d_);
  if (b_) lt_->layout_destroy(b_);
  if (a_) lt_->layout_destroy(a_);
  if (desc_) lt_->desc_destroy(desc_);
}

void CublasGemm::launch(const void* const* in, void* const* out, void* stream) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (bias_) {
    const void* bias = in[2];  // the call's, on the plan's descriptor while it is enqueued
    lt_->desc_set(desc_, Lt::kBiasPointer, &bias, sizeof bias);
  }
  const float one = 1.f, zero = 0.f;
  void* workspace = workspace_ ? workspace_->address() : nullptr;
  CudaDriver& cuda = CudaDriver::get();
  CudaDriver::Scope scope(cuda);
  if (int s = lt_->matmul(lt_->handle, desc_, &one, in[1], a_, in[0], b_, &zero, out[0], d_, out[0], d_, algo_,
                          workspace, workspace_bytes_, stream))
    throw RuntimeError(SKB_ERR_KERNEL, fmt::format("cublasLtMatmul: status {}", s));
}

}  // namespace skb::runtime
