/* A stand-in for libcuda.so.1 with one pretend GPU, for the runtime's launches on a machine
 * without one. A "cubin" is text, a line per constant it defines: `symbol=v0,v1,...` (32-bit
 * values, e.g. `skb_launch=2,128,0,0`). Kernels do not run: each launch, and each attribute set
 * on a kernel, appends a line to the file $SKB_FAKE_CUDA_LOG,
 *   cuFuncSetAttribute attr=A value=V
 *   cuLaunchKernel grid=G block=B shared=S
 *   cuLaunchKernelEx grid=G block=B shared=S attrs=ID:FLAG,...
 * It has no cuTensorMapEncodeTiled (as a driver before CUDA 12). Memory is host memory. */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/runtime/fake_cuda_gpu.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

namespace {

struct Module {
  std::map<std::string, std::vector<std::uint32_t>> constants;
};

void log_line(const std::string& line) {
  const char* path = std::getenv("SKB_FAKE_CUDA_LOG");
  if (!path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

int context;  // the primary context's handle

}  // namespace

extern "C" {

CUresult cuInit(unsigned) { return 0; }
CUresult cuDriverGetVersion(int* v) {
  *v = 12080;
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  *s = r == 500 ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == 500 ? "named symbol not found" : "unknown error";
  return 0;
}
CUresult cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : 101;
}
CUresult cuDeviceGetName(char* name, int len, int) {
  std::snprintf(name, static_cast<std::size_t>(len), "skb pretend GPU");
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) {
  *ctx = &context;
  return 0;
}
CUresult cuCtxPushCurrent_v2(void*) { return 0; }
CUresult cuCtxPopCurrent_v2(void** ctx) {
  if (ctx) *ctx = &context;
  return 0;
}

CUresult cuModuleLoadData(void** module, const void* image) {
  auto* m = new Module;
  std::istringstream lines(static_cast<const char*>(image));
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::istringstream values(line.substr(eq + 1));
    auto& v = m->constants[line.substr(0, eq)];
    for (std::string value; std::getline(values, value, ',');) v.push_back(std::strtoul(value.c_str(), nullptr, 10));
  }
  *module = m;
  return 0;
}
CUresult cuModuleUnload(void* module) {
  delete static_cast<Module*>(module);
  return 0;
}
CUresult cuModuleGetFunction(void** fn, void* module, const char*) {
  *fn = module;
  return 0;
}
CUresult cuModuleGetGlobal_v2(CUdeviceptr* ptr, std::size_t* bytes, void* module, const char* name) {
  auto& constants = static_cast<Module*>(module)->constants;
  const auto it = constants.find(name);
  if (it == constants.end()) return 500;
  *ptr = reinterpret_cast<std::uintptr_t>(it->second.data());
  *bytes = it->second.size() * sizeof(std::uint32_t);
  return 0;
}
CUresult cuFuncSetAttribute(void*, int attribute, int value) {
  log_line("cuFuncSetAttribute attr=" + std::to_string(attribute) + " value=" + std::to_string(value));
  return 0;
}

CUresult cuLaunchKernel(void*, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void*, void**, void**) {
  log_line("cuLaunchKernel grid=" + std::to_string(gx * gy * gz) + " block=" + std::to_string(bx * by * bz) +
           " shared=" + std::to_string(shared));
  return 0;
}
CUresult cuLaunchKernelEx(const void* config, void*, void**, void**) {
  const skb::test::FakeLaunch l = skb::test::read_launch_config(config);
  std::string attrs;
  for (int i = 0; i < l.attributes; ++i)
    attrs += (i ? "," : "") + std::to_string(l.attribute_id[i]) + ":" + std::to_string(l.attribute_flag[i]);
  log_line("cuLaunchKernelEx grid=" + std::to_string(l.grid) + " block=" + std::to_string(l.block) +
           " shared=" + std::to_string(l.shared) + " attrs=" + attrs);
  return 0;
}
CUresult cuStreamSynchronize(void*) { return 0; }

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, std::size_t bytes) {
  *ptr = reinterpret_cast<std::uintptr_t>(std::malloc(bytes));
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr)));
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, std::size_t bytes) {
  std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(dst)), src, bytes);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t bytes) {
  std::memcpy(dst, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(src)), bytes);
  return 0;
}

CUresult cuEventCreate(void** e, unsigned) {
  *e = &context;
  return 0;
}
CUresult cuEventDestroy_v2(void*) { return 0; }
CUresult cuEventRecord(void*, void*) { return 0; }
CUresult cuEventSynchronize(void*) { return 0; }
CUresult cuEventElapsedTime(float* ms, void*, void*) {
  *ms = 0.f;
  return 0;
}

}  // extern "C"
