#include "runtime/cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <mutex>

#include "runtime/kernel_module.h"
#include "skb/runtime.h"

namespace skb::runtime {
namespace {

const char* driver_path() {
  const char* p = std::getenv("SKB_CUDA_DRIVER");
  return p && *p ? p : "libcuda.so.1";
}

template <typename F>
void resolve(void* handle, const char* name, F*& fn) {
  fn = reinterpret_cast<F*>(dlsym(handle, name));
  if (!fn)
    throw RuntimeError(SKB_ERR_UNSUPPORTED,
                       fmt::format("cuda kernels need the NVIDIA driver: {} has no {} (a driver older than CUDA 4?)",
                                   driver_path(), name));
}

}  // namespace

CudaDriver& CudaDriver::get() {
  static std::mutex mu;
  static CudaDriver* driver = nullptr;  // never destroyed: kernels may be unloaded until exit
  std::lock_guard<std::mutex> lock(mu);
  if (!driver) {
    std::unique_ptr<CudaDriver> d(new CudaDriver);
    d->open();  // throws: nothing is kept, the next call tries again
    driver = d.release();
  }
  return *driver;
}

void CudaDriver::open() {
  handle_ = dlopen(driver_path(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_)
    throw RuntimeError(SKB_ERR_UNSUPPORTED,
                       fmt::format("cuda kernels need the NVIDIA driver, and it could not be opened: {} "
                                   "(no driver on this machine, or set SKB_CUDA_DRIVER to its libcuda.so.1)",
                                   dlerror()));
  resolve(handle_, "cuInit", cuInit);
  resolve(handle_, "cuGetErrorName", cuGetErrorName);
  resolve(handle_, "cuGetErrorString", cuGetErrorString);
  check(cuInit(0), fmt::format("cuda kernels need a GPU: cuInit ({})", driver_path()), SKB_ERR_UNSUPPORTED);
  resolve(handle_, "cuDeviceGet", cuDeviceGet);
  resolve(handle_, "cuDeviceGetName", cuDeviceGetName);
  resolve(handle_, "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain);
  resolve(handle_, "cuCtxPushCurrent_v2", cuCtxPushCurrent);
  resolve(handle_, "cuCtxPopCurrent_v2", cuCtxPopCurrent);
  resolve(handle_, "cuModuleLoadData", cuModuleLoadData);
  resolve(handle_, "cuModuleUnload", cuModuleUnload);
  resolve(handle_, "cuModuleGetFunction", cuModuleGetFunction);
  resolve(handle_, "cuModuleGetGlobal_v2", cuModuleGetGlobal);
  resolve(handle_, "cuFuncSetAttribute", cuFuncSetAttribute);
  resolve(handle_, "cuLaunchKernel", cuLaunchKernel);
  resolve(handle_, "cuStreamSynchronize", cuStreamSynchronize);
  resolve(handle_, "cuMemAlloc_v2", cuMemAlloc);
  resolve(handle_, "cuMemFree_v2", cuMemFree);
  resolve(handle_, "cuMemcpyHtoD_v2", cuMemcpyHtoD);
  resolve(handle_, "cuMemcpyDtoH_v2", cuMemcpyDtoH);
  resolve(handle_, "cuEventCreate", cuEventCreate);
  resolve(handle_, "cuEventDestroy_v2", cuEventDestroy);
  resolve(handle_, "cuEventRecord", cuEventRecord);
  resolve(handle_, "cuEventSynchronize", cuEventSynchronize);
  resolve(handle_, "cuEventElapsedTime", cuEventElapsedTime);
  cuLaunchKernelEx = reinterpret_cast<decltype(cuLaunchKernelEx)>(dlsym(handle_, "cuLaunchKernelEx"));
  cuTensorMapEncodeTiled = reinterpret_cast<decltype(cuTensorMapEncodeTiled)>(dlsym(handle_, "cuTensorMapEncodeTiled"));
  Result (*get_version)(int*) = nullptr;
  resolve(handle_, "cuDriverGetVersion", get_version);
  get_version(&driver_version_);
  int device = 0;
  check(cuDeviceGet(&device, 0), "cuda kernels need a GPU: cuDeviceGet(0)", SKB_ERR_UNSUPPORTED);
  char name[256] = {};
  if (cuDeviceGetName(name, sizeof name - 1, device) == 0) device_name_ = name;
  check(cuDevicePrimaryCtxRetain(&context_, device), "cuDevicePrimaryCtxRetain", SKB_ERR_UNSUPPORTED);
  // The driver stays open and the context retained for the process's life, as the CUDA runtime
  // keeps them: kernels may be loaded until exit.
}

void CudaDriver::check(Result r, const std::string& what, int code) const {
  if (r == 0) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(r, &name) != 0 || !name) name = "CUDA error";
  if (cuGetErrorString(r, &text) != 0 || !text) text = "no description";
  throw RuntimeError(code, fmt::format("{}: {} ({}): {}", what, name, r, text));
}

CudaDriver::Scope::Scope(const CudaDriver& d) : d_(d) {
  d_.check(d_.cuCtxPushCurrent(d_.context_), "cuCtxPushCurrent", SKB_ERR_KERNEL);
}

CudaDriver::Scope::~Scope() {
  Context popped = nullptr;
  d_.cuCtxPopCurrent(&popped);
}

CudaDriver::Buffer::Buffer(const CudaDriver& d, std::size_t bytes) : d_(d) {
  d_.check(d_.cuMemAlloc(&ptr_, bytes ? bytes : 1), fmt::format("cuMemAlloc({} bytes)", bytes), SKB_ERR_KERNEL);
}

CudaDriver::Buffer::~Buffer() {
  if (ptr_) d_.cuMemFree(ptr_);
}

}  // namespace skb::runtime
