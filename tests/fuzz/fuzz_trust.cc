// A trust file and a signature line, as the kernel store and the installer read them from files
// and entries they do not trust. The input is a trust file, a line "--", then a signature line
// over the fixed message "skb-fuzz-message\n". Properties: a trust file either parses or is
// refused with common::Error; each key it gives writes out to a line that reads back the same
// key; a signature check never throws, and says "trusted" only for a key of the file.
#include "common/error.h"
#include "tests/fuzz/fuzz_target.h"
#include "trust/signature.h"
#include "trust/trusted_keys.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  std::string_view text = fuzz_text(data, size);
  std::size_t split = text.find("\n--\n");
  std::string_view file = text.substr(0, split);
  std::optional<std::string_view> signature;
  if (split != std::string_view::npos) signature = text.substr(split + 4);
  trust::TrustedKeys keys;
  try {
    keys = trust::parse_trusted_keys("fuzz", file);
  } catch (const common::Error&) {
    return 0;
  }
  for (const auto& k : keys.keys) SKB_FUZZ_CHECK(trust::parse_public_key(k.line()) == k);
  trust::SignatureCheck c = trust::check_signature(keys, "skb-fuzz-message\n", signature);
  if (c.trusted()) {
    skb_fuzz_accepted = true;
    SKB_FUZZ_CHECK(keys.find(c.key) != nullptr);
    SKB_FUZZ_CHECK(!trust::check_signature(keys, "skb-fuzz-messagE\n", signature).trusted());
  }
  return 0;
}
