// The C API of skb_runtime: every entry point catches, records the message for skb_last_error
// and returns a status code; nothing throws across the C boundary.
#include "skb/runtime.h"

#include <fmt/format.h>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "common/error.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "opmodel/defines.h"
#include "opmodel/op_record.h"
#include "opmodel/shape_rules.h"
#include "opmodel/support.h"
#include "packager/format/manifest.h"
#include "runtime/answer.h"
#include "runtime/call_args.h"
#include "runtime/call_buffers.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_launch.h"
#include "runtime/index_reader.h"
#include "runtime/kernel_module.h"
#include "runtime/miss_recorder.h"
#include "runtime/payoff.h"

using skb::runtime::CallArgs;
using skb::runtime::CallBuffers;
using skb::runtime::CudaDriver;
using skb::runtime::CudaLaunch;
using skb::runtime::Index;
using skb::runtime::IndexEntry;
using skb::runtime::KernelModule;
using skb::runtime::RuntimeError;

struct skb_runtime {
  std::filesystem::path root;
  std::string soc;
  mutable std::mutex mu;
  std::shared_ptr<const Index> index;
  // Verified and loaded kernels, by path and sha256: each is hashed once per runtime.
  std::map<std::string, std::shared_ptr<KernelModule>> modules;
};

struct skb_op {
  std::shared_ptr<KernelModule> module;
  std::unique_ptr<CallArgs> args;        // dynamic host kernels only
  std::unique_ptr<CudaLaunch> cuda;      // cuda kernels only
  std::unique_ptr<CallBuffers> buffers;  // which buffers a run must be given
  int kind = SKB_KERNEL_STATIC;
  std::string name, package;
  std::string why;  // why a static kernel the call has was not served (payoff evidence)
};

namespace {

thread_local std::string last_error;

template <typename F>
int guarded(F&& body) {
  try {
    body();
    last_error.clear();
    return SKB_OK;
  } catch (const RuntimeError& e) {
    last_error = e.what();
    return e.code;
  } catch (const skb::common::Error& e) {
    last_error = e.what();
    return SKB_ERR_LOAD;
  } catch (const std::bad_alloc&) {
    last_error = "out of memory";
    return SKB_ERR_LOAD;
  } catch (const std::exception& e) {
    last_error = e.what();
    return SKB_ERR_INVALID;
  }
}

void require(bool ok, const char* what) {
  if (!ok) throw RuntimeError(SKB_ERR_INVALID, what);
}

// The index; and the driver, when the library holds cuda kernels (so that a machine without one
// learns it when it opens the library, not at its first call).
std::shared_ptr<const Index> load_index(const skb_runtime& rt) {
  auto index =
      std::make_shared<const Index>(skb::runtime::with_payoff(skb::runtime::read_index(rt.root, rt.soc), rt.root));
  for (const auto& [key, entry] : index->by_key)
    if (entry.launch.on_device()) {
      CudaDriver::get();
      break;
    }
  return index;
}

// A loaded kernel's place in the runtime's cache: its file and the bytes the index says it has.
std::string module_key(const IndexEntry& entry) { return entry.bin.string() + "\n" + entry.sha256; }

std::shared_ptr<KernelModule> module_for(skb_runtime& rt, const IndexEntry& entry) {
  std::lock_guard<std::mutex> lock(rt.mu);
  const std::string key = module_key(entry);
  if (auto it = rt.modules.find(key); it != rt.modules.end()) return it->second;
  auto module = KernelModule::load(entry);  // throws: nothing is cached
  rt.modules.emplace(key, module);
  return module;
}

skb::opmodel::OpRecord parse_call(const char* op_json) {
  if (std::strlen(op_json) > skb::opmodel::kMaxRecordSize)
    throw RuntimeError(SKB_ERR_INVALID, fmt::format("op description: larger than {} bytes, the most an op record "
                                                    "may be",
                                                    skb::opmodel::kMaxRecordSize));
  try {
    skb::opmodel::OpRecord record = skb::opmodel::parse_op_record(skb::common::parse_json(op_json));
    // A kernel of any library, however it was built, is only ever given shapes that agree.
    skb::opmodel::check_shapes(record);
    return record;
  } catch (const skb::common::FieldError& e) {
    throw RuntimeError(SKB_ERR_INVALID, "op description: " + e.describe());
  }
}

}  // namespace

namespace {

int run_on_host(const skb_op* op, const void* const* inputs, void* const* outputs) {
  int rc = op->kind == SKB_KERNEL_DYNAMIC
               ? reinterpret_cast<skb_kernel_dynamic_fn>(op->module->symbol())(op->args->get(), inputs, outputs)
               : reinterpret_cast<skb_kernel_fn>(op->module->symbol())(inputs, outputs);
  if (rc != 0) {
    last_error = fmt::format("kernel {} returned {}", op->name, rc);
    return SKB_ERR_KERNEL;
  }
  last_error.clear();
  return SKB_OK;
}

// A cuda kernel's error names the kernel.
template <typename F>
int on_device(const skb_op* op, F&& body) {
  return guarded([&] {
    try {
      body(*op->cuda, *op->module);
    } catch (const RuntimeError& e) {
      throw RuntimeError(e.code, fmt::format("kernel {}: {}", op->name, e.what()));
    }
  });
}

// What every entry that runs a kernel checks first (`fn` names it): the op, and the buffers
// against the call's record.
int check_run(const skb_op* op, const void* const* inputs, void* const* outputs, const char* fn) {
  if (!op) {
    last_error = fmt::format("{}: op is NULL", fn);
    return SKB_ERR_INVALID;
  }
  return guarded([&] { op->buffers->check(inputs, outputs, fn); });
}

int find_kernel(skb_runtime* rt, const char* op_json, skb_op** out, bool dynamic_only) {
  return guarded([&] {
    require(rt && op_json && out,
            dynamic_only ? "skb_runtime_find_dynamic: NULL argument" : "skb_runtime_find: NULL argument");
    *out = nullptr;
    skb::opmodel::OpRecord record = parse_call(op_json);
    if (std::string why = skb::opmodel::unsupported_attrs(record); !why.empty())
      throw RuntimeError(SKB_ERR_UNSUPPORTED, record.op_type + ": " + why);
    std::shared_ptr<const Index> index;
    {
      std::lock_guard<std::mutex> lock(rt->mu);
      index = rt->index;
    }
    auto op = std::make_unique<skb_op>();
    auto hit = dynamic_only ? index->by_key.end()
                            : index->by_key.find(skb::common::sha256_hex(skb::opmodel::canonical_signature(record)));
    if (const std::string* why = hit == index->by_key.end() ? nullptr : index->withheld_reason(hit->first)) {
      op->why = *why;
      hit = index->by_key.end();
    }
    if (hit == index->by_key.end()) {
      hit = index->by_key.find(skb::common::sha256_hex(skb::opmodel::dynamic_signature(record)));
      if (hit == index->by_key.end())
        throw RuntimeError(
            SKB_ERR_NOT_FOUND,
            dynamic_only ? fmt::format("{}: no dynamic kernel for its dtypes in SoC {}", record.op_type, index->soc)
                         : fmt::format("{}: no static kernel for this call and no dynamic kernel for "
                                       "its dtypes in SoC {}",
                                       record.op_type, index->soc));
    }
    const IndexEntry& entry = hit->second;
    if (entry.variant == "dynamic") {
      if (std::string why = skb::opmodel::unsupported_by_dynamic(record); !why.empty())
        throw RuntimeError(SKB_ERR_UNSUPPORTED,
                           dynamic_only
                               ? fmt::format("{}: its dynamic kernel cannot serve it: {}", record.op_type, why)
                               : fmt::format("{}: no static kernel for this call, and {}", record.op_type, why));
      op->kind = SKB_KERNEL_DYNAMIC;
      if (!entry.launch.on_device()) op->args = std::make_unique<CallArgs>(record);
    }
    if (entry.launch.on_device())
      op->cuda = std::make_unique<CudaLaunch>(record, entry.launch, op->kind == SKB_KERNEL_DYNAMIC);
    op->module = module_for(*rt, entry);
    op->buffers = std::make_unique<CallBuffers>(record);
    op->name = entry.kernel_name;
    op->package = entry.package;
    // A matmul's dynamic path on a GPU is cuBLASLt where it opens: what the call runs without skb.
    if (op->cuda && op->kind == SKB_KERNEL_DYNAMIC && skb::runtime::is_matmul(record.op_type)) {
      std::string why;
      if (auto gemm = skb::runtime::CublasGemm::plan(record, why)) {
        op->cuda->use(std::move(gemm));
        op->name = skb::runtime::kCublasLt;
      }
    }
    *out = op.release();
  });
}

}  // namespace

extern "C" {

int skb_runtime_open(const char* install_path, const char* soc, skb_runtime** out) {
  return guarded([&] {
    require(out != nullptr, "skb_runtime_open: out is NULL");
    *out = nullptr;
    const char* path = install_path ? install_path : std::getenv("SKB_INSTALL_PATH");
    require(path && *path, "skb_runtime_open: no install path given and SKB_INSTALL_PATH is not set");
    auto rt = std::make_unique<skb_runtime>();
    rt->root = skb::packager::library_root(path);
    rt->soc = soc ? soc : "";
    rt->index = load_index(*rt);
    rt->soc = rt->index->soc;
    *out = rt.release();
  });
}

int skb_runtime_reload(skb_runtime* rt) {
  return guarded([&] {
    require(rt != nullptr, "skb_runtime_reload: runtime is NULL");
    auto fresh = load_index(*rt);
    std::lock_guard<std::mutex> lock(rt->mu);
    rt->index = std::move(fresh);
    // A kernel the index no longer lists (its package removed, or replaced by other bytes) is no
    // longer served; the ops resolved to it hold it themselves.
    std::set<std::string> listed;
    for (const auto& [key, entry] : rt->index->by_key) listed.insert(module_key(entry));
    for (auto it = rt->modules.begin(); it != rt->modules.end();)
      it = listed.count(it->first) ? std::next(it) : rt->modules.erase(it);
  });
}

size_t skb_runtime_kernel_count(const skb_runtime* rt) {
  if (!rt) return 0;
  std::lock_guard<std::mutex> lock(rt->mu);
  return rt->index->by_key.size();
}

const char* skb_last_error(void) { return last_error.c_str(); }

void skb_runtime_close(skb_runtime* rt) { delete rt; }

int skb_runtime_find(skb_runtime* rt, const char* op_json, skb_op** out) {
  int rc = find_kernel(rt, op_json, out, false);
  // A call whose static kernel is withheld is counted as dynamic, never recorded: it has its kernel.
  skb::runtime::note_find(op_json, rc, rc == SKB_OK ? (*out)->kind : 0, rc == SKB_OK ? &(*out)->name : nullptr,
                          rc == SKB_OK && !(*out)->why.empty());
  return rc;
}

int skb_runtime_find_dynamic(skb_runtime* rt, const char* op_json, skb_op** out) {
  return find_kernel(rt, op_json, out, true);
}

int skb_runtime_explain(skb_runtime* rt, const char* op_json, char* buf, size_t size, size_t* needed) {
  return guarded([&] {
    require(rt && op_json && (buf || size == 0), "skb_runtime_explain: NULL argument");
    skb::opmodel::OpRecord record = parse_call(op_json);
    std::shared_ptr<const Index> index;
    {
      std::lock_guard<std::mutex> lock(rt->mu);
      index = rt->index;
    }
    skb::runtime::InstalledSignatures signatures;
    std::string text = skb::runtime::answer(*index, record, signatures).why;
    if (!index->payoff_problem.empty()) text += " (" + index->payoff_problem + ")";
    if (needed) *needed = text.size();
    if (size > 0) {
      std::size_t n = std::min(size - 1, text.size());
      std::memcpy(buf, text.data(), n);
      buf[n] = '\0';
    }
  });
}

int skb_op_run(const skb_op* op, const void* const* inputs, void* const* outputs) {
  if (int rc = check_run(op, inputs, outputs, "skb_op_run"); rc != SKB_OK) return rc;
  if (!op->cuda) return run_on_host(op, inputs, outputs);
  return on_device(op, [&](const CudaLaunch& l, const KernelModule& m) { l.run(m, inputs, outputs); });
}

int skb_op_run_host(const skb_op* op, const void* const* inputs, void* const* outputs) {
  if (int rc = check_run(op, inputs, outputs, "skb_op_run_host"); rc != SKB_OK) return rc;
  if (!op->cuda) return run_on_host(op, inputs, outputs);
  return on_device(op, [&](const CudaLaunch& l, const KernelModule& m) { l.run_host(m, inputs, outputs); });
}

int skb_op_launch(const skb_op* op, const void* const* inputs, void* const* outputs, void* stream) {
  if (int rc = check_run(op, inputs, outputs, "skb_op_launch"); rc != SKB_OK) return rc;
  if (!op->cuda) return run_on_host(op, inputs, outputs);
  return on_device(op, [&](const CudaLaunch& l, const KernelModule& m) { l.launch(m, inputs, outputs, stream); });
}

int skb_op_device(const skb_op* op) { return !op ? 0 : op->cuda ? SKB_DEVICE_CUDA : SKB_DEVICE_HOST; }

int skb_op_kind(const skb_op* op) { return op ? op->kind : 0; }
const char* skb_op_kernel_name(const skb_op* op) { return op ? op->name.c_str() : ""; }
const char* skb_op_package(const skb_op* op) { return op ? op->package.c_str() : ""; }
const char* skb_op_why(const skb_op* op) { return op ? op->why.c_str() : ""; }
void skb_op_free(skb_op* op) { delete op; }

int skb_runtime_record_start(const char* dir) {
  return guarded([&] { skb::runtime::record_start(dir); });
}

int skb_runtime_record_stop(void) {
  return guarded([] { skb::runtime::MissRecorder::process().stop(); });
}

int skb_runtime_record_flush(void) {
  return guarded([] { skb::runtime::record_flush(); });
}

int skb_runtime_counts(skb_call_counts* out) {
  return guarded([&] {
    require(out != nullptr, "skb_runtime_counts: out is NULL");
    skb::runtime::fill_counts(*out);
  });
}

int skb_runtime_counts_text(char* buf, size_t size, size_t* needed) {
  return guarded([&] {
    require(buf || size == 0, "skb_runtime_counts_text: NULL buffer");
    skb::runtime::copy_text(skb::runtime::call_counts().text(), buf, size, needed);
  });
}

void skb_runtime_counts_reset(void) { skb::runtime::call_counts().clear(); }

}  // extern "C"
