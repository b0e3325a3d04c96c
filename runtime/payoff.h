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
#include "packager/format/payoff_evidence.h"
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

/// The class of cuda kernels on this machine: "gpu-" and the name of device 0 (its description
/// adds the driver's CUDA version). Throws RuntimeError when there is no driver or GPU.
MachineClass gpu_machine_class();

/// The class of a GPU's name and driver version, as gpu_machine_class makes it.
MachineClass gpu_machine_class(std::string_view gpu_name, int driver_version);

// The evidence's format is the package format's (packager/format/payoff_evidence.h), which skb-package
// --payoff reads too.
using packager::KernelPayoff;
using packager::kFaster;
using packager::kNoDifference;
using packager::kSlower;
using packager::parse_payoff;
using packager::Payoff;
using packager::payoff_json;
using packager::Unmeasured;
using packager::verdict_of;

/// <root>/payoff/<class id>.json, root being the ai_core folder.
std::filesystem::path payoff_file(const std::filesystem::path& root, const std::string& class_id);

/// The static kernels of an index not to serve on this class, skbKey → why: those the evidence
/// found slower whose static and dynamic bytes are still the ones measured (or, measured against
/// cuBLASLt, while cuBLASLt opens here); host kernels, or cuda kernels when `device`.
std::unordered_map<std::string, std::string> withheld_kernels(const Payoff& p,
                                                              const std::unordered_map<std::string, IndexEntry>& by_key,
                                                              bool device = false);

/// What the runtime applies when it opens a library: the withheld kernels of this machine's
/// classes (its CPU's for host kernels, its GPU's for cuda kernels), or none when SKB_PAYOFF=off or no evidence exists.
/// A file that cannot be read or is not valid evidence of this class withholds nothing and is named in `problem`, with
/// the JSON pointer of the first bad field.
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
