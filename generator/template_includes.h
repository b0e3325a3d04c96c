#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace skb::generator {

/// A file of the templates' tree that a template or header includes.
struct Include {
  std::filesystem::path by;    // the file whose `#include "..."` line names it
  std::filesystem::path file;  // where it was found
};

/// The files that `sources` include with `#include "name"`, and those include in turn, that lie
/// under `root`: each name is looked for beside the file that includes it, then in each of
/// include_dirs, as a compiler does. A name found nowhere under root (the compiler's own headers,
/// a vendor's) is not one of the tree's. Reads only files under root; ones it cannot read count
/// as including nothing (the compiler will say more).
std::vector<Include> tree_includes(const std::vector<std::filesystem::path>& sources,
                                   const std::vector<std::filesystem::path>& include_dirs,
                                   const std::filesystem::path& root);

/// The folders a command's words add to the include path (-I DIR, -IDIR, -iquote DIR, -iquoteDIR).
std::vector<std::filesystem::path> include_dirs_of(const std::vector<std::string>& words);

}  // namespace skb::generator
