#include "runtime/kernel_module.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include "common/error.h"
#include "common/sha256.h"
#include "skb/runtime.h"

namespace skb::runtime {

std::shared_ptr<KernelModule> KernelModule::load(const IndexEntry& entry) {
  std::string sha;
  try {
    sha = common::sha256_file(entry.bin);
  } catch (const common::Error& e) {
    throw RuntimeError(SKB_ERR_LOAD, fmt::format("kernel {}: {}", entry.kernel_name, e.what()));
  }
  if (sha != entry.sha256)
    throw RuntimeError(SKB_ERR_INTEGRITY, fmt::format("kernel {}: {} has sha256 {}, the index says {}; not loaded",
                                                      entry.kernel_name, entry.bin.string(), sha, entry.sha256));
  std::shared_ptr<KernelModule> m(new KernelModule);
  m->handle_ = dlopen(entry.bin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m->handle_) throw RuntimeError(SKB_ERR_LOAD, fmt::format("kernel {}: {}", entry.kernel_name, dlerror()));
  m->symbol_ = dlsym(m->handle_, entry.entry.c_str());
  if (!m->symbol_)
    throw RuntimeError(
        SKB_ERR_LOAD, fmt::format("kernel {}: {} has no entry {}", entry.kernel_name, entry.bin.string(), entry.entry));
  return m;
}

KernelModule::~KernelModule() {
  if (handle_) dlclose(handle_);
}

}  // namespace skb::runtime
