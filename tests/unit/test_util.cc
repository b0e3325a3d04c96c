#include "test_util.h"

#include <gtest/gtest.h>

#include <fstream>

namespace skb::test {
namespace fs = std::filesystem;

fs::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(SKB_TEST_SCRATCH) / "unit" / info->test_suite_name() / info->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

generator::CompileStep relu_step(const fs::path& dir, std::vector<std::string> command) {
  generator::CompileStep s;
  s.dir = dir;
  s.name = "Relu_0123456789abcdef0123456789abcdef";
  s.op_type = "Relu";
  s.variant = "static";
  s.suffix = ".so";
  s.entry = "skb_kernel";
  s.toolchain_id = "tcid";
  s.command = std::move(command);
  return s;
}

common::Json valid_record() {
  auto tensor = [](const char* name, int index) {
    return common::Json{
        {"dtype", "float"}, {"format", "ND"},        {"index", index},         {"is_view", false},
        {"name", name},     {"origin_format", "ND"}, {"origin_shape", {2, 3}}, {"param_type", "required"},
        {"shape", {2, 3}},  {"value_depend", false}};
  };
  return {{"attrs", common::Json::array()},
          {"deterministic", "false"},
          {"deterministic_level", 0},
          {"impl_mode", "high_performance"},
          {"inputs", {tensor("x1", 0), tensor("x2", 1)}},
          {"op_type", "Add"},
          {"outputs", {tensor("y", 0)}},
          {"platform_info", {{"cube_core_cnt", 24}, {"vector_core_cnt", 48}}},
          {"tune_mode", "all"}};
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace skb::test
