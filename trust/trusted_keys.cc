#include "trust/trusted_keys.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "common/error.h"
#include "common/fs.h"

namespace skb::trust {
using common::Error;

const PublicKey* TrustedKeys::find(std::string_view name) const {
  for (const auto& k : keys)
    if (k.name == name) return &k;
  return nullptr;
}

void TrustedKeys::add(const PublicKey& key) {
  if (const PublicKey* known = find(key.name)) {
    if (known->bytes == key.bytes) return;
    throw Error(fmt::format("two different keys are named '{}'", key.name));
  }
  keys.push_back(key);
}

TrustedKeys parse_trusted_keys(const std::string& source, std::string_view text) {
  TrustedKeys set;
  set.source = source;
  std::size_t line_no = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    line = line.substr(0, line.find('#'));  // a comment, after a key too: no name or base64 holds '#'
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty()) continue;
    try {
      set.add(parse_public_key(line));
    } catch (const Error& e) {
      throw Error(fmt::format("{}:{}: {}", source, line_no, e.what()));
    }
  }
  return set;
}

namespace {

// A trust file decides which code runs: one that others may write, or replace in its folder, is
// refused, as ssh refuses such an authorized_keys (a folder with the sticky bit, /tmp's, is fine;
// so is a group's write, which a umask of 002 gives every file of a user's private group). A
// symlink's target and its folder are what count.
void refuse_if_others_may_change(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(file, ec);
  if (ec) throw Error(fmt::format("trusted keys: {}: {}", file.string(), ec.message()));
  struct stat st {};
  if (::stat(real.c_str(), &st) == 0 && (st.st_mode & S_IWOTH) != 0)
    throw Error(fmt::format("{}: permissions {:04o} let others change which keys are trusted (chmod o-w {})",
                            real.string(), st.st_mode & 07777, real.string()));
  std::filesystem::path folder = real.parent_path();
  if (::stat(folder.c_str(), &st) == 0 && (st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0)
    throw Error(
        fmt::format("{}: anyone may replace the trust file {} in this folder (permissions {:04o}; chmod o-w {})",
                    folder.string(), real.string(), st.st_mode & 07777, folder.string()));
}

}  // namespace

TrustedKeys read_trusted_keys(const std::filesystem::path& file) {
  std::string text;
  try {
    text = common::read_file(file, 1 << 20);
  } catch (const Error& e) {
    throw Error(fmt::format("trusted keys: {}", e.what()));
  }
  refuse_if_others_may_change(file);
  return parse_trusted_keys(file.string(), text);
}

}  // namespace skb::trust
