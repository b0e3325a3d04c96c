// An operator library's config/<soc>/binary_info_config.json, as the runtime reads it.
// Property: every kernel it accepts lies inside a package folder of the library.
#include <string>

#include "common/error.h"
#include "runtime/index_reader.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  const std::filesystem::path root = "/lib/root";
  try {
    auto by_key = runtime::parse_index(fuzz_text(data, size), root);
    skb_fuzz_accepted = true;
    for (const auto& [key, entry] : by_key) {
      std::string rel = entry.bin.lexically_normal().lexically_relative(root).string();
      SKB_FUZZ_CHECK(!rel.empty() && rel.rfind("static_kernel_", 0) == 0);
      SKB_FUZZ_CHECK(key == entry.key);
    }
  } catch (const common::FieldError&) {
  } catch (const common::Error&) {
  }
  return 0;
}
