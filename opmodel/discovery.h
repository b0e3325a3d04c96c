#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace skb::opmodel {

/// What a scan of the -p folders found: the op-statistics files to read, and every folder
/// whose listing decided that (the inputs of build.ninja's regeneration edge).
struct Discovery {
  std::vector<std::string> files;              // sorted, absolute (strings: a dump has a million)
  std::vector<std::filesystem::path> folders;  // sorted, absolute
  /// The `.json` entries of record folders that are no file (a symlink to nothing or in a loop, a
  /// FIFO, a device): never read (a FIFO would block), said as rejected. Sorted, absolute.
  std::vector<std::string> not_files;
  /// Records of a process folder named in its <pid>_opcompile_blacklist/: never read. Sorted.
  std::vector<std::string> left_out;
};

/// The rule, in the order it is tried for each -p DIR:
///  1. DIR is a process folder when it holds `<pid>_opcompile`, `<pid>_opcompile_selected`,
///     `<pid>_opcompile_gathered` or `<pid>_debug`: the JSON files of the `_opcompile*` folders
///     are read, or those of `_debug` when there is no `_opcompile*` folder, less those whose
///     names are in `<pid>_opcompile_blacklist` (Discovery::left_out).
///  2. DIR is a dump root when some sub-folder is a process folder (`ts..._pid..._outputs` or
///     `<timestamp>_<pid>_outputs`): rule 1 for each of them.
///  3. Otherwise DIR is a plain folder: its `*.json` files are read (not recursively).
/// Throws Error when DIR does not exist or is not a folder.
Discovery discover(const std::vector<std::filesystem::path>& dirs);

/// The rule above in words, for --help.
extern const char* const kDiscoveryHelp;

}  // namespace skb::opmodel
