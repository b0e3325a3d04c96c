#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "packager/format/manifest.h"
#include "packager/install/index_pieces.h"
#include "packager/install/rope.h"

namespace skb::installer {

/// config.ini: the install order, newest first, as `load_priority=<pkg>,<older pkg>,...`.
std::string config_ini(const std::vector<std::string>& newest_first);

/// The packages named by a config.ini's load_priority, newest first; unknown text is ignored.
std::vector<std::string> parse_config_ini(const std::string& text);

/// The list of an op's index entry that opbase does not read: skb's kernels that have no key of
/// their own in opbase's form (dynamic kernels, records the form cannot say, and kernels whose
/// opbase key a newer package's kernel took).
inline constexpr const char* kSkbListField = "skbList";

/// binary_info_config.json of each soc, in opbase's schema (section 4 of its format): every
/// entry has an integer coreType, binDesc{blockDim, kernelName, workspace}, binPath relative to
/// ai_core/, and, in staticList, its simplifiedKey (a kernel whose call opbase's two engines key
/// differently has one staticList entry per key, with the same binPath); skb's own fields (skbKey, kernelName,
/// package, sha256, variant) stand beside them. Merged over the packages in install order (oldest
/// first): for the same kernel key the package installed last wins. Socs that no package
/// provides any more get an empty index. Keys: soc; values: the file's text.
std::map<std::string, std::string> merged_indexes(const std::vector<const PackagePieces*>& oldest_first,
                                                  const std::vector<std::string>& known_socs);

/// One soc's merged index with `fresh` installed after the packages that `old_index` merges (the
/// text merged_indexes wrote of them, or "{}\n" for none): the same text as merged_indexes makes of
/// them all, made of the old index's lines and fresh's pieces, without the other packages' pieces.
/// Fresh's kernels take the entries of their skb keys and the staticList entries of their opbase
/// keys; an older kernel left without a staticList entry goes to skbList. nullopt when it cannot
/// tell: a text that is not as merged_indexes writes it, or an op entry whose valueDependIndex may
/// lose the positions of a kernel that fresh replaces (only that kernel's pieces say which).
std::optional<std::string> splice_index(std::string_view old_index, const PackagePieces& fresh, const std::string& soc);

/// The same, as parts (rope.h): the old index's lines that stay are runs of its bytes (the rope
/// keeps them), written out without another copy of the whole index.
std::optional<Rope> splice_index_parts(std::string old_index, const PackagePieces& fresh, const std::string& soc);

/// The binPath (relative to ai_core/) of each of `keys` that an index merged_indexes wrote lists,
/// by skb key; a key it does not list has none, and a line that is not as skb writes it is passed
/// over. What a new package's files that the library holds already are linked to.
std::unordered_map<std::string, std::string> listed_bins(std::string_view index,
                                                         const std::unordered_set<std::string_view>& keys);

/// The same, of manifests.
std::map<std::string, std::string> merged_indexes(const std::vector<packager::Manifest>& oldest_first,
                                                  const std::vector<std::string>& known_socs);

}  // namespace skb::installer
