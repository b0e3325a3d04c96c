#include "packager/install/trust_policy.h"

#include <fmt/format.h>
#include <cstdlib>

#include "common/fs.h"
#include "packager/format/run_header.h"
#include "packager/install/payload_reader.h"

namespace skb::installer {
namespace fs = std::filesystem;

fs::path library_policy_file(const fs::path& library_root) { return library_root.parent_path() / "trusted-keys"; }

std::optional<trust::TrustedKeys> trust_policy(const std::string& option, const fs::path& library_root) {
  std::optional<trust::TrustedKeys> user;
  if (!option.empty())
    user = trust::read_trusted_keys(option);
  else if (const char* env = std::getenv("SKB_TRUSTED_KEYS"); env && *env)
    user = trust::read_trusted_keys(env);
  fs::path file = library_policy_file(library_root);
  // A policy file that cannot be read is an error, never "no policy" (which installs unsigned packages).
  std::optional<trust::TrustedKeys> library;
  if (common::path_exists(file)) library = trust::read_trusted_keys(file);
  if (!user || !library) return user ? user : library;
  // The administrator's policy holds whatever the user trusts: only the keys both trust.
  trust::TrustedKeys both;
  both.source = fmt::format("{} (within the library's {})", user->source, library->source);
  for (const trust::PublicKey& k : user->keys)
    if (const trust::PublicKey* theirs = library->find(k.name); theirs && *theirs == k) both.add(k);
  return both;
}

trust::SignatureCheck check_package_signature(int fd, std::uint64_t header_len, std::uint64_t signature_size,
                                              const trust::TrustedKeys& keys) {
  if (signature_size == 0) return trust::check_signature(keys, "", std::nullopt);
  constexpr std::uint64_t kMaxSignature = 256;
  std::string header(header_len, '\0'), signature(signature_size, '\0');
  if (signature_size > kMaxSignature || !pread_full(fd, header.data(), header.size(), 0) ||
      !pread_full(fd, signature.data(), signature.size(), header_len + packager::kStubHashLine))
    throw VerifyError("the package's signature cannot be read: the file is damaged");
  return trust::check_signature(keys, packager::package_signed_message(header), signature);
}

std::string describe_signature(const trust::SignatureCheck& c, const std::optional<trust::TrustedKeys>& policy) {
  using trust::Verdict;
  if (!policy) {
    if (c.verdict == Verdict::kUnsigned) return "unsigned (no trust policy applies here)";
    if (c.verdict == Verdict::kMalformed) return "a malformed signature (no trust policy applies here)";
    return fmt::format("signed by {} (not checked: no trust policy applies here)", c.key);
  }
  switch (c.verdict) {
    case Verdict::kTrusted:
      return fmt::format("signed by {}, trusted by {}", c.key, policy->source);
    case Verdict::kUnknownKey:
      return fmt::format("signed by {}, a key that {} does not trust", c.key, policy->source);
    case Verdict::kBadSignature:
      // A signature names its key, not which key of that name: a package changed after signing
      // and one signed by another key named alike look the same here.
      return fmt::format(
          "signed by {}, but the signature does not match the package under the key {} trusts by "
          "that name: it was changed after signing, or signed by another key named {}",
          c.key, policy->source, c.key);
    case Verdict::kMalformed:
      return "a malformed signature";
    case Verdict::kUnsigned:
      break;
  }
  return fmt::format("unsigned, and {} requires a signature by one of its keys", policy->source);
}

}  // namespace skb::installer
