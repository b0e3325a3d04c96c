#pragma once
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skb::common {

/// What a read accepts: any file (a pipe, /proc), or a regular file only (a library's files: a
/// FIFO there, which would block a reader for ever, is refused without being waited on).
enum class Accept { kAnyFile, kRegularFile };

/// The whole file as bytes; throws IoError naming the file and the system error when it is there
/// and cannot be opened or read (or, with kRegularFile, is no regular file), Error when it is
/// missing or larger than max_size.
std::string read_file(const std::filesystem::path& path, std::size_t max_size = std::size_t(-1),
                      Accept accept = Accept::kAnyFile);

/// read_file, but nothing (and no exception) when the file does not exist (ENOENT: any other
/// failure is an IoError): for files whose
/// absence is the normal case. A static program's first exception sorts the unwind tables of
/// the whole binary, which costs an installer a millisecond or two.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path,
                                               std::size_t max_size = std::size_t(-1),
                                               Accept accept = Accept::kAnyFile);

/// How far write_atomic goes: kDurable also survives a power loss (fsync of the file before the
/// rename and of the folder after); kAtomic only guarantees that no process, even one killed
/// midway, leaves a part (for build outputs that can be made again, as ninja treats its logs).
enum class Sync { kDurable, kAtomic };

/// Replaces path with content so that a reader sees the old or the new file, never a part:
/// write a temp file beside it, fsync, rename, fsync the folder. Throws Error on failure and
/// leaves no temp file behind.
void write_atomic(const std::filesystem::path& path, std::string_view content, unsigned mode = 0644,
                  Sync sync = Sync::kDurable);
/// The same, of a text in parts (written with writev, never joined in memory).
void write_atomic(const std::filesystem::path& path, const std::vector<std::string_view>& content, unsigned mode = 0644,
                  Sync sync = Sync::kDurable);

/// Writes a file the user named (an --output): write_atomic when it is a regular file or not
/// there (through a symlink, to its target); written through, as a shell's `>` would, when it is
/// something else (a device such as /dev/stdout, a FIFO), never replaced by a regular file.
void write_output(const std::filesystem::path& path, std::string_view content);

/// write_atomic in two steps, for a file whose next bytes are known before they may replace the
/// old ones: the constructor writes the temp file beside path (the slow part, which may run on
/// another thread while other work goes on); commit() renames it into place. With kDurable the
/// constructor fsyncs the temp file; with kAtomic that is the caller's before commit(): sync(),
/// or a syncfs of its filesystem, one journal commit for many files. Making the rename durable
/// is the caller's too (sync_folder: once for the files of a folder). A write that is not
/// committed removes its temp file. Throws Error as write_atomic does.
class PreparedWrite {
 public:
  PreparedWrite(std::filesystem::path path, std::string_view content, unsigned mode = 0644, Sync sync = Sync::kDurable);
  /// The same, of a text in parts (written with writev, never joined in memory).
  PreparedWrite(std::filesystem::path path, const std::vector<std::string_view>& parts, unsigned mode = 0644,
                Sync sync = Sync::kDurable);
  PreparedWrite(PreparedWrite&& other) noexcept;
  PreparedWrite& operator=(PreparedWrite&& other) noexcept;
  PreparedWrite(const PreparedWrite&) = delete;
  PreparedWrite& operator=(const PreparedWrite&) = delete;
  ~PreparedWrite();

  const std::filesystem::path& path() const { return path_; }
  /// fsync of the temp file, unless it lies on `synced` (the st_dev of a filesystem the caller
  /// has synced whole since the write). Throws IoError.
  void sync(std::optional<dev_t> synced = std::nullopt);
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path tmp_;  // empty once committed (or moved from)
};

/// A PreparedWrite of content, or nothing when path holds those very bytes already (what
/// write_if_changed leaves alone).
std::optional<PreparedWrite> prepare_if_changed(const std::filesystem::path& path, std::string_view content,
                                                unsigned mode = 0644, Sync sync = Sync::kDurable);

/// fsync of a folder: what makes the renames in it durable. Throws IoError.
void sync_folder(const std::filesystem::path& dir);

/// write_atomic only when the bytes differ from what is there; returns whether it wrote.
/// An unchanged file keeps its mtime (what ninja's restat relies on).
bool write_if_changed(const std::filesystem::path& path, std::string_view content, Sync sync = Sync::kDurable);

/// Creates a folder (mode 0755) when missing; throws Error when the path exists as anything but
/// a real folder, a symlink to one included (so that nothing is ever written through it).
void ensure_real_dir(const std::filesystem::path& dir);

/// ensure_real_dir's check without the mkdir: throws Error when something other than a real
/// folder is at dir (a symlink to one included); nothing there is no error.
void refuse_unless_real_dir(const std::filesystem::path& dir);

/// Whether something is at path (symlinks not followed): false only when nothing is (ENOENT);
/// throws IoError when it cannot be told (a file in place of a folder on the way included).
bool path_exists(const std::filesystem::path& path);

/// Whether path is a regular file (symlinks not followed); false when nothing is there; throws
/// IoError when it cannot be told.
bool is_file(const std::filesystem::path& path);

/// Whether a and b name one file (symlinks followed, by device and inode); false when either
/// cannot be reached.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

/// The names in a folder (not "." and ".."), in no order; none when the folder does not exist;
/// throws IoError when it cannot be listed, whole.
std::vector<std::string> list_dir(const std::filesystem::path& dir);

/// The names of the folders in dir (a symlink is not one), as list_dir: one read of dir, with a
/// stat only of an entry whose type the filesystem does not give.
std::vector<std::string> list_folders(const std::filesystem::path& dir);

/// Removes path and, if a folder, everything in it (symlinks not followed); nothing to do when it
/// does not exist; throws IoError naming what could not be removed.
void remove_tree(const std::filesystem::path& path);

/// Removes a file; false when there was none; throws IoError when it cannot be removed.
bool remove_file(const std::filesystem::path& path);

/// Absolute path of the running executable.
std::filesystem::path self_exe();

/// Whether `path`, a temp file with ".tmp.<pid>" in its name, is that of a process still running
/// (one of that number that started before the file was last written): another build's work in
/// progress, not a leftover of a killed one.
bool is_live_temp(const std::filesystem::path& path);

/// The value of an environment variable, "" when it is unset.
std::string env_or_empty(const char* name);

}  // namespace skb::common
