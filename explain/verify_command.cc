#include "explain/verify_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "common/error.h"
#include "packager/install/cli.h"
#include "packager/install/payload_reader.h"
#include "packager/install/trust_policy.h"
#include "trust/trusted_keys.h"

namespace skb::explain {

const char* const kVerifyHelp = R"(
A .run checks itself when it runs, but a package changed on its way could carry a changed
checker. This command checks a package with this skb's own code and runs nothing of it: the
header's SHA-256, the signature over the header (which pins the installer's and the payload's
SHA-256, whose manifest pins every file's), the installer's and the payload's bytes, and every
file against the manifest.

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

namespace {

// The value of `name=<digits or hex>` at the start of a line of the header.
std::string header_value(std::string_view header, const std::string& name) {
  std::string key = "\n" + name + "=";
  std::size_t at = header.find(key);
  if (at == std::string_view::npos) throw VerifyError(fmt::format("not a skb package: no {} in its header", name));
  std::size_t start = at + key.size(), end = header.find('\n', start);
  return std::string(header.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

std::uint64_t header_number(std::string_view header, const std::string& name) {
  std::string text = header_value(header, name);
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw VerifyError(fmt::format("not a skb package: {}={} is not a number", name, text));
  return n;
}

}  // namespace

int run_verify_command(const VerifyCommand& v) {
  int fd = ::open(v.run_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw common::Error(fmt::format("{}: cannot open", v.run_file));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::optional<trust::TrustedKeys> policy;
  if (!v.trusted_keys.empty()) policy = trust::read_trusted_keys(v.trusted_keys);
  try {
    std::string head(1 << 20, '\0');
    ssize_t n = ::pread(fd, head.data(), head.size(), 0);
    head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    std::uint64_t header_len = header_number(head, "skb_header_len");
    if (header_len > head.size()) throw VerifyError("the header is truncated");
    std::string_view header = std::string_view(head).substr(0, header_len);
    std::uint64_t total = header_number(header, "skb_payload_offset") + header_number(header, "skb_payload_size");
    installer::verify_run_file(fd, header_len, total);  // from here, the header's values are its own
    installer::verify_payload_hash(PayloadSource{fd, header_number(header, "skb_installer_offset"),
                                                 header_number(header, "skb_installer_size"),
                                                 header_value(header, "skb_installer_sha256"), "installer"});
    trust::SignatureCheck signature = installer::check_package_signature(
        fd, header_len, header_number(header, "skb_signature_size"), policy ? *policy : trust::TrustedKeys{});
    std::string signed_by = installer::describe_signature(signature, policy);
    std::string package = header_value(header, "skb_package");
    if (policy && !signature.trusted()) {
      std::fprintf(stderr, "skb: error: %s is %s\n", package.c_str(), signed_by.c_str());
      return installer::kExitUntrusted;
    }
    PayloadSource payload{fd, header_number(header, "skb_payload_offset"), header_number(header, "skb_payload_size"),
                          header_value(header, "skb_payload_sha256"), package};
    installer::verify_payload_hash(payload);
    packager::Manifest m = installer::read_payload(payload, {});
    std::printf("%s: OK (header, installer, payload and %zu files verified; %s)\n", package.c_str(), m.files.size(),
                signed_by.c_str());
    return 0;
  } catch (const VerifyError& e) {
    std::fprintf(stderr, "skb: error: %s: %s\n", v.run_file.c_str(), e.what());
    return installer::kExitCorrupt;
  }
}

}  // namespace skb::explain
