#include <gtest/gtest.h>

#include "common/error.h"
#include "generator/plan.h"
#include "generator/soc_table.h"
#include "generator/toolchain.h"
#include "packager/format/manifest.h"
#include "test_util.h"
#include "tests/support/records.h"

namespace skb::generator {
namespace {
namespace fs = std::filesystem;
using common::Json;

Json minimal_profile() {
  return {{"name", "mine"},
          {"compiler", "c++"},
          {"command", {"{compiler}", "{flags}", "{defines}", "-o", "{out}", "{src}"}},
          {"flags", {"-O1"}},
          {"suffix", ".so"},
          {"entry", "skb_kernel"},
          {"template_dir", "."},
          {"default_soc", "cpu"},
          {"ops", {{"Relu", {{"template", "k.cc"}, {"dtypes", {"float"}}}}}}};
}

std::string load_error(const Json& profile) {
  fs::path dir = test::scratch_dir();
  test::write_text(dir / "k.cc", "int x;");
  test::write_text(dir / "p.json", profile.dump());
  try {
    load_toolchain((dir / "p.json").string(), SKB_TEST_TEMPLATES, "", {});
    return "";
  } catch (const common::Error& e) {
    std::string what = e.what();
    return what.substr(what.find(": ") + 2);
  }
}

TEST(Toolchain, HostProfileLoads) {
  Toolchain tc = load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  EXPECT_EQ(tc.name, "host");
  EXPECT_EQ(tc.soc, "host");
  EXPECT_EQ(tc.identity.size(), 64u);
  ASSERT_NE(tc.find("MatMulV2"), nullptr);
  EXPECT_EQ(tc.find("ReduceSum"), nullptr);
  EXPECT_EQ(tc.command.front(), tc.compiler);
}

TEST(Toolchain, UserProfileOutsideTheTreeLoads) { EXPECT_EQ(load_error(minimal_profile()), ""); }

TEST(Toolchain, AnyKernelSuffixOrNoneLoads) {
  for (const char* suffix : {".so", ".o", ".bin", ".cubin", ""}) {
    Json p = minimal_profile();
    p["suffix"] = suffix;
    EXPECT_EQ(load_error(p), "") << suffix;
  }
  for (const char* suffix : {".", "./x", "/../x", "o"}) {
    Json p = minimal_profile();
    p["suffix"] = suffix;
    EXPECT_NE(load_error(p), "") << suffix;
  }
}

// A file of the templates' tree that a template includes, itself or through a header, beside it or
// by an -I folder, must be listed in /headers: its bytes are then in every kernel's name.
TEST(Toolchain, AnIncludedFileTheProfileDoesNotListIsRefused) {
  auto error_with = [](const std::string& k_cc, const Json& headers) {
    fs::path dir = test::scratch_dir();
    test::write_text(dir / "k.cc", k_cc);
    test::write_text(dir / "mine.h", "#include \"sub/deeper.h\"\n");
    test::write_text(dir / "sub/deeper.h", "int deeper;\n");
    test::write_text(dir / "inc/found.h", "int found;\n");
    Json p = minimal_profile();
    p["flags"] = {"-O1", "-I{template_dir}/inc"};
    p["headers"] = headers;
    test::write_text(dir / "p.json", p.dump());
    try {
      load_toolchain((dir / "p.json").string(), SKB_TEST_TEMPLATES, "", {});
      return std::string();
    } catch (const common::Error& e) {
      return std::string(e.what());
    }
  };
  std::string e = error_with("#include \"mine.h\"\nint x;", Json::array());
  EXPECT_NE(e.find("/headers: expected every file the templates include to be listed"), std::string::npos) << e;
  EXPECT_NE(e.find("k.cc includes"), std::string::npos) << e;
  EXPECT_NE(e.find("add \"mine.h\""), std::string::npos) << e;
  e = error_with("  #  include \"mine.h\" // a comment\nint x;", {"mine.h"});  // mine.h's own include
  EXPECT_NE(e.find("add \"sub/deeper.h\""), std::string::npos) << e;
  EXPECT_EQ(error_with("#include \"mine.h\"\nint x;", {"mine.h", "sub/deeper.h"}), "");
  e = error_with("#include \"found.h\"\n", Json::array());  // by the -I folder
  EXPECT_NE(e.find("add \"inc/found.h\""), std::string::npos) << e;
  // The compiler's own headers, and names found nowhere, are not the tree's.
  EXPECT_EQ(error_with("#include <mine.h>\n#include \"stdio.h\"\n#include \"nowhere.h\"\n", Json::array()), "");
}

TEST(Toolchain, BadFieldsAreNamed) {
  Json p = minimal_profile();
  p["suffix"] = "so";
  EXPECT_EQ(load_error(p), "/suffix: expected a file suffix such as \".so\" or \".o\", or \"\" for none");
  for (const char* own : {".json", ".info"}) {  // ninja would refuse the graph: two rules make one file
    p["suffix"] = own;
    EXPECT_EQ(load_error(p), fmt::format("/suffix: expected a suffix other than \"{}\", which skb's own files of "
                                         "each kernel have",
                                         own));
  }
  p = minimal_profile();
  p["compiler"] = "no-such-compiler-xyz";
  EXPECT_EQ(load_error(p), "/compiler: expected a compiler on PATH, \"no-such-compiler-xyz\" was not found");
  p = minimal_profile();
  p["command"] = {"{compiler}", "{src}"};
  EXPECT_EQ(load_error(p), "/command: expected a command that uses {out} and {src} or {info}");
  p = minimal_profile();
  p["command"][0] = "{cxx}";
  EXPECT_NE(load_error(p).find("/command: expected only the variables"), std::string::npos);
  p = minimal_profile();
  p["ops"]["Relu"]["template"] = "missing.cc";
  EXPECT_NE(load_error(p).find("/ops/Relu/template: expected a file"), std::string::npos);
  p = minimal_profile();
  p["formats"] = {"ND", "fractal nz"};
  EXPECT_EQ(load_error(p), "/formats: expected format names such as \"ND\" ([A-Z0-9_]+)");
  p = minimal_profile();
  p["headers"] = {"missing.h"};
  EXPECT_NE(load_error(p).find("/headers/0: expected a file, "), std::string::npos) << load_error(p);
  p = minimal_profile();
  p["launcher"] = {"no-such-launcher-xyz"};
  EXPECT_EQ(load_error(p), "/launcher/0: expected a program on PATH, \"no-such-launcher-xyz\" was not found");
  p = minimal_profile();
  p["identify"] = {"/no/such/identify"};
  EXPECT_NE(load_error(p).find("/identify: expected a command that runs: cannot run /no/such/identify"),
            std::string::npos)
      << load_error(p);
  p = minimal_profile();
  p["colour"] = "blue";
  EXPECT_EQ(load_error(p), "/colour: expected no such field (unknown key)");
  p = minimal_profile();
  p["launch"] = {{"device", "cuda"}, {"block", 100}, {"max_grid", 64}};
  EXPECT_EQ(load_error(p), "/launch/block: expected a multiple of 32 (whole warps), found an integer");
  p["launch"] = {{"device", "opencl"}, {"block", 128}, {"max_grid", 64}};
  EXPECT_EQ(load_error(p), "/launch/device: expected \"cuda\" (host kernels need no launch), found a string");
  p["launch"] = {{"device", "cuda"}, {"block", 128}, {"max_grid", 64}, {"grid", 3}};
  EXPECT_EQ(load_error(p), "/launch/grid: expected device, block or max_grid");
  p["launch"] = {{"device", "cuda"}, {"block", 128}, {"max_grid", 64}};
  EXPECT_EQ(load_error(p), "");
}

TEST(Toolchain, ARecordInAFormatItsTemplatesDoNotLayOutIsUnsupported) {
  Toolchain tc = load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  Json r = test::record("Relu", {test::tensor("float", {4, 16}, 0)}, {test::tensor("float", {4, 16}, 0)});
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(r), tc), "");
  r["inputs"][0]["format"] = "FRACTAL_NZ";
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(r), tc), "format FRACTAL_NZ");
  tc.formats.clear();  // a profile without "formats" takes every format
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(r), tc), "");
}

// A static kernel is made for the values of a value-dependent input (Transpose's perm): a record
// that did not keep them ("NULL") is planned as unsupported, not compiled into a failure.
TEST(Toolchain, AValueDependentInputWithoutValuesIsUnsupported) {
  Toolchain tc = load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  Json r = test::record("Transpose", {test::tensor("float", {4, 16}, 0), test::value_tensor("int64", {1, 0}, 1)},
                        {test::tensor("float", {16, 4}, 0)});
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(r), tc), "");
  r["inputs"][1]["const_data"] = "NULL";
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(r), tc),
            "a value-dependent input whose values were not recorded");
}

TEST(Toolchain, AnAttributeTheTemplatesDoNotComputeIsUnsupportedWithItsReason) {
  Toolchain tc = load_toolchain("host", SKB_TEST_TEMPLATES, "", {});
  auto mm = [](Json offset_x) {
    return test::record("MatMulV2",
                        {test::tensor("float", {4, 5}, 0), test::tensor("float", {5, 3}, 1), nullptr, nullptr},
                        {test::tensor("float", {4, 3}, 0)},
                        {test::attr("transpose_x1", 0, "bool", false), test::attr("offset_x", 1, "int", offset_x)});
  };
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(mm(0)), tc), "");
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(mm(7)), tc),
            "attr offset_x 7: a quantization offset; the templates compute float matmuls");
  Json relu = test::record("Relu", {test::tensor("float", {4}, 0)}, {test::tensor("float", {4}, 0)},
                           {test::attr("negative_slope", 0, "float", 0.1)});
  EXPECT_EQ(unsupported_reason(opmodel::parse_op_record(relu), tc),
            "attr negative_slope: not one the Relu template reads");
}

TEST(Toolchain, IdentityFollowsFlagsButNotLauncher) {
  fs::path dir = test::scratch_dir();
  test::write_text(dir / "k.cc", "int x;");
  Json p = minimal_profile();
  test::write_text(dir / "a.json", p.dump());
  p["flags"] = {"-O2"};
  test::write_text(dir / "b.json", p.dump());
  Toolchain a = load_toolchain((dir / "a.json").string(), SKB_TEST_TEMPLATES, "", {});
  Toolchain b = load_toolchain((dir / "b.json").string(), SKB_TEST_TEMPLATES, "", {});
  Toolchain a_launched = load_toolchain((dir / "a.json").string(), SKB_TEST_TEMPLATES, "", {"ccache"});
  EXPECT_NE(a.identity, b.identity);
  EXPECT_EQ(a.identity, a_launched.identity);
  EXPECT_EQ(a_launched.launcher, (std::vector<std::string>{"ccache"}));
}

// The profile's "environment": a listed variable that is set is part of the identity; unset, it
// renames nothing; a name that is not a variable's is refused.
TEST(Toolchain, IdentityFollowsTheListedEnvironmentWhenSet) {
  fs::path dir = test::scratch_dir();
  test::write_text(dir / "k.cc", "int x;");
  Json p = minimal_profile();
  test::write_text(dir / "plain.json", p.dump());
  p["environment"] = {"SKB_TEST_COMPILER_FLAGS"};
  test::write_text(dir / "env.json", p.dump());
  ::unsetenv("SKB_TEST_COMPILER_FLAGS");
  Toolchain plain = load_toolchain((dir / "plain.json").string(), SKB_TEST_TEMPLATES, "", {});
  Toolchain unset = load_toolchain((dir / "env.json").string(), SKB_TEST_TEMPLATES, "", {});
  EXPECT_EQ(plain.identity, unset.identity);
  EXPECT_EQ(environment_lines(unset.environment), "env SKB_TEST_COMPILER_FLAGS\n");
  ::setenv("SKB_TEST_COMPILER_FLAGS", "-DX=1", 1);
  Toolchain set = load_toolchain((dir / "env.json").string(), SKB_TEST_TEMPLATES, "", {});
  Toolchain plain_set = load_toolchain((dir / "plain.json").string(), SKB_TEST_TEMPLATES, "", {});
  EXPECT_EQ(environment_lines(set.environment), "env SKB_TEST_COMPILER_FLAGS=-DX=1\n");
  ::unsetenv("SKB_TEST_COMPILER_FLAGS");
  EXPECT_NE(set.identity, unset.identity);
  EXPECT_EQ(plain_set.identity, plain.identity);  // a variable no profile lists names nothing
  for (const char* bad : {"", "1X", "A-B", "A=B"}) {
    p["environment"] = {bad};
    EXPECT_EQ(load_error(p), fmt::format("/environment: expected names of environment variables, not \"{}\"", bad));
  }
}

TEST(Toolchain, ALinkStepReadsTheObjectTheCompileWrites) {
  Json p = minimal_profile();
  p["link"] = {"{compiler}", "-shared", "-o", "{out}", "{obj}"};
  EXPECT_EQ(load_error(p),
            "/command: expected a compile command that writes {obj} (not {out}) when there is a link step");
  p["command"] = {"{compiler}", "-c", "-o", "{obj}", "{src}"};
  EXPECT_EQ(load_error(p), "");
  p["link"] = {"{compiler}", "-o", "{out}"};
  EXPECT_EQ(load_error(p), "/link: expected a link command that reads {obj} and writes {out}");
  p = minimal_profile();
  p["command"] = {"{compiler}", "-c", "-o", "{obj}", "{src}"};
  EXPECT_EQ(load_error(p), "/command: expected {out}, not {obj}, when there is no link step");
  p = minimal_profile();
  p["define_list_separator"] = ";";
  EXPECT_NE(load_error(p).find("/define_list_separator: expected"), std::string::npos);
}

TEST(Toolchain, SocMustBeAName) {
  EXPECT_THROW(load_toolchain("host", SKB_TEST_TEMPLATES, "../x", {}), common::Error);
  for (const char* own : {"bin", "config", "payoff"}) {  // the operator library's own folders
    EXPECT_THROW(load_toolchain("host", SKB_TEST_TEMPLATES, own, {}), common::Error) << own;
    Json p = minimal_profile();
    p["default_soc"] = own;
    EXPECT_EQ(load_error(p), std::string("/default_soc: ") + packager::kSocNameExpected) << own;
  }
  EXPECT_EQ(load_toolchain("host", SKB_TEST_TEMPLATES, "cpu_v2", {}).soc, "cpu_v2");
}

}  // namespace
}  // namespace skb::generator

namespace skb::generator {
namespace {

// -v as op_compiler takes it: the index folder is the family opbase reads, from the SoC table.
TEST(Toolchain, SocVersionMapsToOpbasesIndexFolder) {
  Toolchain b3 = load_toolchain("host", SKB_TEST_TEMPLATES, "Ascend910B3", {});
  EXPECT_EQ(b3.soc, "ascend910b");
  EXPECT_EQ(b3.soc_version, "Ascend910B3");
  EXPECT_TRUE(b3.soc_known);
  EXPECT_EQ(load_toolchain("host", SKB_TEST_TEMPLATES, "Ascend910_9391", {}).soc, "ascend910_93");
  EXPECT_EQ(load_toolchain("host", SKB_TEST_TEMPLATES, "Ascend310P3", {}).soc, "ascend310p");
  EXPECT_EQ(load_toolchain("host", SKB_TEST_TEMPLATES, "Ascend910ProA", {}).soc, "ascend910");
  EXPECT_EQ(load_toolchain("host", SKB_TEST_TEMPLATES, "Ascend910B4-1", {}).soc, "ascend910b");
  EXPECT_EQ(load_toolchain("host", SKB_TEST_TEMPLATES, "Ascend950PR_9599", {}).soc, "ascend950");  // by prefix
  {  // a profile's default_soc, with no --soc, maps the same way
    fs::path dir = test::scratch_dir();
    test::write_text(dir / "k.cc", "int x;");
    Json p = minimal_profile();
    p["default_soc"] = "Ascend910B3";
    test::write_text(dir / "p.json", p.dump());
    Toolchain d = load_toolchain((dir / "p.json").string(), SKB_TEST_TEMPLATES, "", {});
    EXPECT_EQ(d.soc, "ascend910b");
    EXPECT_EQ(d.soc_version, "Ascend910B3");
  }
  Toolchain other = load_toolchain("host", SKB_TEST_TEMPLATES, "MyChip2", {});
  EXPECT_EQ(other.soc, "MyChip2");
  EXPECT_FALSE(other.soc_known);
  for (const char* arch : {"sm_80", "sm_90", "sm_90a"}) {  // a CUDA architecture is its own folder, known
    Toolchain gpu = load_toolchain("cuda", SKB_TEST_TEMPLATES, arch, {});
    EXPECT_EQ(gpu.soc, arch);
    EXPECT_TRUE(gpu.soc_known) << arch;
  }
}

// A compiler's own JSON of each kernel ({sidecar}): both or neither of the flag and the word.
TEST(Toolchain, SidecarNeedsTheFlagAndTheWord) {
  Json p = minimal_profile();
  p["sidecar"] = true;
  EXPECT_EQ(load_error(p), "/command: expected {sidecar} in the compile or link command, since /sidecar is true");
  p["command"].push_back("--sidecar={sidecar}");
  EXPECT_EQ(load_error(p), "");
  p.erase("sidecar");
  EXPECT_EQ(load_error(p), "/sidecar: expected true, since a command writes {sidecar}");
  p["sidecar"] = true;
  p["core_type"] = -1;
  EXPECT_EQ(load_error(p), "/core_type: expected an integer in [0, 255], found -1");
}

TEST(Toolchain, SocTableIsCheckedAsData) {
  EXPECT_THROW(soc_family(common::Json::parse(R"({"names": {"A": "../x"}})"), "A"), common::FieldError);
  EXPECT_THROW(soc_family(common::Json::parse(R"({"prefixes": {}})"), "A"), common::FieldError);
  EXPECT_EQ(
      soc_family(common::Json::parse(R"({"names": {}, "prefixes": {"Asc": "a", "Ascend": "b"}})"), "Ascend1").family,
      "b");
}

}  // namespace
}  // namespace skb::generator
