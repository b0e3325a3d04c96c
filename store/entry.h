#pragma once
#include <optional>
#include <stdexcept>
#include <string>

namespace skb::store {

/// The files of one kernel, as one store entry holds them: its build record, its binary and,
/// when the toolchain writes one, the compiler's sidecar.
struct EntryFiles {
  std::string record;
  std::string binary;
  std::optional<std::string> sidecar;
  unsigned binary_mode = 0644;  // as the compiler wrote it (0755 for a shared object), at most 0755
  /// What named the kernel, for `skb explain`: {"signature": its canonical signature, "factors":
  /// the key.json of the build that made it}. Never used to build or install anything.
  std::optional<std::string> key = std::nullopt;
  /// The signature of the builder that stored it (trust/signature.h) over entry_message(): checked
  /// before anything else of the entry is used.
  std::optional<std::string> signature = std::nullopt;
};

/// An entry that is not a whole, well-formed entry (truncated, damaged, a member missing,
/// twice or unknown).
class BadEntry : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One object of the files: a zstd-compressed tar of build.json, kernel, sidecar.json, key.json and signature, with
/// fixed owners and times, so the same files make the same bytes.
std::string pack_entry(const EntryFiles& files);

/// The files of an object from pack_entry; throws BadEntry.
EntryFiles unpack_entry(const std::string& object);

}  // namespace skb::store
