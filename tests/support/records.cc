#include "tests/support/records.h"

#include <fmt/format.h>

#include "common/fs.h"

namespace skb::test {
using common::Json;

Json tensor(const std::string& dtype, std::vector<std::int64_t> shape, int index, const std::string& format) {
  return {{"name", fmt::format("t{}", index)},
          {"index", index},
          {"param_type", "required"},
          {"dtype", dtype},
          {"format", format},
          {"shape", shape},
          {"origin_format", format},
          {"origin_shape", shape},
          {"is_view", false},
          {"value_depend", false}};
}

Json value_tensor(const std::string& dtype, std::vector<std::int64_t> values, int index) {
  Json t = tensor(dtype, {static_cast<std::int64_t>(values.size())}, index);
  t["value_depend"] = true;
  t["const_data"] = values;
  return t;
}

Json attr(const std::string& name, int index, const std::string& dtype, Json value) {
  return {{"name", name}, {"index", index}, {"dtype", dtype}, {"value", std::move(value)}};
}

Json record(const std::string& op, std::vector<Json> inputs, std::vector<Json> outputs, std::vector<Json> attrs) {
  return {{"op_type", op},
          {"inputs", Json(std::move(inputs))},
          {"outputs", Json(std::move(outputs))},
          {"attrs", Json(std::move(attrs))},
          {"deterministic", "false"},
          {"deterministic_level", 0},
          {"impl_mode", "high_performance"},
          {"tune_mode", "all"},
          {"platform_info", {{"cube_core_cnt", 24}, {"vector_core_cnt", 48}}}};
}

std::vector<std::pair<std::filesystem::path, opmodel::OpRecord>> valid_records(const std::vector<std::string>& dirs) {
  std::vector<std::pair<std::filesystem::path, opmodel::OpRecord>> out;
  for (const auto& dir : dirs)
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.path().extension() != ".json") continue;
      try {
        out.emplace_back(e.path(), opmodel::parse_op_record(common::parse_json(common::read_file(e.path(), 1 << 24))));
      } catch (const std::exception&) {
        // a hostile record: never gets a signature or a key
      }
    }
  return out;
}

}  // namespace skb::test
