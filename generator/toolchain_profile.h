#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/json_input.h"

namespace skb::generator {

/// A toolchain profile document (templates/toolchains/README.md), validated field by field but
/// not resolved: nothing is looked up on PATH, run, or read from disk. Placeholders stay as
/// written.
struct ProfileSpec {
  struct Op {
    std::string type;
    std::string template_path;  // relative to template_dir
    std::vector<std::string> dtypes;
  };
  std::string name, compiler, default_soc, template_dir, suffix, entry, dynamic_entry;
  std::string list_separator = ",";
  std::vector<std::string> flags, command, link, identify, launcher, headers;
  std::vector<std::string> environment;  // variables the compiler reads that change a kernel's bytes
  std::vector<std::string> formats;      // storage formats the templates lay out; empty: any
  int core_type = 0;                     // what the operator library's index says of every kernel:
  std::uint32_t block_dim = 1;           // opbase's CoreType number, and the cores a launch takes
  bool sidecar = false;                  // the compiler writes its own JSON of each kernel to {sidecar}
  // Kernels that run on a device: how the runtime launches them ("launch": device, block,
  // max_grid). Device "host" (no "launch"): shared objects the runtime calls.
  std::string launch_device = "host";
  std::uint32_t launch_block = 0, launch_max_grid = 0;
  std::vector<Op> ops;  // in key order
};

/// Validates a parsed profile. Throws common::FieldError with the JSON pointer of the first
/// field that is not as the profile format says.
ProfileSpec parse_profile_spec(const common::Json& doc);

}  // namespace skb::generator
