#include "packager/install/index.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include "common/json_input.h"

namespace skb::installer {
using common::Json;

std::string config_ini(const std::vector<std::string>& newest_first) {
  std::string line = "load_priority=";
  for (std::size_t i = 0; i < newest_first.size(); ++i) line += (i ? "," : "") + newest_first[i];
  return "[static_kernel]\n" + line + "\n";
}

std::vector<std::string> parse_config_ini(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = text.find("load_priority=");
  if (at == std::string::npos) return out;
  std::size_t end = text.find('\n', at);
  std::string list = text.substr(at + 14, end == std::string::npos ? std::string::npos : end - at - 14);
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string name = list.substr(start, comma - start);
    if (packager::is_package_name(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    start = comma + 1;
  }
  return out;
}

std::map<std::string, std::string> merged_indexes(const std::vector<packager::Manifest>& oldest_first,
                                                  const std::vector<std::string>& known_socs) {
  // soc → skb key → (package, kernel): later packages overwrite earlier ones.
  using Entry = std::pair<const packager::Manifest*, const packager::PackageKernel*>;
  std::map<std::string, std::map<std::string, Entry>> by_soc;
  // soc → opbase key → skb key of the newest kernel with that key: opbase takes the first entry
  // it reads for a key, so only that one goes into staticList. A kernel whose call the two
  // engines key differently has one entry per key, each with the same binPath: the composite
  // engine reads simplifiedKey as a string (OpKernel::AppendStaticBin) and adds a binPath it
  // has already added once (OpKernel::HashAndInsert), so a list there would stop its reading.
  std::map<std::string, std::map<std::string, std::string>> opbase_owner;
  for (const auto& soc : known_socs) by_soc[soc];
  for (const auto& m : oldest_first)
    for (const auto& k : m.kernels) {
      by_soc[m.soc][k.key] = {&m, &k};
      for (const auto& sk : k.simplified_keys) opbase_owner[m.soc][sk] = k.key;
    }
  // Each package's file hashes by path, so that finding a kernel's hash is not a scan.
  std::map<const packager::Manifest*, std::unordered_map<std::string_view, std::string_view>> sha_of;
  for (const auto& m : oldest_first) {
    auto& shas = sha_of[&m];
    for (const auto& f : m.files) shas.emplace(f.path, f.sha256);
  }
  std::map<std::string, std::string> out;
  for (const auto& [soc, kernels] : by_soc) {
    Json index = Json::object();
    // Each op entry's valueDependIndex: the union of its kernels' value-depend input positions, in
    // order (the composite engine keys an input's data only at the positions it lists:
    // OpKernel::AppendStaticBin).
    std::map<std::string, std::set<std::int64_t>> value_depend;
    for (const auto& [key, entry] : kernels) {
      const auto& [m, k] = entry;
      const auto& shas = sha_of[m];
      auto found = shas.find(k->bin);
      Json e = {{"binPath", m->package + "/" + k->bin},
                {"coreType", k->core_type},
                {"binDesc", {{"blockDim", k->block_dim}, {"kernelName", k->entry}, {"workspace", k->workspace}}},
                {"skbKey", key},
                {"kernelName", k->name},
                {"package", m->package},
                {"sha256", found == shas.end() ? std::string() : std::string(found->second)},
                {"variant", k->variant}};
      if (k->launch.on_device()) e["launch"] = launch_json(k->launch);
      Json& op = index[k->op_type];
      if (op.is_null())
        op = {{"dynamicRankSupport", true},
              {"simplifiedKeyMode", 0},
              {"staticList", Json::array()},
              {kSkbListField, Json::array()}};
      value_depend[k->op_type].insert(k->value_depend_index.begin(), k->value_depend_index.end());
      const auto& owners = opbase_owner[soc];
      bool listed = false;
      for (const auto& sk : k->simplified_keys) {
        auto owner = owners.find(sk);
        if (owner == owners.end() || owner->second != key) continue;
        Json keyed = e;
        keyed["simplifiedKey"] = sk;
        op["staticList"].push_back(std::move(keyed));
        listed = true;
      }
      if (!listed) op[kSkbListField].push_back(std::move(e));
    }
    for (const auto& [op, positions] : value_depend)
      if (!positions.empty())
        index[op]["valueDependIndex"] = std::vector<std::int64_t>(positions.begin(), positions.end());
    out[soc] = index.dump(1) + "\n";
  }
  return out;
}

}  // namespace skb::installer
