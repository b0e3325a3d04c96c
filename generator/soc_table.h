#pragma once
#include <filesystem>
#include <string>

#include "common/json_input.h"

namespace skb::generator {

/// The index folder of a SoC version, as opbase spells it (config/<family>/).
struct SocFamily {
  std::string family;  // ascend910b for Ascend910B3; the name itself when the table lacks it
  bool known = false;  // the table has the name
};

/// Looks a SoC version up in a SoC table (templates/socs.json): `names` exactly, else the
/// longest of `prefixes` it begins with. Throws common::FieldError for a malformed table.
SocFamily soc_family(const common::Json& table, const std::string& soc_version);

/// Reads <templates_dir>/socs.json. Throws common::Error naming the file (and the JSON pointer).
common::Json load_soc_table(const std::filesystem::path& templates_dir);

}  // namespace skb::generator
