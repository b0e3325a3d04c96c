#include "runtime/kernel_module.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "packager/format/launch.h"
#include "runtime/cuda_driver.h"
#include "runtime/load_bytes.h"
#include "skb/runtime.h"

namespace skb::runtime {
namespace {

constexpr std::size_t kMaxKernelSize = std::size_t{1} << 30;

void check_sha(const IndexEntry& entry, const std::string& sha) {
  if (sha != entry.sha256)
    throw RuntimeError(SKB_ERR_INTEGRITY, fmt::format("kernel {}: {} has sha256 {}, the index says {}; not loaded",
                                                      entry.kernel_name, entry.bin.string(), sha, entry.sha256));
}

// A constant a cubin defines (skb_cuda_abi.h's structs), read from the loaded module; none when
// it defines none. `where` names it in errors.
template <typename T>
std::optional<T> read_constant(CudaDriver& cuda, CudaDriver::Module module, const IndexEntry& entry, const char* symbol,
                               std::string& where) {
  CudaDriver::DevicePtr ptr = 0;
  std::size_t size = 0;
  const auto r = cuda.cuModuleGetGlobal(&ptr, &size, module, symbol);
  if (r == CudaDriver::kNotFound) return std::nullopt;
  where = fmt::format("kernel {}: {} of {}", entry.kernel_name, symbol, entry.bin.string());
  cuda.check(r, where, SKB_ERR_LOAD);
  if (size != sizeof(T))
    throw RuntimeError(SKB_ERR_LOAD, fmt::format("{}: {} bytes, expected {}", where, size, sizeof(T)));
  T value{};
  cuda.check(cuda.cuMemcpyDtoH(&value, ptr, sizeof value), where, SKB_ERR_LOAD);
  return value;
}

// The launch a cubin defines for its kernel; none when it defines none. A launch no GPU takes is
// refused at load, not at the first call; one that asks for more than 48 KiB of shared memory is
// given it (the driver's opt-in). A grid of 0 blocks is a call whose output is empty (a matmul of
// m, n or batch 0): nothing to compute, nothing launched.
std::optional<skb_cuda_launch> read_own_launch(CudaDriver& cuda, CudaDriver::Module module, CudaDriver::Function fn,
                                               const IndexEntry& entry) {
  std::string where;
  const auto own = read_constant<skb_cuda_launch>(cuda, module, entry, SKB_CUDA_LAUNCH_SYMBOL, where);
  if (!own) return std::nullopt;
  const skb_cuda_launch& l = *own;
  if (l.grid > packager::kMaxGrid || l.block == 0 || l.block % 32 || l.block > packager::kMaxBlock || l.reserved)
    throw RuntimeError(SKB_ERR_LOAD, fmt::format("{}: grid {}, block {}: expected a grid of 0 to {} blocks of whole "
                                                 "warps, at most {} threads",
                                                 where, l.grid, l.block, packager::kMaxGrid, packager::kMaxBlock));
  constexpr std::uint32_t kDefaultShared = 48 * 1024;
  if (l.shared_bytes > kDefaultShared)
    cuda.check(cuda.cuFuncSetAttribute(fn, CudaDriver::kMaxDynamicSharedSizeBytes, static_cast<int>(l.shared_bytes)),
               fmt::format("{}: {} bytes of shared memory", where, l.shared_bytes), SKB_ERR_LOAD);
  return l;
}

// The tensor maps a cubin's kernel reads through (skb_tma); none when it defines none. A plan
// the runtime cannot encode is refused at load.
std::optional<skb_cuda_tma_plan> read_tensor_maps(CudaDriver& cuda, CudaDriver::Module module,
                                                  const IndexEntry& entry) {
  std::string where;
  const auto maps = read_constant<skb_cuda_tma_plan>(cuda, module, entry, SKB_CUDA_TMA_SYMBOL, where);
  if (!maps) return std::nullopt;
  const skb_cuda_tma_plan& plan = *maps;
  bool ok = plan.count <= SKB_CUDA_MAX_TMA && plan.reserved == 0;
  for (std::uint32_t i = 0; ok && i < plan.count; ++i) {
    const skb_cuda_tma& m = plan.maps[i];
    ok = m.slot >= 0 && m.slot < SKB_MAX_SLOTS && m.rank >= 1 && m.rank <= SKB_CUDA_TMA_RANK && m.reserved == 0;
  }
  if (!ok)
    throw RuntimeError(SKB_ERR_LOAD,
                       fmt::format("{}: {} maps: expected at most {}, each of an input slot under {} "
                                   "and a rank of 1 to {}",
                                   where, plan.count, SKB_CUDA_MAX_TMA, SKB_MAX_SLOTS, SKB_CUDA_TMA_RANK));
  if (plan.count && !cuda.cuTensorMapEncodeTiled)
    throw RuntimeError(SKB_ERR_LOAD, fmt::format("{}: the kernel reads through tensor maps, and this driver "
                                                 "({}) has no cuTensorMapEncodeTiled (CUDA 12 or later has)",
                                                 where, cuda.driver_version()));
  return plan;
}

// Whether a cuda kernel is launched so that it starts while the grid before it finishes: it
// says it awaits that grid (skb_awaits), the driver can launch so (cuLaunchKernelEx, CUDA 12),
// and SKB_CUDA_DEPENDENT_LAUNCH is on (off by default).
bool launches_dependent(CudaDriver& cuda, CudaDriver::Module module, const IndexEntry& entry) {
  std::string where;
  const auto awaits = read_constant<std::uint32_t>(cuda, module, entry, SKB_CUDA_AWAITS_SYMBOL, where);
  if (awaits && *awaits != 1)
    throw RuntimeError(SKB_ERR_LOAD,
                       fmt::format("{}: {}, expected 1 (the kernel awaits the grids before it)", where, *awaits));
  const char* env = std::getenv("SKB_CUDA_DEPENDENT_LAUNCH");
  const bool on = env && (std::strcmp(env, "on") == 0 || std::strcmp(env, "1") == 0);
  return awaits && on && cuda.cuLaunchKernelEx;
}

}  // namespace

std::shared_ptr<KernelModule> KernelModule::load(const IndexEntry& entry) {
  std::shared_ptr<KernelModule> m(new KernelModule);
  // Either kind's bytes are read whole and checked before anything loads them: from a regular
  // file only (a FIFO would block the caller for ever).
  std::string bytes;
  try {
    bytes = common::read_file(entry.bin, kMaxKernelSize, common::Accept::kRegularFile);
  } catch (const common::Error& e) {
    throw RuntimeError(SKB_ERR_LOAD, fmt::format("kernel {}: {}", entry.kernel_name, e.what()));
  }
  check_sha(entry, common::sha256_hex(bytes));
  if (entry.launch.on_device()) {
    CudaDriver& cuda = CudaDriver::get();
    CudaDriver::Scope scope(cuda);
    CudaDriver::Module module = nullptr;
    cuda.check(cuda.cuModuleLoadData(&module, bytes.data()),
               fmt::format("kernel {}: loading {}", entry.kernel_name, entry.bin.string()), SKB_ERR_LOAD);
    m->handle_ = module;
    m->cuda_ = &cuda;
    CudaDriver::Function fn = nullptr;
    cuda.check(cuda.cuModuleGetFunction(&fn, module, entry.entry.c_str()),
               fmt::format("kernel {}: entry {} of {}", entry.kernel_name, entry.entry, entry.bin.string()),
               SKB_ERR_LOAD);
    m->symbol_ = fn;
    m->own_launch_ = read_own_launch(cuda, module, fn, entry);
    m->tensor_maps_ = read_tensor_maps(cuda, module, entry);
    m->dependent_launch_ = launches_dependent(cuda, module, entry);
    return m;
  }
  // The bytes just checked are what loads, not the file again.
  std::string why;
  m->handle_ = dlopen_bytes(bytes, entry.kernel_name, why);
  if (!m->handle_)
    throw RuntimeError(SKB_ERR_LOAD, fmt::format("kernel {}: {}: {}", entry.kernel_name, entry.bin.string(), why));
  m->symbol_ = dlsym(m->handle_, entry.entry.c_str());
  if (!m->symbol_)
    throw RuntimeError(
        SKB_ERR_LOAD, fmt::format("kernel {}: {} has no entry {}", entry.kernel_name, entry.bin.string(), entry.entry));
  return m;
}

KernelModule::~KernelModule() {
  if (!handle_) return;
  if (cuda_) {
    try {
      CudaDriver::Scope scope(*cuda_);
      cuda_->cuModuleUnload(handle_);
    } catch (const RuntimeError&) {
    }
  } else {
    dlclose(handle_);
  }
}

}  // namespace skb::runtime
