#include <gtest/gtest.h>

#include "common/json_input.h"
#include "packager/install/index.h"

namespace skb::installer {
namespace {
using common::Json;
using packager::Manifest;

Manifest package(const std::string& name, std::vector<std::string> keys) {
  Manifest m;
  m.package = name;
  m.soc = "host";
  m.toolchain = "host";
  for (const auto& key : keys) {
    std::string bin = "host/Add/Add_" + key + ".so";
    m.files.push_back({bin, std::string(64, key[0]), 1});
    m.kernels.push_back({"Add_" + key, "Add", "static", std::string(64, key[0]), "skb_kernel", bin});
  }
  return m;
}

std::map<std::string, std::string> owners(const std::string& index_text) {
  std::map<std::string, std::string> out;
  const Json index = Json::parse(index_text);
  for (const auto& [op, e] : index.items())
    for (const auto& k : e["staticList"]) out[k["simplifiedKey"].get<std::string>().substr(0, 1)] = k["package"];
  return out;
}

TEST(Index, PackageInstalledLastWinsForTheSameKey) {
  auto idx = merged_indexes({package("static_kernel_1", {"a", "b"}), package("static_kernel_2", {"b", "c"})}, {});
  EXPECT_EQ(owners(idx.at("host")), (std::map<std::string, std::string>{
                                        {"a", "static_kernel_1"}, {"b", "static_kernel_2"}, {"c", "static_kernel_2"}}));
  auto j = Json::parse(idx.at("host"));
  EXPECT_EQ(j["Add"]["staticList"].size(), 3u);
  EXPECT_EQ(j["Add"]["staticList"][1]["binPath"], "static_kernel_2/host/Add/Add_b.so");
  EXPECT_EQ(j["Add"]["staticList"][1]["binDesc"]["sha256"], std::string(64, 'b'));
}

TEST(Index, SocWithoutPackagesGetsAnEmptyIndex) {
  auto idx = merged_indexes({}, {"host"});
  EXPECT_EQ(Json::parse(idx.at("host")), Json::object());
}

TEST(Index, ConfigIniRoundTripsAndIgnoresJunk) {
  EXPECT_EQ(config_ini({"static_kernel_2", "static_kernel_1"}),
            "[static_kernel]\nload_priority=static_kernel_2,static_kernel_1\n");
  EXPECT_EQ(parse_config_ini(config_ini({"static_kernel_2", "static_kernel_1"})),
            (std::vector<std::string>{"static_kernel_2", "static_kernel_1"}));
  EXPECT_EQ(parse_config_ini("load_priority=static_kernel_1,../x,,static_kernel_1,other\n"),
            (std::vector<std::string>{"static_kernel_1"}));
  EXPECT_TRUE(parse_config_ini("").empty());
}

}  // namespace
}  // namespace skb::installer
