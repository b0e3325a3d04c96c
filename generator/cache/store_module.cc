// Finds the kernel store module: linked into the program (the weak reference is then set), or
// skb_store.so beside the installed programs, loaded once.
#include <dlfcn.h>

#include <fmt/format.h>
#include <mutex>

#include "common/error.h"
#include "common/fs.h"
#include "generator/cache/module.h"

extern "C" __attribute__((weak)) const skb::generator::cache::StoreModule* skb_store_module();

namespace skb::generator::cache {

const StoreModule& store_module() {
  static const StoreModule* module = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    if (&skb_store_module != nullptr) {
      module = skb_store_module();
      return;
    }
    std::string path = (common::self_exe().parent_path() / SKB_STORE_MODULE).lexically_normal().string();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto* entry = handle ? reinterpret_cast<const StoreModule* (*)()>(::dlsym(handle, "skb_store_module")) : nullptr;
    if (entry)
      module = entry();
    else
      failure = fmt::format("the kernel store module {} cannot be loaded: {} (reinstall skb)", path, ::dlerror());
  });
  if (!module) throw common::Error(failure);
  return *module;
}

}  // namespace skb::generator::cache
