#include <gtest/gtest.h>

#include "common/error.h"
#include "packager/format/manifest.h"

namespace skb::packager {
namespace {
using common::Json;

const std::string kSha(64, 'a');

Manifest sample() {
  Manifest m;
  m.package = "static_kernel_20260101000000";
  m.soc = "host";
  m.created = "2026-01-01T00:00:00Z";
  m.skb_version = "0.1.0";
  m.toolchain = "host";
  m.toolchain_identity = kSha;
  m.files = {{"host/Add/Add_1.json", kSha, 10}, {"host/Add/Add_1.so", kSha, 20}};
  PackageKernel k;
  k.name = "Add_1";
  k.op_type = "Add";
  k.variant = "static";
  k.key = kSha;
  k.entry = "skb_kernel";
  k.bin = "host/Add/Add_1.so";
  k.value_depend_index = {1};
  m.kernels = {k};
  m.installed_size = 30;
  return m;
}

std::string error_of(const Json& doc) {
  try {
    parse_manifest(doc);
    return "";
  } catch (const common::FieldError& e) {
    return e.describe();
  }
}

TEST(Manifest, RoundTrips) {
  Manifest m = sample();
  std::string text = manifest_json(m);
  EXPECT_EQ(manifest_json(parse_manifest(common::parse_json(text))), text);
}

TEST(Manifest, ValueDependPositionsAreSmallAndIncreasing) {
  Json d = Json::parse(manifest_json(sample()));
  EXPECT_EQ(parse_manifest(d).kernels[0].value_depend_index, (std::vector<std::int64_t>{1}));
  d["kernels"][0]["value_depend_index"] = {2, 1};
  EXPECT_EQ(error_of(d), "/kernels/0/value_depend_index/1: expected input positions in increasing order");
  d["kernels"][0]["value_depend_index"] = {-1};
  EXPECT_NE(error_of(d).find("/kernels/0/value_depend_index/0"), std::string::npos);
  d["kernels"][0].erase("value_depend_index");  // a package made before the field: none
  EXPECT_TRUE(parse_manifest(d).kernels[0].value_depend_index.empty());
}

// A cuda kernel says how it is launched: a static one its grid, a dynamic one 0 (from the call).
TEST(Manifest, ACudaKernelCarriesItsLaunch) {
  Manifest m = sample();
  m.kernels[0].launch = {"cuda", 80, 256, 4096};
  Json d = Json::parse(manifest_json(m));
  EXPECT_EQ(d["kernels"][0]["launch"], Json::parse(R"({"device":"cuda","grid":80,"block":256,"max_grid":4096})"));
  EXPECT_EQ(manifest_json(parse_manifest(d)), manifest_json(m));
  EXPECT_FALSE(Json::parse(manifest_json(sample()))["kernels"][0].contains("launch"));  // host: none
  d["kernels"][0]["launch"]["grid"] = 0;
  EXPECT_EQ(error_of(d),
            "/kernels/0/launch/grid: expected a grid for a static kernel, 0 (from the call) for a dynamic one");
  d["kernels"][0]["launch"]["grid"] = 5000;
  EXPECT_NE(error_of(d).find("/kernels/0/launch/grid"), std::string::npos);
  d["kernels"][0]["launch"]["grid"] = 1;
  d["kernels"][0]["launch"]["block"] = 2048;
  EXPECT_NE(error_of(d).find("/kernels/0/launch/block"), std::string::npos);
  d["kernels"][0]["launch"]["block"] = 100;  // not whole warps
  EXPECT_NE(error_of(d).find("/kernels/0/launch/block: expected a multiple of 32"), std::string::npos) << error_of(d);
  d["kernels"][0]["launch"]["block"] = 256;
  d["kernels"][0]["launch"]["device"] = "host";
  EXPECT_NE(error_of(d).find("/kernels/0/launch/device: expected \"cuda\""), std::string::npos) << error_of(d);
}

TEST(Manifest, ALaunchGridCoversTheFirstOutputInAtMostMaxGridBlocks) {
  EXPECT_EQ(launch_grid(0, 256, 4096), 1u);
  EXPECT_EQ(launch_grid(1, 256, 4096), 1u);
  EXPECT_EQ(launch_grid(256, 256, 4096), 1u);
  EXPECT_EQ(launch_grid(257, 256, 4096), 2u);
  EXPECT_EQ(launch_grid(std::int64_t{1} << 40, 256, 4096), 4096u);
}

// A kernel whose call opbase's engines key differently has a key per engine; a package of skb
// 0.1 says one key as a string.
TEST(Manifest, OpbaseKeysAreUniqueKeysOfOpbasesForm) {
  Manifest m = sample();
  m.kernels[0].simplified_keys = {"Add/d=0,p=0/0,2,(a)", "Add/d=0,p=2/0,2,(a)"};
  EXPECT_EQ(parse_manifest(common::parse_json(manifest_json(m))).kernels[0].simplified_keys,
            m.kernels[0].simplified_keys);
  Json d = Json::parse(manifest_json(m));
  d["kernels"][0]["simplified_keys"] = {"Add/d=0,p=0/0,2,(a)", "Add/d=0,p=0/0,2,(a)"};
  EXPECT_EQ(error_of(d), "/kernels/0/simplified_keys/1: expected each key once");
  d["kernels"][0]["simplified_keys"] = {"Add/d=0,p=0/0,2,(a);rm"};
  EXPECT_EQ(error_of(d), "/kernels/0/simplified_keys/0: expected a key of [A-Za-z0-9_/=,()[]]");
  d["kernels"][0]["simplified_keys"] = Json::array();
  for (int i = 0; i < 9; ++i) d["kernels"][0]["simplified_keys"].push_back("Add/d=0,p=0/" + std::to_string(i));
  EXPECT_NE(error_of(d).find("/kernels/0/simplified_keys"), std::string::npos);
  d["kernels"][0].erase("simplified_keys");
  d["kernels"][0]["simplified_key"] = "Add/d=0,p=1/0,2,(a)";
  EXPECT_EQ(parse_manifest(d).kernels[0].simplified_keys, std::vector<std::string>{"Add/d=0,p=1/0,2,(a)"});
  d["kernels"][0]["simplified_key"] = "";  // skb 0.1's "no key"
  EXPECT_TRUE(parse_manifest(d).kernels[0].simplified_keys.empty());
}

// A delta package names its base and marks the files the base holds, which its payload leaves
// out; a package without a base carries every file.
TEST(Manifest, ADeltaNamesItsBaseAndTheFilesItLeavesToIt) {
  Manifest m = sample();
  m.base = "static_kernel_20250101000000";
  m.files[1].carried = false;
  std::string text = manifest_json(m);
  Manifest back = parse_manifest(common::parse_json(text));
  EXPECT_EQ(back.base, m.base);
  EXPECT_TRUE(back.files[0].carried);
  EXPECT_FALSE(back.files[1].carried);
  EXPECT_EQ(manifest_json(back), text);
  EXPECT_EQ(manifest_json(sample()).find("carried"), std::string::npos);  // a whole package says nothing of it
  Json d = Json::parse(text);
  d["base"] = d["package"];
  EXPECT_EQ(error_of(d), "/base: expected the name of another package, static_kernel_<[A-Za-z0-9_]>");
  d.erase("base");
  EXPECT_EQ(error_of(d), "/files/1/carried: expected true in a package without a base");
}

TEST(Manifest, PathsThatLeaveThePackageAreRejected) {
  const std::string too_long = "host/Add/" + std::string(256, 'a');
  for (const std::string bad :
       {"../host/x", "/etc/passwd", "host/../../x", "host//x", "host/./x", "host/x y", "host/x/", too_long.c_str()}) {
    Json d = Json::parse(manifest_json(sample()));
    d["files"][1]["path"] = bad;
    EXPECT_NE(error_of(d).find("/files/1/path: expected a relative path"), std::string::npos) << bad;
  }
}

TEST(Manifest, FilesMustBeUnderTheSocSortedAndSumToTheSize) {
  Json d = Json::parse(manifest_json(sample()));
  d["files"][0]["path"] = "other/Add/Add_1.json";
  EXPECT_EQ(error_of(d), "/files/0/path: expected a path under the package's soc");
  d = Json::parse(manifest_json(sample()));
  std::swap(d["files"][0], d["files"][1]);
  EXPECT_EQ(error_of(d), "/files/1/path: expected unique paths in sorted order");
  d = Json::parse(manifest_json(sample()));
  d["installed_size"] = 31;
  EXPECT_EQ(error_of(d), "/installed_size: expected the sum of the files' sizes");
}

TEST(Manifest, KernelBinaryMustBeAListedFile) {
  Json d = Json::parse(manifest_json(sample()));
  d["kernels"][0]["bin"] = "host/Add/Add_2.so";
  EXPECT_EQ(error_of(d), "/kernels/0/bin: expected the path of a file listed in /files");
}

// A SoC's kernels install into <ai_core>/<soc>: a package never writes into the library's own folders.
TEST(Manifest, ASocNamedAsALibraryFolderIsRefused) {
  for (const char* soc : {"bin", "config", "payoff", "", "a/b", "."}) {
    EXPECT_FALSE(is_soc_name(soc)) << soc;
    Json d = Json::parse(manifest_json(sample()));
    d["soc"] = soc;
    EXPECT_EQ(error_of(d), std::string("/soc: ") + kSocNameExpected) << soc;
  }
  EXPECT_TRUE(is_soc_name("ascend910b"));
  EXPECT_TRUE(is_soc_name("config2"));
}

TEST(Manifest, PackageNamesAreChecked) {
  EXPECT_TRUE(is_package_name("static_kernel_20261122033000"));
  EXPECT_FALSE(is_package_name("static_kernel_"));
  EXPECT_FALSE(is_package_name("static_kernel_../x"));
  EXPECT_FALSE(is_package_name("other_20261122033000"));
  Json d = Json::parse(manifest_json(sample()));
  d["package"] = "../static_kernel_1";
  EXPECT_EQ(error_of(d), "/package: expected static_kernel_<[A-Za-z0-9_]>");
}

}  // namespace
}  // namespace skb::packager
