#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace skb::installer {

/// The library's files by content: ai_core/.by_sha256/<sha256>, a hard link to an installed file
/// with those bytes. A new package's file that the library already holds is found by its name,
/// one lookup a file whatever the number of packages, and linked to once its bytes are checked
/// (a name is where to look, never trusted). An install names its files before it publishes
/// them, and a removal drops the names only the store still links to before it is done, so the
/// names are those of the installed files, as exactly as the rest of the library; a killed run's
/// names are swept by the next one, with its other leftovers.
class FileStore {
 public:
  explicit FileStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

  static constexpr const char* kFolderName = ".by_sha256";

  const std::filesystem::path& dir() const { return dir_; }

  /// Whether the folder is there, a real folder (a library made before it had none: its
  /// packages' files are named once, from their index pieces).
  bool exists() const;

  /// The file named for sha256, when there is a regular file of that name.
  std::optional<std::filesystem::path> find(std::string_view sha256) const;

  /// Makes the folder, a real one (ensure_real_dir), for add().
  void make() const;

  /// Names `file` for sha256, in place of another file of that name. False when the filesystem
  /// cannot (no hard links there, or too many to one file): the file is then simply not found
  /// by a later install, which writes its own copy. Throws common::IoError on any other failure.
  bool add(const std::filesystem::path& file, std::string_view sha256);

  /// Removes the names whose file nothing else links to, and what a killed add() left. Throws
  /// common::IoError when it cannot.
  void sweep();

 private:
  std::filesystem::path dir_;
};

}  // namespace skb::installer
