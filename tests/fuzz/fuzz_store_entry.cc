// A kernel store's entry, as a compile step reads it from a store it does not trust: unpacked,
// then checked against the build record the step would write (with and without a compiler
// sidecar). Properties: an accepted entry's binary has the sha256 and size its record says, the
// record names this step's kernel and toolchain, and packing its files again gives an entry
// that unpacks to the same files. An entry's key.json (what `skb explain` reads of it) is read as
// key factors: accepted ones say the identity they hash to, and write out to a document that
// reads back the same.
#include "common/error.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "store/entry.h"
#include "generator/compile_step.h"
#include "generator/key_factors.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  store::EntryFiles files;
  try {
    files = store::unpack_entry(std::string(fuzz_text(data, size)));
  } catch (const store::BadEntry&) {
    return 0;
  }
  if (files.key) {
    try {
      common::Json key = common::parse_json(*files.key);
      if (key.is_object() && key.contains("factors")) {
        generator::KeyFactors f = generator::parse_key_factors(key["factors"]);
        skb_fuzz_accepted = true;
        common::Json doc = generator::key_factors_json(f);
        SKB_FUZZ_CHECK(doc["identity"] == key["factors"]["identity"]);
        SKB_FUZZ_CHECK(generator::parse_key_factors(doc).identity() == f.identity());
      }
    } catch (const common::FieldError&) {
    }
  }
  generator::CompileStep step;
  step.name = "Relu_0123456789abcdef0123456789abcdef";
  step.op_type = "Relu";
  step.variant = "static";
  step.suffix = ".so";
  step.entry = "skb_kernel";
  step.toolchain_id = "4e0c2d4f";
  for (bool sidecar : {false, true}) {
    step.sidecar = sidecar;
    if (!generator::entry_mismatch(step, files).empty()) continue;
    skb_fuzz_accepted = true;
    common::Json record = common::Json::parse(files.record);
    SKB_FUZZ_CHECK(record["sha256"] == common::sha256_hex(files.binary));
    SKB_FUZZ_CHECK(record["size"] == files.binary.size());
    SKB_FUZZ_CHECK(record["toolchain"] == step.toolchain_id && record["name"] == step.name);
    SKB_FUZZ_CHECK(files.sidecar.has_value() == sidecar);
    store::EntryFiles again = store::unpack_entry(store::pack_entry(files));
    SKB_FUZZ_CHECK(again.record == files.record && again.binary == files.binary && again.sidecar == files.sidecar);
    SKB_FUZZ_CHECK(again.key == files.key);
    SKB_FUZZ_CHECK(again.binary_mode == files.binary_mode && (files.binary_mode & ~0755u) == 0);
  }
  return 0;
}
