#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "generator/key_factors.h"

namespace skb::generator {

/// One op's kernel template in a toolchain.
struct OpTemplate {
  std::filesystem::path source;     // absolute
  std::vector<std::string> dtypes;  // dtypes every tensor of a supported call must have
  std::string hash;                 // SHA-256 of the source bytes
};

/// A toolchain profile, loaded, validated and resolved (see templates/toolchains/README.md).
struct Toolchain {
  std::string name;
  std::filesystem::path profile;  // absolute path of the profile file
  std::string compiler;           // absolute path
  /// The compile command with {compiler}, {flags}, {soc} and {template_dir} expanded; {defines},
  /// {src}, {out} and {info} remain, to be filled per kernel.
  std::vector<std::string> command;
  /// The link command, when the compile command writes an object ({obj}) rather than the kernel;
  /// {compiler}, {flags}, {soc} and {template_dir} expanded, {obj} and {out} remain. The launcher
  /// prefixes the compile only, as CMAKE_<LANG>_COMPILER_LAUNCHER does, so ccache and distcc see a
  /// plain `-c` compile.
  std::vector<std::string> link;
  std::vector<std::string> launcher;  // prefixes every compile; not part of the identity
  /// The profile's "environment": variables the compiler reads that change a kernel's bytes
  /// (NVCC_APPEND_FLAGS). Those set are part of the identity, and a compile refuses to run where
  /// they differ from what skb-generate saw (environment_lines, in compiler.stamp).
  std::vector<std::string> environment;
  std::string suffix;
  std::string entry, dynamic_entry;
  /// What separates the values of a list in a -D macro ("16,32"): ",", or "\\," for nvcc.
  std::string list_separator = ",";
  std::string soc;          // the SoC family: the index folder config/<soc>/ (ascend910b)
  std::string soc_version;  // as given (Ascend910B3): what {soc} gives the compiler
  bool soc_known = true;    // soc_version is in the SoC table (or is the profile's default)
  int core_type = 0;
  std::uint32_t block_dim = 1;
  bool sidecar = false;                // each compile also writes the compiler's JSON of the kernel ({sidecar})
  std::string launch_device = "host";  // cuda: the runtime launches its kernels (profile's "launch")
  std::uint32_t launch_block = 0, launch_max_grid = 0;
  std::vector<std::string> formats;  // storage formats its templates lay out; empty: any
  std::map<std::string, OpTemplate> ops;
  /// What decides a kernel's bytes (never where skb is installed), and its hash: what every
  /// kernel of this toolchain depends on (factors.identity()).
  KeyFactors factors;
  std::string identity;
  /// Files whose change must regenerate build.ninja: profile, templates, headers, compiler.
  std::vector<std::filesystem::path> inputs;

  const OpTemplate* find(const std::string& op_type) const;
};

/// What the compiler file is on this machine, for telling that it was replaced since the
/// toolchain was identified: the file a path resolves to (through update-alternatives' links), its
/// inode, size and change time; "" when it cannot be read.
std::string compiler_stamp(const std::filesystem::path& compiler);

/// One line per variable: "env NAME=value" when it is set, "env NAME" when not.
std::string environment_lines(const std::vector<std::string>& names);

/// OUT/compiler.stamp: the compiler's path and its compiler_stamp when skb-generate identified
/// it. A compile step refuses to compile with a compiler that no longer matches it, since its
/// kernels would be named by the identity of another.
inline constexpr const char* kCompilerStampFile = "compiler.stamp";

/// A --toolchain argument names a profile file (rather than a profile of templates_dir) when it
/// contains '/' or ends in .json.
bool is_profile_path(const std::string& name_or_path);

/// Loads a profile: `name_or_path` is a file path when it contains '/' or ends in .json,
/// otherwise the name of a profile under <templates_dir>/toolchains/. An empty soc means the
/// profile's default_soc. Runs the profile's identify command. Throws Error naming the profile
/// file and the JSON pointer of a bad field.
Toolchain load_toolchain(const std::string& name_or_path, const std::filesystem::path& templates_dir,
                         const std::string& soc, const std::vector<std::string>& launcher);

/// The folder of templates next to the running executable (build tree or install prefix).
std::filesystem::path default_templates_dir();

}  // namespace skb::generator
