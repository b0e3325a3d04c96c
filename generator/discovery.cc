#include "generator/discovery.h"

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "common/error.h"

namespace skb::generator {
namespace fs = std::filesystem;

const char* const kDiscoveryHelp =
    "Each -p DIR is read as follows:\n"
    "  - a process folder (it holds <pid>_opcompile, <pid>_opcompile_selected,\n"
    "    <pid>_opcompile_gathered or <pid>_debug): the *.json files of its _opcompile*\n"
    "    folders, or of <pid>_debug when it has no _opcompile* folder;\n"
    "  - a dump root (e.g. aclnn_static_shape_kernel_outputs/, holding process folders\n"
    "    named ts<time>_pid<pid>_outputs or <time>_<pid>_outputs): each process folder;\n"
    "  - any other folder: its own *.json files, not recursively.\n";

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<fs::directory_entry> list(const fs::path& dir) {
  std::vector<fs::directory_entry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(*it);
  if (ec) throw common::Error(fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  // One folder: its entries' paths differ only in their file names, so the strings order them
  // as their names would, without building a path per comparison.
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path().native() < b.path().native(); });
  return entries;
}

// "<pid>_<suffix>" for a suffix of the record folders.
enum class RecordFolder { kNone, kOpcompile, kDebug };
RecordFolder record_folder_kind(const std::string& name) {
  std::size_t us = name.find('_');
  if (us == std::string::npos || !all_digits(name.substr(0, us))) return RecordFolder::kNone;
  std::string suffix = name.substr(us + 1);
  if (suffix == "opcompile" || suffix == "opcompile_selected" || suffix == "opcompile_gathered")
    return RecordFolder::kOpcompile;
  if (suffix == "debug") return RecordFolder::kDebug;
  return RecordFolder::kNone;
}

bool looks_like_process_folder_name(const std::string& name) { return ends_with(name, "_outputs"); }

void add_json_files(const fs::path& dir, Discovery& out) {
  out.folders.push_back(dir);
  for (const auto& e : list(dir)) {
    std::error_code ec;
    const std::string& name = e.path().native();  // *.json, not a hidden ".json"
    if (ends_with(name, "/.json") || !ends_with(name, ".json")) continue;
    if (e.is_regular_file(ec)) out.files.push_back(e.path());
  }
}

// Returns false when dir is not a process folder.
bool scan_process_folder(const fs::path& dir, Discovery& out) {
  std::vector<fs::path> opcompile, debug;
  for (const auto& e : list(dir)) {
    std::error_code ec;
    if (!e.is_directory(ec)) continue;
    switch (record_folder_kind(e.path().filename().string())) {
      case RecordFolder::kOpcompile:
        opcompile.push_back(e.path());
        break;
      case RecordFolder::kDebug:
        debug.push_back(e.path());
        break;
      case RecordFolder::kNone:
        break;
    }
  }
  if (opcompile.empty() && debug.empty()) return false;
  out.folders.push_back(dir);
  for (const auto& d : opcompile.empty() ? debug : opcompile) add_json_files(d, out);
  return true;
}

}  // namespace

Discovery discover(const std::vector<fs::path>& dirs) {
  Discovery out;
  for (const fs::path& given : dirs) {
    std::error_code ec;
    fs::path dir = fs::absolute(given, ec).lexically_normal();
    if (!dir.empty() && dir.filename().empty()) dir = dir.parent_path();
    if (!fs::is_directory(dir, ec))
      throw common::Error(
          fmt::format("{}: not a folder (-p expects a dump root, a process folder or a "
                      "folder of JSON files)",
                      given.string()));
    if (scan_process_folder(dir, out)) continue;
    bool any_process = false;
    for (const auto& e : list(dir)) {
      if (!e.is_directory(ec) || !looks_like_process_folder_name(e.path().filename().string())) continue;
      any_process |= scan_process_folder(e.path(), out);
    }
    if (any_process) {
      out.folders.push_back(dir);
      continue;
    }
    add_json_files(dir, out);
  }
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  std::sort(out.folders.begin(), out.folders.end());
  out.folders.erase(std::unique(out.folders.begin(), out.folders.end()), out.folders.end());
  return out;
}

}  // namespace skb::generator
