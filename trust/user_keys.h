#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "trust/key.h"
#include "trust/trusted_keys.h"

namespace skb::trust {

/// The user's skb configuration folder: $XDG_CONFIG_HOME/skb, else ~/.config/skb.
std::filesystem::path config_dir();

/// The builder's own signing key, used when none is given: config_dir()/signing-key.
std::filesystem::path own_key_file();

/// The user's own trust file, read beside the own key when no trust file is given:
/// config_dir()/trusted-keys (optional).
std::filesystem::path own_trust_file();

/// The own key, made on first use: config_dir() created 0700, the key 0600, named
/// <user>@<host> (a name only: nothing of a kernel's identity). Safe when many processes make
/// it at once: one key wins, all of them use it. Throws common::Error.
SigningKey own_signing_key();

/// What a reader trusts when it was given no trust file: its own key (unless with_own_key is
/// false), and the keys of own_trust_file() when there is one. Throws common::Error.
TrustedKeys own_trusted_keys(bool with_own_key = true);

}  // namespace skb::trust
