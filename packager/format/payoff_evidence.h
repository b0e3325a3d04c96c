#pragma once
// Payoff evidence: how each static kernel compared with its dynamic twin on one machine class,
// as `skb bench` measures it. The runtime reads it from the library (runtime/payoff.h) and
// skb-package --payoff leaves out what it found slower.
#include <cstdint>
#include <string>
#include <vector>

#include "common/json_input.h"

namespace skb::packager {

/// The verdicts, from the 95% interval of the ratio static time / dynamic time and a margin m.
inline constexpr const char* kFaster = "faster";      // the whole interval below 1/(1+m)
inline constexpr const char* kSlower = "slower";      // the whole interval above 1+m
inline constexpr const char* kNoDifference = "same";  // neither: no measurable difference
std::string verdict_of(double low, double high, double margin);

/// One static kernel measured against its dynamic twin.
struct KernelPayoff {
  std::string kernel, key, sha256;             // the static kernel, its skbKey and its bytes' SHA-256
  std::string dynamic_kernel, dynamic_sha256;  // what served the call without it
  std::string verdict;
  double ratio = 1, low = 1, high = 1;   // static / dynamic time: estimate and 95% interval
  double static_ns = 0, dynamic_ns = 0;  // per call
  std::int64_t pairs = 0;                // paired samples
};

/// A static kernel the bench could not measure, and why.
struct Unmeasured {
  std::string kernel, reason;
};

/// The evidence of one machine class.
struct Payoff {
  int format = 1;
  std::string machine_class, machine, skb_version, measured;  // measured: ISO 8601 UTC
  double margin = 0.05, confidence = 0.95;
  std::vector<KernelPayoff> kernels;
  std::vector<Unmeasured> unmeasured;
};

std::string payoff_json(const Payoff& p);

/// Validates an untrusted evidence document strictly (every field, its type and range, names
/// and hashes in their alphabets, at most 1<<20 kernels); throws common::FieldError.
Payoff parse_payoff(const common::Json& doc);

}  // namespace skb::packager
