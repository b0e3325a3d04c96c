#include "generator/soc_table.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/fs.h"
#include "opmodel/op_record.h"

namespace skb::generator {
namespace fs = std::filesystem;
using common::Field;
using common::FieldError;

namespace {

std::string family_field(const Field& f) {
  std::string s = f.string(64);
  if (!opmodel::is_identifier(s)) throw FieldError(f.pointer(), "expected a folder name of [A-Za-z0-9_]");
  return s;
}

}  // namespace

SocFamily soc_family(const common::Json& table, const std::string& soc_version) {
  Field root(table, "");
  root.expect_object();
  Field names = root.at("names");
  names.expect_object();
  if (names.has(soc_version)) return {family_field(names.at(soc_version)), true};
  SocFamily best{soc_version, false};
  std::size_t best_len = 0;
  if (root.has("prefixes")) {
    Field prefixes = root.at("prefixes");
    prefixes.expect_object();
    for (const auto& [prefix, value] : prefixes.json().items())
      if (!prefix.empty() && soc_version.rfind(prefix, 0) == 0 && prefix.size() > best_len) {
        best = {family_field(prefixes.at(prefix)), true};
        best_len = prefix.size();
      }
  }
  return best;
}

common::Json load_soc_table(const fs::path& templates_dir) {
  fs::path file = templates_dir / "socs.json";
  try {
    common::Json table = common::parse_json(common::read_file(file, 1 << 20));
    soc_family(table, "");  // the table's shape, checked once
    return table;
  } catch (const FieldError& e) {
    throw common::Error(fmt::format("{}: {}", file.string(), e.describe()));
  }
}

}  // namespace skb::generator
