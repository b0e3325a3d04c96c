// An op-statistics record, as skb-generate reads each file of a dump: parse, validate, check its
// shapes against its op, and derive the kernel's identity and -D macros. Properties: every macro
// is NAME=VALUE with a C identifier name and a value that needs no quoting in a shell or a Ninja
// file; checking shapes never crashes, whatever a record that parses holds.
#include <string>

#include "common/error.h"
#include "common/json_input.h"
#include "opmodel/defines.h"
#include "opmodel/op_record.h"
#include "opmodel/shape_rules.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

bool plain_value(const std::string& v) {
  for (char c : v) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == ',' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  opmodel::OpRecord record;
  try {
    record = opmodel::parse_op_record(common::parse_json(fuzz_text(data, size)));
    opmodel::check_shapes(record);
  } catch (const common::FieldError&) {
    return 0;
  } catch (const common::Error&) {
    return 0;
  }
  skb_fuzz_accepted = true;
  SKB_FUZZ_CHECK(opmodel::is_identifier(record.op_type));
  std::string signature = opmodel::canonical_signature(record);
  SKB_FUZZ_CHECK(signature == opmodel::canonical_signature(record));
  SKB_FUZZ_CHECK(!opmodel::dynamic_signature(record).empty());
  for (auto variant : {opmodel::Variant::kStatic, opmodel::Variant::kDynamic}) {
    for (const std::string& define : opmodel::kernel_defines(record, variant)) {
      SKB_FUZZ_CHECK(define.rfind("-D", 0) == 0);
      std::size_t eq = define.find('=');
      std::string name = define.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      SKB_FUZZ_CHECK(opmodel::is_identifier(name));
      SKB_FUZZ_CHECK(eq == std::string::npos || plain_value(define.substr(eq + 1)));
    }
  }
  return 0;
}
