#pragma once
// A library's payoff evidence: how each static kernel compared with its dynamic twin on one
// machine class, measured by `skb bench` and kept in <ai_core>/payoff/<class>.json. The runtime
// does not serve a static kernel measured slower on the class it runs on.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/json_input.h"
#include "runtime/index_reader.h"

namespace skb::runtime {

/// Where a library's kernels run, as far as their speed depends on it.
struct MachineClass {
  std::string id;           // file-safe: "cpu-" + the CPU model in [a-z0-9-], at most 96
  std::string description;  // the CPU model as /proc/cpuinfo names it
};

/// The machine class of host kernels on this machine: the CPU model (/proc/cpuinfo's "model
/// name", else its "Hardware" or "CPU part" lines, else the architecture uname names).
MachineClass host_machine_class();

/// The class of a CPU model (description); its id as host_machine_class makes it.
MachineClass cpu_machine_class(std::string_view cpu_model);

/// The verdicts, from the 95% interval of the ratio static time / dynamic time and a margin m.
inline constexpr const char* kFaster = "faster";        // the whole interval below 1/(1+m)
inline constexpr const char* kSlower = "slower";        // the whole interval above 1+m
inline constexpr const char* kNoDifference = "same";    // neither: no measurable difference
std::string verdict_of(double low, double high, double margin);

/// One static kernel measured against its dynamic twin.
struct KernelPayoff {
  std::string kernel, key, sha256;            // the static kernel, its skbKey and its bytes' SHA-256
  std::string dynamic_kernel, dynamic_sha256;  // what served the call without it
  std::string verdict;
  double ratio = 1, low = 1, high = 1;        // static / dynamic time: estimate and 95% interval
  double static_ns = 0, dynamic_ns = 0;       // per call
  std::int64_t pairs = 0;                     // paired samples
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

/// <root>/payoff/<class id>.json, root being the ai_core folder.
std::filesystem::path payoff_file(const std::filesystem::path& root, const std::string& class_id);

/// The static kernels of an index not to serve on this class, skbKey → why: those the evidence
/// found slower whose static and dynamic bytes are still the ones measured.
std::unordered_map<std::string, std::string> withheld_kernels(
    const Payoff& p, const std::unordered_map<std::string, IndexEntry>& by_key);

/// What the runtime applies when it opens a library: the withheld kernels of this machine's
/// class, or none when SKB_PAYOFF=off or no evidence exists. A file that cannot be read or is
/// not valid evidence of this class withholds nothing and is named in `problem`, with the JSON
/// pointer of the first bad field.
struct AppliedPayoff {
  std::unordered_map<std::string, std::string> withheld;
  std::string problem;
};
AppliedPayoff apply_payoff(const std::filesystem::path& root,
                           const std::unordered_map<std::string, IndexEntry>& by_key);

/// The index with apply_payoff's verdicts (Index::withheld, Index::payoff_problem); a refused
/// evidence file is also said once on stderr.
Index with_payoff(Index index, const std::filesystem::path& root);

}  // namespace skb::runtime
