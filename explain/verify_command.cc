#include "explain/verify_command.h"

#include <fmt/format.h>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "common/error.h"
#include "common/sha256.h"
#include "packager/format/gzip_bytes.h"
#include "packager/format/payoff_evidence.h"
#include "packager/install/cli.h"
#include "packager/install/payload_reader.h"
#include "packager/install/run_file.h"
#include "packager/install/trust_policy.h"
#include "trust/blake2b.h"
#include "trust/trusted_keys.h"

namespace skb::explain {

const char* const kVerifyHelp = R"(
A .run checks itself when it runs, but a package changed on its way could carry a changed
checker. This command checks a package with this skb's own code and runs nothing of it: the
header's SHA-256, the signature over the header (which pins the installer's and the payload's
SHA-256, whose manifest pins every file's), the installer's and the payload's bytes (the
installer also unpacked, against the hashes the package checks a library's copy of it by), and
every file against the manifest.

The trust policy is --trusted-keys FILE, else SKB_TRUSTED_KEYS; without one, the package is
checked whole and its signer named, not trusted.

Exit status: 0 verified (and signed by a trusted key, under a policy), 1 error, 2 bad command
line, 3 the package is damaged or altered, 4 the policy refuses it (unsigned, another key, or
changed after signing).

Example:
  skb verify --trusted-keys ci.pub static_kernel_20261125101753_99b3745a.run && sh static_kernel_….run
)";
using installer::PayloadSource;
using installer::VerifyError;

void check_unpacked_installer(const installer::RunFile& run) {
  if (run.installer.size == 0) return;
  constexpr std::uint64_t kMaxInstaller = std::uint64_t{256} << 20;
  if (run.installer.size > kMaxInstaller)
    throw VerifyError(fmt::format("the installer's {} bytes are more than an installer has", run.installer.size));
  std::string gz(static_cast<std::size_t>(run.installer.size), '\0');
  if (!installer::pread_full(run.fd(), gz.data(), gz.size(), run.installer.offset))
    throw VerifyError("the installer is truncated");
  std::optional<std::string> bytes = packager::gunzip_bytes(gz, std::size_t{1} << 30);
  if (!bytes) throw VerifyError("the installer is not one whole gzip member");
  if (!run.installer_unpacked_sha256.empty() && common::sha256_hex(*bytes) != run.installer_unpacked_sha256)
    throw VerifyError("the installer unpacks to other bytes than the SHA-256 its header gives of them");
  if (!run.installer_unpacked_b2.empty() && trust::blake2b512_hex(*bytes) != run.installer_unpacked_b2)
    throw VerifyError("the installer unpacks to other bytes than the BLAKE2b-512 its header gives of them");
}

int run_verify_command(const VerifyCommand& v) {
  std::optional<trust::TrustedKeys> policy;
  if (!v.trusted_keys.empty()) policy = trust::read_trusted_keys(v.trusted_keys);
  try {
    installer::RunFile run(v.run_file);
    installer::verify_payload_hash(run.installer);
    check_unpacked_installer(run);
    trust::SignatureCheck signature = installer::check_package_signature(run.fd(), run.header_len, run.signature_size,
                                                                         policy ? *policy : trust::TrustedKeys{});
    std::string signed_by = installer::describe_signature(signature, policy);
    if (policy && !signature.trusted()) {
      std::fprintf(stderr, "skb: error: %s is %s\n", run.package.c_str(), signed_by.c_str());
      return installer::kExitUntrusted;
    }
    installer::verify_payload_hash(run.payload);
    packager::Manifest m = installer::read_payload(run.payload, {});
    const std::size_t from_base = m.files_from_base();
    std::string delta =
        m.base.empty() ? "" : fmt::format("; a delta on {}: {} of its files come from the base", m.base, from_base);
    if (run.installer.size == 0)
      delta += fmt::format("; it carries no installer: it runs its base's (SHA-256 {}) from the library",
                           run.installer_unpacked_sha256);
    std::printf("%s: OK (header, %spayload and %zu files verified; %s%s)\n", run.package.c_str(),
                run.installer.size ? "installer, " : "", m.files.size() - from_base, signed_by.c_str(), delta.c_str());
    // skb-package --payoff: the payoff measured on the target, and the kernels it left out.
    if (!m.measured_on.empty()) std::printf("  payoff %s\n", m.payoff_summary().c_str());
    for (const auto& k : m.left_out) std::printf("  left out %s: %s\n", k.name.c_str(), k.reason.c_str());
    return 0;
  } catch (const VerifyError& e) {
    std::fprintf(stderr, "skb: error: %s: %s\n", v.run_file.c_str(), e.what());
    return installer::kExitCorrupt;
  }
}

}  // namespace skb::explain
