#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "common/error.h"
#include "trust/signature.h"
#include "trust/trusted_keys.h"

namespace skb::installer {

/// A package refused by the trust policy: unsigned, or not signed by a trusted key.
class UntrustedError : public common::Error {
 public:
  using common::Error::Error;
};

/// The trust file an administrator places in an operator library: <static_kernel>/trusted-keys,
/// beside ai_core/ (which goes with the last package; the policy stays).
std::filesystem::path library_policy_file(const std::filesystem::path& library_root);

/// The keys a package must be signed by to install here, when a policy applies: those of the
/// user's (the --trusted-keys file, else SKB_TRUSTED_KEYS) that the library's policy file, when
/// it exists, trusts too: a user's set narrows the administrator's, never widens it. nullopt: no
/// policy. Throws common::Error for a file that cannot be read or parsed.
std::optional<trust::TrustedKeys> trust_policy(const std::string& option, const std::filesystem::path& library_root);

/// The signature of a verified .run (verify_run_file first): the signature_size bytes after its
/// header's hash line, checked over the header against keys (an empty set when no policy
/// applies: then only the signer's name is known). Throws VerifyError when it cannot be read.
trust::SignatureCheck check_package_signature(int fd, std::uint64_t header_len, std::uint64_t signature_size,
                                              const trust::TrustedKeys& keys);

/// One line for people: what signed the package and whether the policy trusts it.
std::string describe_signature(const trust::SignatureCheck& c, const std::optional<trust::TrustedKeys>& policy);

}  // namespace skb::installer
