#include <gtest/gtest.h>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "generator/compile_step.h"
#include "opmodel/defines.h"
#include "test_util.h"

namespace skb::generator {
namespace {
namespace fs = std::filesystem;
using opmodel::OpRecord;
using opmodel::Variant;

CompileStep step_in(const fs::path& dir, std::vector<std::string> command) {
  return test::relu_step(dir, std::move(command));
}

int run_step(const CompileStep& s) { return run_compile_step(s, common::Diag("skb-generate")); }

TEST(CompileStep, PublishesBinaryThenRecord) {
  fs::path dir = test::scratch_dir();
  CompileStep s = step_in(dir, {"sh", "-c", "printf kernel-bytes > \"$0\"", "@OUT@"});
  ASSERT_EQ(run_step(s), 0);
  fs::path bin = dir / (s.name + ".so");
  auto record = common::parse_json(common::read_file(dir / (s.name + ".json")));
  EXPECT_EQ(record["sha256"], common::sha256_hex("kernel-bytes"));
  EXPECT_EQ(record["size"], 12);
  EXPECT_EQ(record["binFileName"], s.name + ".so");
  EXPECT_EQ(common::read_file(bin), "kernel-bytes");
  EXPECT_TRUE(keep_if_complete(dir, s.name, ".so"));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos);
}

// The log a compile step left for its kernel: "ok", "error" or "none".
std::string kernel_log(const CompileStep& s) {
  fs::path logs = s.dir.parent_path() / kLogDir;
  bool ok = fs::exists(logs / (s.name + kLogSuffix)), error = fs::exists(logs / (s.name + kErrorLogSuffix));
  return ok && !error ? "ok" : error && !ok ? "error" : !ok && !error ? "none" : "both";
}

TEST(CompileStep, AnySuffixIsKeptWithOrWithoutALinkStep) {
  for (std::string suffix : {".o", ".bin", "", ".so", ".cubin"}) {
    for (bool link : {false, true}) {
      SCOPED_TRACE("suffix '" + suffix + "'" + (link ? " with a link step" : ""));
      fs::path dir = test::scratch_dir() / "kernel_meta";
      fs::create_directories(dir);
      CompileStep s = link ? step_in(dir, {"sh", "-c", "printf object > \"$0\"", "@OBJ@", "@LINK@", "sh", "-c",
                                           "cat \"$0\" > \"$1\"; printf ' linked' >> \"$1\"", "@OBJ@", "@OUT@"})
                           : step_in(dir, {"sh", "-c", "printf object > \"$0\"", "@OUT@"});
      s.suffix = suffix;
      ASSERT_EQ(run_step(s), 0);
      EXPECT_EQ(common::read_file(dir / (s.name + suffix)), link ? "object linked" : "object");
      auto record = common::parse_json(common::read_file(dir / (s.name + ".json")));
      EXPECT_EQ(record["binFileName"], s.name + suffix);
      EXPECT_TRUE(keep_if_complete(dir, s.name, suffix));
      EXPECT_EQ(kernel_log(s), "ok");
      for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos);
    }
  }
}

TEST(CompileStep, ACompilerThatExitsZeroWithoutOutputFailsWithTheErrorLog) {
  fs::path dir = test::scratch_dir() / "kernel_meta";
  fs::create_directories(dir);
  CompileStep s = step_in(dir, {"sh", "-c", "echo compiled; exit 0", "@OUT@"});
  s.suffix = ".o";
  try {
    run_step(s);
    FAIL() << "a compile without output succeeded";
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrote no output"), std::string::npos) << e.what();
  }
  EXPECT_EQ(kernel_log(s), "error");
  std::string log = common::read_file(dir.parent_path() / kLogDir / (s.name + kErrorLogSuffix));
  EXPECT_NE(log.find("compiled"), std::string::npos) << log;
  EXPECT_NE(log.find("wrote no output"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir / (s.name + ".json")));
  EXPECT_FALSE(fs::exists(dir / (s.name + ".o")));
}

TEST(CompileStep, FailedCompileLeavesNothingAndRemovesOldRecord) {
  fs::path dir = test::scratch_dir();
  CompileStep ok = step_in(dir, {"sh", "-c", "printf v1 > \"$0\"", "@OUT@"});
  ASSERT_EQ(run_step(ok), 0);
  CompileStep bad = step_in(dir, {"sh", "-c", "printf partial > \"$0\"; exit 3", "@OUT@"});
  EXPECT_EQ(run_step(bad), 3);
  // the old, complete kernel stays as it was; no temp file is left
  EXPECT_EQ(common::read_file(dir / (ok.name + ".so")), "v1");
  EXPECT_TRUE(keep_if_complete(dir, ok.name, ".so"));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos);
}

TEST(CompileStep, MismatchingBinaryIsNotReused) {
  fs::path dir = test::scratch_dir();
  CompileStep s = step_in(dir, {"sh", "-c", "printf good > \"$0\"", "@OUT@"});
  ASSERT_EQ(run_step(s), 0);
  // same size, different bytes, written after the record: what an interrupted rewrite leaves
  common::write_atomic(dir / (s.name + ".so"), "evil");
  fs::last_write_time(dir / (s.name + ".so"), fs::last_write_time(dir / (s.name + ".json")) + std::chrono::seconds(5));
  EXPECT_FALSE(keep_if_complete(dir, s.name, ".so"));
  EXPECT_FALSE(fs::exists(dir / (s.name + ".json")));
  EXPECT_FALSE(fs::exists(dir / (s.name + ".so")));
}

TEST(CompileStep, TruncatedBinaryIsNotReused) {
  fs::path dir = test::scratch_dir();
  CompileStep s = step_in(dir, {"sh", "-c", "printf 0123456789 > \"$0\"", "@OUT@"});
  ASSERT_EQ(run_step(s), 0);
  fs::resize_file(dir / (s.name + ".so"), 4);
  EXPECT_FALSE(keep_if_complete(dir, s.name, ".so"));
}

TEST(CompileStep, DefinesComeFromTheKernelsInfo) {
  fs::path dir = test::scratch_dir();
  OpRecord r = opmodel::parse_op_record(test::valid_record());
  CompileStep s = step_in(dir, {"sh", "-c", "shift; printf '%s\\n' \"$@\" > \"$0\"", "@OUT@", "x", "@DEFINES@"});
  s.name = "Add_0123456789abcdef0123456789abcdef";
  s.op_type.clear();  // from the name
  s.list_separator = "\\,";
  test::write_text(dir / (s.name + ".info"), opmodel::canonical_signature(r) + "\n");
  ASSERT_EQ(run_step(s), 0);
  std::string want;
  for (const auto& d : opmodel::separate_lists(opmodel::kernel_defines(r, Variant::kStatic), "\\,")) want += d + "\n";
  EXPECT_EQ(common::read_file(dir / (s.name + ".so")), want);
  EXPECT_NE(want.find("-DSKB_IN0_SHAPE=2\\,3"), std::string::npos) << want;
  EXPECT_EQ(common::parse_json(common::read_file(dir / (s.name + ".json")))["op_type"], "Add");

  test::write_text(dir / (s.name + ".info"), "{\"op_type\": \"Add\"}\n");
  try {
    run_step(s);
    ADD_FAILURE() << "an .info that is not a signature was compiled";
  } catch (const common::Error& e) {
    EXPECT_NE(std::string(e.what()).find(s.name + ".info: /inputs: expected"), std::string::npos) << e.what();
  }
}

TEST(CompileStep, BinaryWithoutRecordIsIncomplete) {
  fs::path dir = test::scratch_dir();
  test::write_text(dir / "Relu_0123456789abcdef0123456789abcdef.so", "x");
  EXPECT_FALSE(keep_if_complete(dir, "Relu_0123456789abcdef0123456789abcdef", ".so"));
}

}  // namespace
}  // namespace skb::generator
