// A library's payoff evidence (payoff/<class>.json, or skb-package --payoff FILE), as the runtime
// and the packager read it. Properties: what it accepts reads back the same from what skb bench
// would write of it, and every verdict that acts is the one its interval and margin give.
#include <string>

#include "common/error.h"
#include "packager/format/payoff_evidence.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  try {
    packager::Payoff p = packager::parse_payoff(common::parse_json(fuzz_text(data, size)));
    skb_fuzz_accepted = true;
    for (const auto& k : p.kernels) {
      SKB_FUZZ_CHECK(k.low <= k.ratio && k.ratio <= k.high && k.low > 0);
      if (k.verdict == packager::kSlower) SKB_FUZZ_CHECK(k.low > 1 + p.margin);
      SKB_FUZZ_CHECK(k.kernel.find('/') == std::string::npos && k.key.size() == 64 && k.sha256.size() == 64);
    }
    std::string again = packager::payoff_json(p);
    SKB_FUZZ_CHECK(packager::payoff_json(packager::parse_payoff(common::parse_json(again))) == again);
  } catch (const common::FieldError&) {
  } catch (const common::Error&) {
  }
  return 0;
}
