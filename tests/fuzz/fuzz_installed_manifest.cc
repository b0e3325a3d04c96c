// What an install reads back from the operator library: an installed package's manifest.json
// and config.ini, merged into the index. Properties: an accepted manifest survives a round trip
// through its own writer, lists only safe relative paths, and merges into valid JSON.
#include <string>

#include "common/error.h"
#include "common/json_input.h"
#include "packager/format/manifest.h"
#include "packager/install/index.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  std::string_view text = fuzz_text(data, size);
  // config.ini is read as text, whatever it holds.
  for (const std::string& pkg : installer::parse_config_ini(std::string(text)))
    SKB_FUZZ_CHECK(packager::is_package_name(pkg));

  packager::Manifest m;
  try {
    m = packager::parse_manifest(common::parse_json(text));
  } catch (const common::FieldError&) {
    return 0;
  } catch (const common::Error&) {
    return 0;
  }
  skb_fuzz_accepted = true;
  SKB_FUZZ_CHECK(packager::is_package_name(m.package));
  for (const auto& f : m.files) SKB_FUZZ_CHECK(packager::is_safe_relative_path(f.path));
  std::string written = packager::manifest_json(m);
  packager::Manifest again = packager::parse_manifest(common::parse_json(written));
  SKB_FUZZ_CHECK(packager::manifest_json(again) == written);
  for (const auto& [soc, index] : installer::merged_indexes({m, again}, {m.soc}))
    SKB_FUZZ_CHECK(common::Json::accept(index));
  return 0;
}
