#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "packager/payload_writer.h"

namespace skb::packager {

struct PackageOptions {
  std::filesystem::path build_dir;
  std::filesystem::path output_dir;    // empty: build_dir
  std::filesystem::path installer;     // the installer gzip-compressed; empty: next to this program
  std::filesystem::path records_from;  // optional: the kernel records the build graph expects
  std::filesystem::path stamp;         // optional: write a JSON note of the result here; then
                                       // also link <stamp's folder>/static_kernel.run to the .run,
                                       // and remove the package the previous stamp names
  std::string name;                    // the package's name; empty: package_name(epoch, digest)
  Compression compression = Compression::kGzip;
  bool force = false;
  std::filesystem::path sign_key;  // optional: the private key that signs the package
  std::filesystem::path base;      // optional: a .run this package is a delta on
  bool self_contained = false;     // a delta carries its installer even when its base has the same
  std::filesystem::path payoff;    // optional: skb bench's evidence of the target's machine class;
                                   // the static kernels it found slower are left out
};

struct PackageResult {
  std::filesystem::path run;
  std::string package;
  std::string sha256;
  std::uint64_t size = 0;
  std::size_t kernels = 0;
  bool unchanged = false;  // an identical package of that name was already there
  std::string signer;      // the signing key's name; empty: unsigned
};

/// The time packages are named and dated with: SOURCE_DATE_EPOCH when set (an integer of
/// seconds), else now. Throws Error when SOURCE_DATE_EPOCH is not a valid integer.
std::int64_t package_epoch();

/// static_kernel_<YYYYMMDDHHMMSS>_<digest> (UTC) of an epoch and the first 8 hex digits of the
/// package's content digest: two packages with other contents never share a name, even when
/// made in the same second, and the same kernels packed at the same time get the same name.
std::string package_name(std::int64_t epoch, const std::string& digest);

/// Verifies the kernels of a build and writes static_kernel_<datetime>.run into the output
/// folder: never over a different file of the same name unless force; published by rename.
PackageResult make_package(const PackageOptions& options);

/// Where the static installer for a payload of that compression is, gzip-compressed as every .run
/// carries it, next to the running program (build tree or install prefix): skb-install.gz reads
/// gzip payloads only, skb-install-all.gz every compression.
std::filesystem::path default_installer(Compression payload);

}  // namespace skb::packager
