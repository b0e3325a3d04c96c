#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace skb::runtime {

/// The CUDA driver API, opened at run time (dlopen of libcuda.so.1, or of $SKB_CUDA_DRIVER):
/// skb needs no CUDA to build or link, and a host-only library never opens it. The types are
/// the driver's, spelled without its header.
class CudaDriver {
 public:
  using Result = int;
  using Context = void*;
  using Module = void*;
  using Function = void*;
  using Stream = void*;
  using DevicePtr = unsigned long long;

  static constexpr Result kNotFound = 500;                    // CUDA_ERROR_NOT_FOUND
  static constexpr int kMaxDynamicSharedSizeBytes = 8;        // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  static constexpr int kProgrammaticStreamSerialization = 6;  // CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION

  /// CUlaunchAttribute: an attribute's id, and its value (a union of 64 bytes).
  struct LaunchAttribute {
    int id;
    char pad[4];
    union {
      char bytes[64];
      int flag;
      std::uint64_t align;
    } value;
  };
  /// CUlaunchConfig.
  struct LaunchConfig {
    unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
    Stream stream;
    LaunchAttribute* attrs;
    unsigned num_attrs;
  };

  /// The driver, initialized, with device 0's primary context retained. Throws
  /// RuntimeError(SKB_ERR_UNSUPPORTED) naming what is missing: the driver library, one of its
  /// functions, or a GPU (the driver's own message). A failure is retried at the next call.
  static CudaDriver& get();

  /// Throws RuntimeError(code) "<what>: <CUDA_ERROR_NAME>: <driver's message>" unless r is 0.
  void check(Result r, const std::string& what, int code) const;

  /// Makes the primary context current on this thread for the guard's life, then restores the
  /// thread's own.
  class Scope {
   public:
    explicit Scope(const CudaDriver& d);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const CudaDriver& d_;
  };

  /// Device memory, freed with its owner.
  class Buffer {
   public:
    Buffer(const CudaDriver& d, std::size_t bytes);
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    DevicePtr ptr() const { return ptr_; }
    /// ptr() as the pointer a kernel's arguments and cuBLASLt take.
    void* address() const { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr_)); }

   private:
    const CudaDriver& d_;
    DevicePtr ptr_ = 0;
  };

  std::string device_name() const { return device_name_; }
  /// The driver's CUDA version, 1000 * major + 10 * minor.
  int driver_version() const { return driver_version_; }

  // The driver's functions, resolved at get().
  Result (*cuInit)(unsigned) = nullptr;
  Result (*cuGetErrorName)(Result, const char**) = nullptr;
  Result (*cuGetErrorString)(Result, const char**) = nullptr;
  Result (*cuDeviceGet)(int*, int) = nullptr;
  Result (*cuDeviceGetName)(char*, int, int) = nullptr;
  Result (*cuDevicePrimaryCtxRetain)(Context*, int) = nullptr;
  Result (*cuCtxPushCurrent)(Context) = nullptr;
  Result (*cuCtxPopCurrent)(Context*) = nullptr;
  Result (*cuModuleLoadData)(Module*, const void*) = nullptr;
  Result (*cuModuleUnload)(Module) = nullptr;
  Result (*cuModuleGetFunction)(Function*, Module, const char*) = nullptr;
  Result (*cuModuleGetGlobal)(DevicePtr*, std::size_t*, Module, const char*) = nullptr;
  Result (*cuFuncSetAttribute)(Function, int, int) = nullptr;
  Result (*cuLaunchKernel)(Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Stream,
                           void**, void**) = nullptr;
  /// Null where the driver predates it (CUDA 12): kernels are then launched by cuLaunchKernel.
  Result (*cuLaunchKernelEx)(const LaunchConfig*, Function, void**, void**) = nullptr;
  Result (*cuStreamSynchronize)(Stream) = nullptr;
  Result (*cuMemAlloc)(DevicePtr*, std::size_t) = nullptr;
  Result (*cuMemFree)(DevicePtr) = nullptr;
  Result (*cuMemcpyHtoD)(DevicePtr, const void*, std::size_t) = nullptr;
  Result (*cuMemcpyDtoH)(void*, DevicePtr, std::size_t) = nullptr;
  Result (*cuEventCreate)(void**, unsigned) = nullptr;
  Result (*cuEventDestroy)(void*) = nullptr;
  Result (*cuEventRecord)(void*, Stream) = nullptr;
  Result (*cuEventSynchronize)(void*) = nullptr;
  Result (*cuEventElapsedTime)(float*, void*, void*) = nullptr;
  /// Null where the driver predates tensor maps (CUDA 12): a kernel that needs them is refused at load.
  Result (*cuTensorMapEncodeTiled)(void*, unsigned, unsigned, void*, const std::uint64_t*, const std::uint64_t*,
                                   const unsigned*, const unsigned*, unsigned, unsigned, unsigned, unsigned) = nullptr;

 private:
  CudaDriver() = default;
  void open();
  void* handle_ = nullptr;
  Context context_ = nullptr;
  std::string device_name_;
  int driver_version_ = 0;
};

}  // namespace skb::runtime
