#pragma once
#include <map>
#include <string>
#include <vector>

#include "packager/manifest.h"

namespace skb::installer {

/// config.ini: the install order, newest first, as `load_priority=<pkg>,<older pkg>,...`.
std::string config_ini(const std::vector<std::string>& newest_first);

/// The packages named by a config.ini's load_priority, newest first; unknown text is ignored.
std::vector<std::string> parse_config_ini(const std::string& text);

/// binary_info_config.json of each soc, merged over the packages in install order (oldest
/// first): for the same kernel key the package installed last wins. Socs that no package
/// provides any more get an empty index. Keys: soc; values: the file's text.
std::map<std::string, std::string> merged_indexes(const std::vector<packager::Manifest>& oldest_first,
                                                  const std::vector<std::string>& known_socs);

}  // namespace skb::installer
