// The runtime's record of its misses (runtime/miss_recorder.h) and its counts (call_counts.h):
// what it writes reads back through the op model as the same call, once per distinct call,
// bounded, and a folder that cannot be written costs a warning, never the run.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <set>
#include <thread>

#include "common/fs.h"
#include "common/json_input.h"
#include "opmodel/discovery.h"
#include "runtime/call_counts.h"
#include "runtime/miss_recorder.h"
#include "tests/support/records.h"

namespace skb::test {
namespace {
namespace fs = std::filesystem;
using common::Json;
using runtime::MissRecorder;

fs::path scratch(const std::string& name) {
  fs::path dir = fs::path(SKB_TEST_SCRATCH) / "miss_recorder" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Waits for `done`, a minute at most however loaded the machine is; whether it came.
template <class Done>
bool wait_until(Done done) {
  for (int i = 0; i < 6000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Every record file under dir, as skb-generate finds them.
std::vector<std::string> recorded(const fs::path& dir) {
  if (!fs::exists(dir)) return {};
  return opmodel::discover({dir}).files;
}

std::string signature_of(const std::string& text) {
  return opmodel::canonical_signature(opmodel::parse_op_record(common::parse_json(text)));
}

Json matmul(std::int64_t m) {
  return record("MatMulV2", {tensor("float16", {m, 16}, 0), tensor("float16", {16, 8}, 1), nullptr, nullptr},
                {tensor("float16", {m, 8}, 0)},
                {attr("transpose_x1", 0, "bool", false), attr("transpose_x2", 1, "bool", false)});
}

// Records of every shape the format allows: attrs of every kind and alias, lists and empty
// lists, absent optional inputs, a list input, views, value-depend data (values and "NULL").
std::vector<Json> every_kind() {
  Json view = tensor("float", {2, 3}, 0);
  view["is_view"] = true;
  view["stride"] = {1, 2};
  view["offset"] = 4;
  Json null_data = tensor("int64", {2}, 1);
  null_data["value_depend"] = true;
  null_data["const_data"] = "NULL";
  Json fractal = tensor("float16", {1, 1, 16, 16}, 0, "FRACTAL_NZ");
  fractal["sub_format"] = 0;
  fractal["c0_format"] = 16;
  Json with_extra = record("AllGatherMatmul", {tensor("bfloat16", {4, 8}, 0)}, {tensor("bfloat16", {4, 8}, 0)},
                           {attr("group", 0, "string", "hccl_world_group")});
  with_extra["extra_params"] = {{"rank_size", 8}};
  with_extra["deterministic"] = "true";
  with_extra["deterministic_level"] = 1;
  with_extra["impl_mode"] = "high_precision,keep_fp32";
  Json debug_fields = matmul(3);
  debug_fields["bin_type"] = 1;
  debug_fields["bin_info"] = {{"bin", "x"}};
  return {
      matmul(5),
      debug_fields,
      record("Attrs", {tensor("float", {4}, 0)}, {tensor("float", {4}, 0)},
             {attr("s", 0, "str", "a-b_c"), attr("s2", 1, "string", ""), attr("b", 2, "bool", true),
              attr("i", 3, "int", -7), attr("i32", 4, "int32", 2147483647), attr("i64", 5, "int64", -9007199254740993),
              attr("f", 6, "float", 0.1), attr("f32", 7, "float32", -1e-30), attr("li", 8, "list_int", {1, -2, 3}),
              attr("liI", 9, "listInt", Json::array()), attr("li64", 10, "list_int64", {4000000000LL}),
              attr("lf", 11, "list_float", {0.5, -2.25}), attr("lfF", 12, "listFloat", Json::array()),
              attr("lb", 13, "list_bool", {true, false}), attr("lbB", 14, "listBool", Json::array())}),
      record("ConcatD", {Json::array({tensor("float", {2, 3}, 0), tensor("float", {4, 3}, 1)})},
             {tensor("float", {6, 3}, 0)}, {attr("concat_dim", 0, "int", 0)}),
      record("EmptyList", {Json::array(), tensor("float", {1}, 1)}, {tensor("float", {1}, 0)}),
      record("NoInputs", {}, {tensor("float", {1}, 0)}),
      record("AbsentFirst", {nullptr, tensor("float", {2}, 1)}, {tensor("float", {2}, 0)}),
      record("Transpose", {view, value_tensor("int64", {1, 0}, 1)}, {tensor("float", {3, 2}, 0)}),
      record("Reshape", {tensor("float", {2, 2}, 0), null_data}, {tensor("float", {4}, 0)}),
      record("TransData", {fractal}, {tensor("float16", {16, 16}, 0)}),
      with_extra,
  };
}

TEST(MissRecorder, EveryRecordWrittenReadsBackAsTheSameCall) {
  fs::path dir = scratch("round_trip");
  MissRecorder r;
  r.start(dir);
  std::set<std::string> called;
  for (const Json& call : every_kind()) {
    ASSERT_NE(r.note(call.dump()), "") << call.dump();
    called.insert(signature_of(call.dump()));
  }
  // And every valid record of the example dump and the fuzz corpus, as the caller wrote it.
  for (const auto& [path, rec] : valid_records({SKB_EXAMPLES, SKB_FUZZ_CORPUS})) {
    r.note(common::read_file(path));
    called.insert(opmodel::canonical_signature(rec));
  }
  r.stop();
  std::set<std::string> back;
  for (const std::string& f : recorded(dir)) {
    std::string text = common::read_file(f);
    Json doc = common::parse_json(text);
    EXPECT_FALSE(doc.contains("bin_type") || doc.contains("bin_info")) << f;
    back.insert(signature_of(text));
  }
  EXPECT_EQ(back.size(), recorded(dir).size()) << "a call was written twice";
  EXPECT_EQ(back, called);
}

TEST(MissRecorder, FilesAreNamedAndPlacedAsTheFrameworksWriteThem) {
  fs::path dir = scratch("layout");
  MissRecorder r;
  r.start(dir);
  r.note(matmul(5).dump());
  r.note(record("NoInputs", {}, {tensor("float", {1}, 0)}).dump());
  r.note(record("ConcatD", {Json::array({tensor("float", {2, 3}, 0)})}, {tensor("float", {2, 3}, 0)},
                {attr("concat_dim", 0, "int", 0)})
             .dump());
  r.stop();
  std::vector<std::string> files = recorded(dir);
  ASSERT_EQ(files.size(), 3u);
  fs::path op_dir = fs::path(files[0]).parent_path();
  const std::string pid = std::to_string(getpid());
  EXPECT_EQ(op_dir.filename().string(), pid + "_opcompile");
  std::string proc = op_dir.parent_path().filename().string();
  EXPECT_EQ(proc.rfind("ts", 0), 0u) << proc;
  EXPECT_EQ(proc.size(), std::string("ts20261127031700123456_pid_outputs").size() + pid.size()) << proc;
  EXPECT_NE(proc.find("_pid" + pid + "_outputs"), std::string::npos) << proc;
  std::set<std::string> names;
  for (const auto& f : files) names.insert(fs::path(f).filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"MatMulV2_float16_ND_5_16_0.json", "NoInputs_1.json",
                                          "ConcatD_float_ND_2_3_2.json"}));
  // 2-space indentation and sorted keys, as the frameworks write them.
  std::string text = common::read_file(op_dir / "NoInputs_1.json");
  EXPECT_EQ(text.rfind("{\n  \"attrs\": [],\n  \"deterministic\"", 0), 0u) << text;
}

TEST(MissRecorder, EachDistinctCallIsWrittenOncePerProcess) {
  fs::path dir = scratch("once");
  MissRecorder r;
  r.start(dir);
  r.note(matmul(5).dump());
  r.note(matmul(5).dump(2));  // the same call, other bytes
  r.flush();
  r.note(matmul(5).dump());
  r.note(matmul(6).dump());
  r.stop();
  EXPECT_EQ(recorded(dir).size(), 2u);
  EXPECT_EQ(r.written(), 2u);
  r.start(dir);  // recording again in the same process: a new folder, nothing written twice
  r.note(matmul(6).dump());
  r.stop();
  EXPECT_EQ(recorded(dir).size(), 2u);
}

TEST(MissRecorder, TheCapBoundsWhatIsKeptAndCountsTheRest) {
  fs::path dir = scratch("cap");
  MissRecorder r;
  r.start(dir, 3);
  for (int m = 1; m <= 10; ++m) r.note(matmul(m).dump());
  r.stop();
  EXPECT_EQ(recorded(dir).size(), 3u);
  EXPECT_EQ(r.past_cap(), 7u);
}

TEST(MissRecorder, AnUnwritableFolderCostsOneWarningAndTheRunGoesOn) {
  fs::path dir = scratch("unwritable");
  common::write_atomic(dir / "file", "not a folder");
  MissRecorder r;
  r.start(dir / "file" / "misses");
  testing::internal::CaptureStderr();
  r.note(matmul(5).dump());
  EXPECT_EQ(r.flush(), 0u);
  r.note(matmul(6).dump());
  EXPECT_EQ(r.flush(), 0u);
  r.stop();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning: cannot record missed calls in"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "warned more than once: " << err;
  EXPECT_EQ(r.written(), 0u);
}

TEST(MissRecorder, WhatCouldNotBeWrittenIsWrittenOnceTheFolderIsThere) {
  fs::path dir = scratch("later");
  common::write_atomic(dir / "misses", "in the way");
  MissRecorder r;
  r.start(dir / "misses");
  testing::internal::CaptureStderr();
  r.note(matmul(5).dump());
  EXPECT_EQ(r.flush(), 0u);
  testing::internal::GetCapturedStderr();
  fs::remove(dir / "misses");  // room again (as a disk that had been full)
  EXPECT_EQ(r.flush(), 1u);
  r.stop();
  EXPECT_EQ(recorded(dir / "misses").size(), 1u);
}

TEST(MissRecorder, TwoProcessesRecordingIntoOneFolderEachWriteTheirOwn) {
  fs::path dir = scratch("two");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    MissRecorder r;
    r.start(dir);
    r.note(matmul(5).dump());
    r.note(matmul(7).dump());
    r.stop();
    _exit(r.written() == 2 ? 0 : 1);
  }
  MissRecorder r;
  r.start(dir);
  r.note(matmul(5).dump());
  r.stop();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::set<std::string> process_folders;
  for (const auto& f : recorded(dir)) process_folders.insert(fs::path(f).parent_path().parent_path().string());
  EXPECT_EQ(process_folders.size(), 2u);
  EXPECT_EQ(recorded(dir).size(), 3u);
}

// A process forked while the recorder's thread waits records nothing and exits: the thread is
// not in the child, and nothing there waits for it.
TEST(MissRecorder, AChildForkedWhileItsThreadWaitsExits) {
  fs::path dir = scratch("fork");
  MissRecorder r;
  r.start(dir, MissRecorder::kDefaultCap, std::chrono::milliseconds(20));
  r.note(matmul(5).dump());
  wait_until([&] { return !recorded(dir).empty(); });
  ASSERT_EQ(recorded(dir).size(), 1u) << "the thread wrote, and waits for the next interval";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    r.note(matmul(7).dump());
    r.flush();
    r.~MissRecorder();  // as at exit
    _exit(0);
  }
  int status = 0;
  if (!wait_until([&] { return waitpid(child, &status, WNOHANG) != 0; })) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the child never exited";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  r.note(matmul(9).dump());
  r.stop();
  EXPECT_EQ(recorded(dir).size(), 2u) << "the parent records on; the child recorded nothing";
}

TEST(MissRecorder, RecordsAreWrittenEveryIntervalWithoutAFlush) {
  fs::path dir = scratch("interval");
  MissRecorder r;
  r.start(dir, MissRecorder::kDefaultCap, std::chrono::milliseconds(20));
  r.note(matmul(5).dump());
  // No flush: the recorder's own thread writes it (waited for, however loaded the machine).
  wait_until([&] { return !recorded(dir).empty(); });
  EXPECT_EQ(recorded(dir).size(), 1u);
  r.stop();
}

TEST(MissRecorder, AProcessKilledWithSignal9KeepsWhatEachIntervalWrote) {
  fs::path dir = scratch("kill9");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    MissRecorder r;
    r.start(dir, MissRecorder::kDefaultCap, std::chrono::milliseconds(20));
    for (int m = 1; m <= 3; ++m) r.note(matmul(m).dump());
    for (;;) pause();  // never flushes, never exits: only the interval writes
  }
  wait_until([&] { return recorded(dir).size() >= 3; });
  kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  std::vector<std::string> files = recorded(dir);
  ASSERT_EQ(files.size(), 3u);
  for (const auto& f : files) EXPECT_NO_THROW(signature_of(common::read_file(f))) << f;
  std::size_t entries = 0;  // no temp file left beside them
  for (const auto& e : fs::recursive_directory_iterator(dir)) entries += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(entries, 3u);
}

TEST(MissRecorder, ManyThreadsRecordEachCallOnce) {
  fs::path dir = scratch("threads");
  MissRecorder r;
  r.start(dir, MissRecorder::kDefaultCap, std::chrono::milliseconds(1));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&r] {
      for (int i = 0; i < 200; ++i) r.note(matmul(1 + i % 50).dump());
    });
  for (auto& t : threads) t.join();
  r.stop();
  EXPECT_EQ(recorded(dir).size(), 50u);
}

TEST(MissRecorder, NothingIsRecordedBeforeStartOrAfterStop) {
  fs::path dir = scratch("off");
  MissRecorder r;
  EXPECT_EQ(r.note(matmul(5).dump()), "MatMulV2");  // counted by its op, not recorded
  r.start(dir);
  r.note(matmul(5).dump());  // seen before start, recorded now
  r.stop();
  r.note(matmul(6).dump());
  r.flush();
  EXPECT_EQ(recorded(dir).size(), 1u);
  EXPECT_EQ(r.note("{not json"), "");
}

TEST(CallCounts, CountPerOpAndKernelAndInAll) {
  runtime::CallCounts c;
  c.add_static("MatMulV2_00ff");
  c.add_static("MatMulV2_00ff");
  c.add("MatMulV2", "MatMulV2_dyn", runtime::Outcome::kDynamic);
  c.add("Relu", "", runtime::Outcome::kNone);
  std::vector<runtime::CallCount> rows = c.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kernel, "MatMulV2_00ff");
  EXPECT_EQ(rows[0].op_type, "MatMulV2");
  EXPECT_EQ(rows[0].static_hits, 2u);
  EXPECT_EQ(rows[1].dynamic_fallbacks, 1u);
  EXPECT_EQ(rows[2].op_type, "Relu");
  EXPECT_EQ(rows[2].no_kernel, 1u);
  EXPECT_EQ(c.summary(), "calls: 2 static, 1 dynamic, 1 no kernel");
  EXPECT_EQ(c.text(),
            "MatMulV2 MatMulV2_00ff: 2 static, 0 dynamic, 0 no kernel\n"
            "MatMulV2 MatMulV2_dyn: 0 static, 1 dynamic, 0 no kernel\n"
            "Relu -: 0 static, 0 dynamic, 1 no kernel\n");
  c.clear();
  EXPECT_EQ(c.summary(), "calls: 0 static, 0 dynamic, 0 no kernel");
}

TEST(CallCounts, RowsAreBounded) {
  runtime::CallCounts c;
  for (std::size_t i = 0; i < runtime::CallCounts::kMaxRows + 10; ++i)
    c.add(fmt::format("Op{}", i), "", runtime::Outcome::kNone);
  std::vector<runtime::CallCount> rows = c.rows();
  EXPECT_EQ(rows.size(), runtime::CallCounts::kMaxRows + 1);
  EXPECT_EQ(c.totals().no_kernel, runtime::CallCounts::kMaxRows + 10);
}

}  // namespace
}  // namespace skb::test
