#pragma once
#include <memory>
#include <string>

#include "runtime/index_reader.h"

namespace skb::runtime {

/// A kernel binary checked against the index's sha256, then loaded with dlopen. Unloaded when the
/// last holder lets go.
class KernelModule {
 public:
  /// Throws LoadError when the file cannot be read or loaded or lacks its entry symbol, and
  /// IntegrityError when its bytes do not hash to the index's sha256.
  static std::shared_ptr<KernelModule> load(const IndexEntry& entry);
  ~KernelModule();
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;

  void* symbol() const { return symbol_; }

 private:
  KernelModule() = default;
  void* handle_ = nullptr;
  void* symbol_ = nullptr;
};

/// Errors of the runtime, each with its C status code.
struct RuntimeError : std::runtime_error {
  RuntimeError(int status, const std::string& what) : std::runtime_error(what), code(status) {}
  int code;
};

}  // namespace skb::runtime
