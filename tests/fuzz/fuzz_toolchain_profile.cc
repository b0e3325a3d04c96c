// A toolchain profile document, as skb-generate --toolchain reads it: validation only (nothing
// is run or looked up). Property: an accepted profile has a command that writes the kernel.
#include "common/error.h"
#include "common/json_input.h"
#include "opmodel/op_record.h"
#include "generator/toolchain_profile.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  generator::ProfileSpec p;
  try {
    p = generator::parse_profile_spec(common::parse_json(fuzz_text(data, size)));
  } catch (const common::FieldError&) {
    return 0;
  } catch (const common::Error&) {
    return 0;
  }
  skb_fuzz_accepted = true;
  SKB_FUZZ_CHECK(opmodel::is_identifier(p.name) && opmodel::is_identifier(p.entry));
  SKB_FUZZ_CHECK(!p.command.empty());
  for (const auto& op : p.ops) SKB_FUZZ_CHECK(opmodel::is_identifier(op.type));
  return 0;
}
