// Payoff evidence (runtime/payoff.h) and the paired timing skb bench measures it with.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "explain/paired_timing.h"
#include "runtime/cublas_gemm.h"
#include "runtime/payoff.h"
#include "test_util.h"

namespace skb {
namespace {
using common::Json;
using runtime::Payoff;

// Work that takes the same time on every call: a loop the compiler cannot drop.
void spin(int n) {
  volatile unsigned x = 0;
  for (int i = 0; i < n; ++i) x = x + static_cast<unsigned>(i);
}

TEST(PairedTiming, IdenticalFunctionsAreNeverCalledSlower) {
  explain::TimingOptions o;
  o.budget_seconds = 0.3;
  // One function on both sides: two copies of the same code may differ by their place in memory
  // (8% measured under AddressSanitizer), which is no property of the statistics.
  auto work = [] { spin(20000); };
  for (int round = 0; round < 5; ++round) {
    explain::Timing t = explain::time_paired(work, work, o);
    EXPECT_NE(t.verdict, runtime::kSlower) << round << ": " << t.ratio << " [" << t.low << ", " << t.high << "]";
    EXPECT_LE(t.low, t.ratio);
    EXPECT_GE(t.high, t.ratio);
    EXPECT_GE(t.pairs, 2);
  }
}

TEST(PairedTiming, TwentyTimesTheWorkIsSlower) {
  explain::TimingOptions o;
  o.budget_seconds = 30;  // a bound for a loaded machine: it stops once decided, in about a second
  explain::Timing t = explain::time_paired([] { spin(400000); }, [] { spin(20000); }, o);
  EXPECT_EQ(t.verdict, runtime::kSlower) << t.ratio << " [" << t.low << ", " << t.high << "]";
  EXPECT_GT(t.ratio, 3);
  explain::Timing u = explain::time_paired([] { spin(20000); }, [] { spin(400000); }, o);
  EXPECT_EQ(u.verdict, runtime::kFaster) << u.ratio << " [" << u.low << ", " << u.high << "]";
}

TEST(PairedTiming, AFewDisturbedPairsMoveNeitherTheRatioNorItsInterval) {
  std::vector<double> logs(20, std::log(1.0));
  logs[3] = logs[11] = logs[17] = std::log(5.0);  // the process was stopped in one side's sample
  explain::RatioInterval r = explain::median_ratio_interval(logs);
  EXPECT_NEAR(r.ratio, 1, 1e-9);
  EXPECT_NEAR(r.high, 1, 1e-9);
}

TEST(PairedTiming, IntervalOfConstantLogRatiosIsThePoint) {
  explain::RatioInterval r = explain::median_ratio_interval({std::log(2.0), std::log(2.0), std::log(2.0)});
  EXPECT_NEAR(r.ratio, 2, 1e-9);
  EXPECT_NEAR(r.low, 2, 1e-9);
  EXPECT_NEAR(r.high, 2, 1e-9);
}

TEST(Payoff, VerdictNeedsTheWholeIntervalBeyondTheMargin) {
  EXPECT_EQ(runtime::verdict_of(1.06, 1.5, 0.05), runtime::kSlower);
  EXPECT_EQ(runtime::verdict_of(1.04, 1.5, 0.05), runtime::kNoDifference);
  EXPECT_EQ(runtime::verdict_of(0.5, 0.95, 0.05), runtime::kFaster);
  EXPECT_EQ(runtime::verdict_of(0.5, 0.96, 0.05), runtime::kNoDifference);
}

TEST(Payoff, MachineClassIsAFileSafeNameOfTheCpuModel) {
  EXPECT_EQ(runtime::cpu_machine_class("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz").id,
            "cpu-intel-r-xeon-r-platinum-8375c-cpu-2-90ghz");
  EXPECT_EQ(runtime::cpu_machine_class("../../etc/passwd").id, "cpu-etc-passwd");
  EXPECT_EQ(runtime::cpu_machine_class("").id, "cpu-unknown");
  EXPECT_EQ(runtime::host_machine_class().id.rfind("cpu-", 0), 0u);
}

const std::string kKey(64, 'a'), kSha(64, 'b'), kDynSha(64, 'c');

Payoff slower_payoff(const std::string& cls) {
  Payoff p;
  p.machine_class = cls;
  p.machine = "Test CPU";
  p.skb_version = "0.0";
  p.measured = "2026-11-27T00:00:00Z";
  runtime::KernelPayoff k;
  k.kernel = "Add_1";
  k.key = kKey;
  k.sha256 = kSha;
  k.dynamic_kernel = "Add_2";
  k.dynamic_sha256 = kDynSha;
  k.verdict = runtime::kSlower;
  k.ratio = 20;
  k.low = 18;
  k.high = 22;
  k.static_ns = 2000;
  k.dynamic_ns = 100;
  k.pairs = 10;
  p.kernels.push_back(k);
  p.unmeasured.push_back({"Mul_3", "no record of its call among RECORDS"});
  return p;
}

std::unordered_map<std::string, runtime::IndexEntry> index_of(const std::string& static_sha) {
  std::unordered_map<std::string, runtime::IndexEntry> by_key;
  runtime::IndexEntry s;
  s.kernel_name = "Add_1";
  s.key = kKey;
  s.sha256 = static_sha;
  s.variant = "static";
  by_key[kKey] = s;
  runtime::IndexEntry d;
  d.kernel_name = "Add_2";
  d.key = std::string(64, 'd');
  d.sha256 = kDynSha;
  d.variant = "dynamic";
  by_key[d.key] = d;
  return by_key;
}

TEST(Payoff, RoundTripsAndWithholdsOnlyTheBytesMeasured) {
  Payoff p = slower_payoff("cpu-test");
  Payoff q = runtime::parse_payoff(common::parse_json(runtime::payoff_json(p)));
  ASSERT_EQ(q.kernels.size(), 1u);
  EXPECT_EQ(q.kernels[0].ratio, 20);
  EXPECT_EQ(q.unmeasured[0].kernel, "Mul_3");
  EXPECT_EQ(runtime::withheld_kernels(q, index_of(kSha)).count(kKey), 1u);
  EXPECT_TRUE(runtime::withheld_kernels(q, index_of(std::string(64, 'e'))).empty());  // rebuilt since
}

TEST(Payoff, AGpuClassIsItsNameAndTheDriverSaysItsVersion) {
  runtime::MachineClass c = runtime::gpu_machine_class("NVIDIA H200", 13000);
  EXPECT_EQ(c.id, "gpu-nvidia-h200");
  EXPECT_EQ(c.description, "NVIDIA H200, CUDA driver 13.0");
  EXPECT_EQ(runtime::gpu_machine_class("NVIDIA GeForce RTX 4090", 12040).id, "gpu-nvidia-geforce-rtx-4090");
  // Evidence of a GPU class reads back.
  Payoff q = runtime::parse_payoff(common::parse_json(runtime::payoff_json(slower_payoff(c.id))));
  EXPECT_EQ(q.machine_class, "gpu-nvidia-h200");
}

// The index of one cuda static kernel and its cuda dynamic twin.
std::unordered_map<std::string, runtime::IndexEntry> cuda_index_of(const std::string& static_sha) {
  auto by_key = index_of(static_sha);
  for (auto& [key, e] : by_key) e.launch.device = "cuda";
  return by_key;
}

TEST(Payoff, AClassesVerdictsApplyToItsOwnKindOfKernel) {
  Payoff p = slower_payoff("gpu-test");
  EXPECT_EQ(runtime::withheld_kernels(p, cuda_index_of(kSha), true).count(kKey), 1u);
  EXPECT_TRUE(runtime::withheld_kernels(p, cuda_index_of(kSha), false).empty()) << "a CPU's verdict, a cuda kernel";
  EXPECT_TRUE(runtime::withheld_kernels(p, index_of(kSha), true).empty()) << "a GPU's verdict, a host kernel";
}

TEST(Payoff, AVerdictAgainstCublasLtHoldsOnlyWhereCublasLtOpens) {
  Payoff p = slower_payoff("gpu-test");
  p.kernels[0].dynamic_kernel = runtime::kCublasLt;
  ::setenv("SKB_CUBLASLT", "off", 1);  // read once a process: off for every test of this binary
  std::string why;
  EXPECT_FALSE(runtime::cublas_opens(why));
  EXPECT_NE(why.find("SKB_CUBLASLT=off"), std::string::npos) << why;
  // The call would take the template twin, which the kernel was not measured against.
  EXPECT_TRUE(runtime::withheld_kernels(p, cuda_index_of(kSha), true).empty());
}

// The JSON pointer a hostile or corrupt document is refused at.
std::string refused_at(const std::function<void(Json&)>& damage) {
  Json doc = Json::parse(runtime::payoff_json(slower_payoff("cpu-test")));
  damage(doc);
  try {
    runtime::parse_payoff(doc);
  } catch (const common::FieldError& e) {
    return e.pointer();
  }
  return "accepted";
}

TEST(Payoff, CorruptOrHostileEvidenceIsRefusedAtItsPointer) {
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"][0]["ratio"] = "20"; }), "/kernels/0/ratio");
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"][0]["ratio"] = -1; }), "/kernels/0/ratio");
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"][0]["kernel"] = "../../x"; }), "/kernels/0/kernel");
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"][0]["sha256"] = "zz"; }), "/kernels/0/sha256");
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"][0]["low"] = 0.9; }), "/kernels/0/verdict");  // not what it says
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"][0]["low"] = 30; }), "/kernels/0/low");
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"][0]["extra"] = 1; }), "/kernels/0/extra");
  EXPECT_EQ(refused_at([](Json& d) { d["kernels"].push_back(d["kernels"][0]); }), "/kernels/1/key");
  EXPECT_EQ(refused_at([](Json& d) { d["machine_class"] = "gpu/x"; }), "/machine_class");
  EXPECT_EQ(refused_at([](Json& d) { d["format"] = 2; }), "/format");
  EXPECT_EQ(refused_at([](Json& d) { d = Json::array(); }), "");
}

// A value of the right type that is not one expected is said as such: no "expected expected",
// no "found a string" for a string of the right type.
TEST(Payoff, AWrongValueSaysWhatWasExpectedOnce) {
  Json doc = Json::parse(runtime::payoff_json(slower_payoff("cpu-test")));
  doc["kernels"][0]["low"] = 0.9;
  try {
    runtime::parse_payoff(doc);
    FAIL() << "accepted";
  } catch (const common::FieldError& e) {
    EXPECT_EQ(e.describe().rfind("/kernels/0/verdict: expected \"same\" (what the interval", 0), 0u) << e.describe();
    EXPECT_EQ(e.describe().find("found"), std::string::npos) << e.describe();
  }
}

class PayoffFile : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::scratch_dir();
    common::ensure_real_dir(root_ / "payoff");
    ::unsetenv("SKB_PAYOFF");
  }
  void TearDown() override { ::unsetenv("SKB_PAYOFF"); }
  std::filesystem::path root_;
};

TEST_F(PayoffFile, ThisClassesVerdictIsApplied) {
  auto mine = runtime::host_machine_class().id;
  common::write_atomic(runtime::payoff_file(root_, mine), runtime::payoff_json(slower_payoff(mine)));
  runtime::AppliedPayoff a = runtime::apply_payoff(root_, index_of(kSha));
  EXPECT_EQ(a.problem, "");
  EXPECT_EQ(a.withheld.count(kKey), 1u);
  ::setenv("SKB_PAYOFF", "off", 1);
  EXPECT_TRUE(runtime::apply_payoff(root_, index_of(kSha)).withheld.empty());
}

TEST_F(PayoffFile, AnotherClassesVerdictIsNotApplied) {
  common::write_atomic(runtime::payoff_file(root_, "cpu-another"), runtime::payoff_json(slower_payoff("cpu-another")));
  runtime::AppliedPayoff a = runtime::apply_payoff(root_, index_of(kSha));
  EXPECT_TRUE(a.withheld.empty());
  EXPECT_EQ(a.problem, "");
  // Nor when copied in under this class's name.
  auto mine = runtime::host_machine_class().id;
  common::write_atomic(runtime::payoff_file(root_, mine), runtime::payoff_json(slower_payoff("cpu-another")));
  a = runtime::apply_payoff(root_, index_of(kSha));
  EXPECT_TRUE(a.withheld.empty());
  EXPECT_NE(a.problem.find("/machine_class"), std::string::npos) << a.problem;
}

TEST_F(PayoffFile, CorruptFileIsRefusedByNameAndChangesNothing) {
  auto mine = runtime::host_machine_class().id;
  auto file = runtime::payoff_file(root_, mine);
  common::write_atomic(file, "{\"format\": 1, \"kernels\": [");
  runtime::AppliedPayoff a = runtime::apply_payoff(root_, index_of(kSha));
  EXPECT_TRUE(a.withheld.empty());
  EXPECT_NE(a.problem.find(file.string()), std::string::npos) << a.problem;
}

}  // namespace
}  // namespace skb
