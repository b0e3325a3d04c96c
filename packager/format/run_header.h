#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skb::packager {

/// The values a .run's header gives, one `skb_<name>=<value>` line each: where the installer
/// and the payload are (exact byte offsets) and what they hash to. The stub (packager/stub.h)
/// writes them and runs on them; the installer and skb verify read them back.
struct RunHeaderFields {
  std::string package;
  std::uint64_t header_len = 0;  // the header's bytes: the stub, without its hash line
  std::uint64_t installer_offset = 0;
  std::uint64_t installer_size = 0;           // the installer as the .run holds it: gzip-compressed
  std::string installer_sha256;               // of those bytes
  std::uint64_t installer_unpacked_size = 0;  // the installer's bytes once gzip has unpacked it
  std::string installer_unpacked_sha256;      // of those bytes: the library's copy runs when it matches
  std::string installer_unpacked_b2;  // their BLAKE2b-512, as b2sum prints it: the same, where coreutils has b2sum
  std::string base;                   // a delta's base package; empty for a whole package
  std::uint64_t payload_offset = 0;
  std::uint64_t payload_size = 0;
  std::string payload_sha256;
  std::uint64_t signature_size = 0;  // bytes of the signature line after the header's hash line; 0: unsigned
};

/// The fields' lines, in the order the stub has them, each ending with a newline.
std::string render_run_header_fields(const RunHeaderFields& f);

/// The fields a header gives, as skb reads them (the stub reads them as sh variables): those the
/// installer and skb verify run on must be there, a number must be digits only (VerifyError when
/// not); the others are empty or 0 when a package made before they existed lacks them.
RunHeaderFields parse_run_header(std::string_view header);

/// The value of `name=<digits or hex>` at the start of a line of the header; nothing when absent.
std::optional<std::string> run_header_field(std::string_view header, const std::string& name);

/// run_header_field, which must be there; throws VerifyError (verify_error.h).
std::string run_header_value(std::string_view header, const std::string& name);

/// run_header_value as a number; throws VerifyError when absent or not a number.
std::uint64_t run_header_number(std::string_view header, const std::string& name);

/// The line after the stub: the stub's SHA-256 in hex and a newline.
constexpr std::uint64_t kStubHashLine = 65;

/// What a package's signature signs: a label, then the header (the stub, without its hash line),
/// which gives the exact offsets, sizes and SHA-256 of the installer and of the payload, whose
/// manifest pins every file's SHA-256: so a signature covers every byte of the package.
inline std::string package_signed_message(std::string_view header) { return "skb-package-v1\n" + std::string(header); }

}  // namespace skb::packager
