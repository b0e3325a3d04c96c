#include "packager/format/payoff_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "common/error.h"
#include "common/sha256.h"

namespace skb::packager {
using common::Field;
using common::FieldError;
using common::Json;

namespace {

constexpr std::size_t kMaxKernels = std::size_t{1} << 20;

bool is_kernel_name(std::string_view s) {
  return !s.empty() && s.size() <= 256 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool is_class_id(std::string_view s) {
  return s.size() > 4 && s.size() <= 100 && (s.substr(0, 4) == "cpu-" || s.substr(0, 4) == "gpu-") &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// Every member of an object is one of `known`: a document that says more than skb wrote is not
// read as if it said less.
void only_members(const Field& f, std::initializer_list<std::string_view> known) {
  f.expect_object();
  for (const auto& [name, value] : f.json().items())
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw FieldError(f.pointer() + "/" + common::pointer_token(name), "an unknown member");
}

std::string read_name(const Field& f) {
  std::string s = f.string(256);
  if (!is_kernel_name(s)) f.reject("expected a kernel name of [A-Za-z0-9_]");
  return s;
}

std::string read_hex64(const Field& f) {
  std::string s = f.string(64);
  if (!common::is_sha256_hex(s)) f.reject("expected 64 lower-case hex digits");
  return s;
}

double read_positive(const Field& f, double max) {
  double v = f.number();
  if (!(v > 0) || v > max) f.reject(fmt::format("expected a number above 0 and at most {}", max));
  return v;
}

KernelPayoff read_kernel(const Field& f, double margin) {
  only_members(f, {"kernel", "key", "sha256", "dynamic_kernel", "dynamic_sha256", "verdict", "ratio", "low", "high",
                   "static_ns", "dynamic_ns", "pairs"});
  KernelPayoff k;
  k.kernel = read_name(f.at("kernel"));
  k.key = read_hex64(f.at("key"));
  k.sha256 = read_hex64(f.at("sha256"));
  k.dynamic_kernel = read_name(f.at("dynamic_kernel"));
  k.dynamic_sha256 = read_hex64(f.at("dynamic_sha256"));
  k.ratio = read_positive(f.at("ratio"), 1e9);
  k.low = read_positive(f.at("low"), 1e9);
  k.high = read_positive(f.at("high"), 1e9);
  if (k.low > k.ratio) f.at("low").reject("expected at most the ratio");
  if (k.high < k.ratio) f.at("high").reject("expected at least the ratio");
  k.static_ns = read_positive(f.at("static_ns"), 1e15);
  k.dynamic_ns = read_positive(f.at("dynamic_ns"), 1e15);
  k.pairs = f.at("pairs").integer(2, std::int64_t{1} << 30);
  k.verdict = f.at("verdict").string(16);
  // A verdict that acts is the interval's: one that says slower where the interval does not is
  // refused. "same" is also what too few pairs give, whatever their interval.
  if (k.verdict != kNoDifference && k.verdict != verdict_of(k.low, k.high, margin))
    f.at("verdict").reject(fmt::format("expected \"{}\" (what the interval [{}, {}] says with margin {})",
                                       verdict_of(k.low, k.high, margin), k.low, k.high, margin));
  return k;
}

}  // namespace

std::string verdict_of(double low, double high, double margin) {
  if (low > 1 + margin) return kSlower;
  if (high < 1 / (1 + margin)) return kFaster;
  return kNoDifference;
}

std::string payoff_json(const Payoff& p) {
  Json kernels = Json::array(), unmeasured = Json::array();
  for (const auto& k : p.kernels)
    kernels.push_back({{"kernel", k.kernel},
                       {"key", k.key},
                       {"sha256", k.sha256},
                       {"dynamic_kernel", k.dynamic_kernel},
                       {"dynamic_sha256", k.dynamic_sha256},
                       {"verdict", k.verdict},
                       {"ratio", k.ratio},
                       {"low", k.low},
                       {"high", k.high},
                       {"static_ns", k.static_ns},
                       {"dynamic_ns", k.dynamic_ns},
                       {"pairs", k.pairs}});
  for (const auto& u : p.unmeasured) unmeasured.push_back({{"kernel", u.kernel}, {"reason", u.reason}});
  Json doc = {{"format", p.format},         {"machine_class", p.machine_class},
              {"machine", p.machine},       {"skb_version", p.skb_version},
              {"measured", p.measured},     {"margin", p.margin},
              {"confidence", p.confidence}, {"kernels", kernels},
              {"unmeasured", unmeasured}};
  return doc.dump(1) + "\n";
}

Payoff parse_payoff(const Json& doc) {
  Field root(doc, "");
  only_members(root, {"format", "machine_class", "machine", "skb_version", "measured", "margin", "confidence",
                      "kernels", "unmeasured"});
  Payoff p;
  p.format = static_cast<int>(root.at("format").integer(1, 1));
  p.machine_class = root.at("machine_class").string(100);
  if (!is_class_id(p.machine_class))
    root.at("machine_class").reject("expected cpu- or gpu- and [a-z0-9-], at most 100");
  p.machine = root.at("machine").string(256);
  p.skb_version = root.at("skb_version").string(64);
  p.measured = root.at("measured").string(64);
  p.margin = root.at("margin").number();
  if (!(p.margin >= 0.01 && p.margin <= 1)) root.at("margin").reject("expected a margin from 0.01 to 1");
  p.confidence = root.at("confidence").number();
  if (p.confidence != 0.95) root.at("confidence").reject("expected 0.95");
  Field kernels = root.at("kernels");
  std::set<std::string> seen;
  for (std::size_t i = 0, n = kernels.array_size(kMaxKernels); i < n; ++i) {
    KernelPayoff k = read_kernel(kernels.at(i), p.margin);
    if (!seen.insert(k.key).second) kernels.at(i).at("key").reject("expected each kernel once");
    p.kernels.push_back(std::move(k));
  }
  Field unmeasured = root.at("unmeasured");
  for (std::size_t i = 0, n = unmeasured.array_size(kMaxKernels); i < n; ++i) {
    only_members(unmeasured.at(i), {"kernel", "reason"});
    p.unmeasured.push_back({read_name(unmeasured.at(i).at("kernel")), unmeasured.at(i).at("reason").string(1024)});
  }
  return p;
}

}  // namespace skb::packager
