#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace skb::store {

/// The user's private local kernel store, on unless turned off: where it is, its cap, and where
/// each of them came from (for `skb cache config` and warnings). Precedence, first that applies:
/// the command line, the environment (SKB_CACHE_DIR, SKB_CACHE_MAX_SIZE), the store folder's
/// skb.conf (max_size only), the user's skb.conf ($XDG_CONFIG_HOME/skb or ~/.config/skb), the
/// default ($XDG_CACHE_HOME/skb, else ~/.cache/skb; 5 GiB).
struct LocalConfig {
  std::filesystem::path dir;  // empty: no local store
  std::uint64_t max_size = 0;
  std::string dir_from, max_size_from;  // "--cache-dir", "SKB_CACHE_DIR", a skb.conf path, "default"
};

/// What the command line said of the local store.
struct LocalFlags {
  std::optional<std::string> dir;         // --cache-dir DIR ("off": none)
  std::optional<std::uint64_t> max_size;  // --cache-dir-max-size
  bool off = false;                       // --no-cache
};

inline constexpr std::uint64_t kDefaultLocalMaxSize = std::uint64_t(5) << 30;
inline constexpr const char* kConfFile = "skb.conf";

/// Resolves the local store's settings; throws common::Error naming the file, line and key of a
/// bad skb.conf or the variable of a bad value.
LocalConfig resolve_local(const LocalFlags& flags);

/// Bytes of a size such as 5G, 500M, 64K or 1048576 (binary units, as ccache); nullopt when it
/// is not one.
std::optional<std::uint64_t> parse_size(const std::string& text);

/// Makes the local store's folder (0700 for its owner) and checks that it is private: a folder,
/// owned by this user, not writable by group or others. Returns why it must not be used, or "".
std::string claim_private_dir(const std::filesystem::path& dir);

/// claim_private_dir's checks of a folder that is there, made nothing: why it must not be used, or "".
std::string private_dir_problem(const std::filesystem::path& dir);

}  // namespace skb::store
