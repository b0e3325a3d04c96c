#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

#include <vector>
#include "store/local_config.h"

#include "common/diag.h"
#include "common/error.h"

namespace skb::generator {

/// The options of one generation, as given on the command line.
struct Options {
  std::vector<std::filesystem::path> op_params_dirs;
  std::filesystem::path output;
  std::string toolchain = "host";
  std::string soc;  // empty: the profile's default_soc
  std::vector<std::string> launcher;
  bool strict = false;
  bool require_kernels = false;  // no kernel to build is an error (NoKernels), nothing written
  bool with_dynamic = false;
  bool package = true;                   // end the graph with the packaging step
  std::string compression = "gzip";      // of the package payload
  std::filesystem::path package_dir;     // where the .run goes; empty: OUT
  std::string package_name;              // the package's fixed name; empty: static_kernel_<datetime>_<digest>
  std::filesystem::path package_base;    // make the package a delta on this .run (skb-package --base)
  bool package_self_contained = false;   // ... that carries its installer (skb-package --self-contained)
  std::filesystem::path package_payoff;  // leave out what this evidence found slower (skb-package --payoff)
  unsigned threads = 0;                  // 0: one per core
  std::filesystem::path depfile;         // optional: a Make-style depfile of what the generation read
  std::string cache;                     // the kernel store's URL; empty: none
  bool cache_read_only = false;          // take from the store, never write to it
  std::uint64_t cache_max_size = 0;      // bytes a file store keeps at most; 0: no cap
  store::LocalFlags local;               // the user's private local store (on unless turned off)
  bool report_quiet = false;             // the build's kernel store report prints errors only
  bool lookup_now = false;               // a one-shot build: look kernels up now, give compile edges to the others
  bool regenerating = false;             // run by the graph's own regeneration rule, in the build folder
  std::filesystem::path sign_key;        // signs store uploads and the package; empty: the user's own key
                                         // signs uploads, the package is unsigned
  std::filesystem::path trusted_keys;    // a store entry's signer must be in it; empty: the user's own keys
};

/// Options::require_kernels: the records give no kernel to build.
class NoKernels : public common::Error {
 public:
  using common::Error::Error;
};

/// What a generation did, for the caller and its tests.
struct Outcome {
  std::size_t files_rejected = 0;
  std::size_t kernels = 0;
  bool manifest_written = false;
};

/// Scans, validates, plans and writes OUT (build.ninja, kernel_meta/*.info, plan.json,
/// summary.json), each only when its bytes change. Per-file problems are reported through
/// diag and skipped; with strict they are fatal and OUT is left as it was. Throws Error.
Outcome generate(const Options& options, const common::Diag& diag);

/// The arguments that rerun generate() with these options (absolute paths), for build.ninja.
std::vector<std::string> regenerate_args(const Options& options);

}  // namespace skb::generator
