#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_input.h"
#include "packager/format/launch.h"

namespace skb::packager {

/// A file of a package payload, with what it must hash to.
struct PackageFile {
  std::string path;  // relative: <soc>/<OpType>/<kernel file>
  std::string sha256;
  std::uint64_t size = 0;
  // False in a delta package for a file its base holds: the payload leaves it out, and the
  // installer links it from the library, which must hold those bytes.
  bool carried = true;
};

/// A kernel of a package, as the operator library's index lists it.
struct PackageKernel {
  std::string name;  // <OpType>_<hash>
  std::string op_type;
  std::string variant;  // static | dynamic
  std::string key;      // SHA-256 of the canonical signature: the lookup key at run time
  std::string entry;    // entry symbol
  std::string bin;      // path of the binary in the package
  // What opbase reads of it (binary_info_config.json): its keys in opbase's string form, one
  // per distinct key opbase's engines build for the call (none for a dynamic kernel, or for a
  // record opbase's form cannot say), the core type (opbase's CoreType number), block dim and
  // workspace sizes.
  std::vector<std::string> simplified_keys;
  int core_type = 0;
  std::uint32_t block_dim = 1;
  std::vector<std::int64_t> workspace;
  // The flat positions of the call's value-depend inputs: the composite engine keys their data
  // only for the positions its op entry lists (valueDependIndex).
  std::vector<std::int64_t> value_depend_index;
  // How the runtime launches it, for a kernel that runs on a device (cuda); device "host" else.
  Launch launch;
};

/// A static kernel the build made that the package leaves out, and why (skb-package --payoff:
/// measured slower than its dynamic twin on the target's machine class).
struct LeftOutKernel {
  std::string name, reason;
};

/// A static kernel the package keeps whose payoff was measured (skb-package --payoff): its
/// verdict and the ratio static time / dynamic time with its 95% interval.
struct MeasuredKernel {
  std::string name, verdict;
  double ratio = 1, low = 1, high = 1;
};

/// manifest.json: the first entry of every payload, and kept in each installed package.
struct Manifest {
  int format = 1;
  std::string package;  // static_kernel_<YYYYMMDDHHMMSS>
  std::string soc;
  std::string created;  // ISO 8601, UTC
  std::string skb_version;
  std::string toolchain, toolchain_identity;
  std::string base;                      // a delta package's base package; "" for a whole one
  std::vector<PackageKernel> kernels;    // sorted by name
  std::vector<PackageFile> files;        // sorted by path
  std::uint64_t installed_size = 0;      // sum of file sizes
  std::vector<LeftOutKernel> left_out;   // sorted by name
  std::string measured_on;               // where the payoff evidence was measured; "" without one
  std::vector<MeasuredKernel> measured;  // sorted by name

  /// How many of its files a delta package takes from its base (0 for a whole package).
  std::size_t files_from_base() const;
  /// The payoff it was packaged with (skb-package --payoff), in one line: "measured on <class>:
  /// N kept faster than their dynamic twins, ..."; "" when it was packaged without one.
  std::string payoff_summary() const;
  /// A kept kernel's measured payoff, "faster, 0.62x (0.60-0.65)"; "" when it was not measured.
  std::string payoff_of(const std::string& kernel) const;
};

inline constexpr const char* kManifestName = "manifest.json";

/// The most opbase keys one kernel has: an individual engine key and two composite ones.
inline constexpr std::size_t kMaxSimplifiedKeys = 8;

std::string manifest_json(const Manifest& m);

/// Validates an untrusted manifest; throws common::FieldError.
Manifest parse_manifest(const common::Json& doc);

/// static_kernel_ followed by [A-Za-z0-9_], at most 128 characters.
bool is_package_name(std::string_view name);

/// The name of a build folder's link to its newest package, which moves to each new one.
inline constexpr std::string_view kLatestPackageLink = "static_kernel.run";

/// A delta's base is a package that stays what it is: throws common::Error for the link to a
/// build's newest package (the delta would take its own place, and its base's).
void refuse_moving_base(const std::filesystem::path& base);

/// The characters of opbase's simplified key form: [A-Za-z0-9_/=,()[]], at most 64 KiB.
bool is_simplified_key(std::string_view key);

/// The operator library (the ai_core folder) of an install path:
/// <install_path>/opp/static_kernel/ai_core. The installer writes it, the runtime reads it.
std::filesystem::path library_root(const std::filesystem::path& install_path);

/// A SoC's name: [A-Za-z0-9_], at most 160 characters, and not a folder the operator library keeps
/// for itself (bin, config, payoff), since a SoC's kernels install into <ai_core>/<soc>.
bool is_soc_name(std::string_view soc);
extern const char* const kSocNameExpected;

/// A SoC version as -v/--soc takes it, before the SoC table maps it to its SoC name
/// (Ascend910B4-1 to ascend910b): [A-Za-z0-9_-], 1 to 160 characters. Throws common::Error saying
/// what is expected.
void check_soc_version(std::string_view version);

/// A relative path of 1-8 components of 1-255 characters of [A-Za-z0-9_.-], none of them "." or "..".
bool is_safe_relative_path(std::string_view path);

}  // namespace skb::packager
