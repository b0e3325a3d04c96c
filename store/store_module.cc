// Finds the kernel store's modules: linked into the program (the weak references are then set),
// or beside the installed programs in lib/skb/, each loaded once; and opens a store through them.
#include <dlfcn.h>

#include <fmt/format.h>
#include <mutex>

#include "common/error.h"
#include "common/fs.h"
#include "store/module.h"

extern "C" __attribute__((weak)) const skb::store::StoreModule* skb_store_module();
extern "C" __attribute__((weak)) const skb::store::CurlModule* skb_store_curl_module();

namespace skb::store {

namespace {

// The module's table: from `linked` when the program has it, else from lib/skb/<file>.
template <typename Module>
const Module& load(const Module* (*linked)(), const char* file, const char* symbol) {
  static const Module* module = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [&] {
    if (linked != nullptr) {
      module = linked();
      return;
    }
    std::string path = (common::self_exe().parent_path() / SKB_STORE_MODULE_DIR / file).lexically_normal().string();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto* entry = handle ? reinterpret_cast<const Module* (*)()>(::dlsym(handle, symbol)) : nullptr;
    if (entry)
      module = entry();
    else
      failure = fmt::format("the kernel store module {} cannot be loaded: {} (reinstall skb)", path, ::dlerror());
  });
  if (!module) throw common::Error(failure);
  return *module;
}

}  // namespace

const StoreModule& store_module() { return load(&skb_store_module, "skb_store.so", "skb_store_module"); }

const CurlModule& curl_module() { return load(&skb_store_curl_module, "skb_store_curl.so", "skb_store_curl_module"); }

std::unique_ptr<Store> open_store(const Location& where, std::uint64_t max_size) {
  if (where.scheme == "file") return store_module().open_file_store(where, max_size);
  if (where.scheme == "redis") return store_module().open_redis_store(where);
  return curl_module().open_http_store(where);
}

}  // namespace skb::store
