#include "packager/format/run_header.h"

#include <fmt/format.h>
#include <charconv>

#include "packager/format/verify_error.h"

namespace skb::packager {

std::string render_run_header_fields(const RunHeaderFields& f) {
  return fmt::format(R"(skb_package={}
skb_header_len={}
skb_installer_offset={}
skb_installer_size={}
skb_installer_sha256={}
skb_installer_unpacked_size={}
skb_installer_unpacked_sha256={}
skb_installer_unpacked_b2={}
skb_base={}
skb_payload_offset={}
skb_payload_size={}
skb_payload_sha256={}
skb_signature_size={}
)",
                     f.package, f.header_len, f.installer_offset, f.installer_size, f.installer_sha256,
                     f.installer_unpacked_size, f.installer_unpacked_sha256, f.installer_unpacked_b2, f.base,
                     f.payload_offset, f.payload_size, f.payload_sha256, f.signature_size);
}

std::optional<std::string> run_header_field(std::string_view header, const std::string& name) {
  std::string key = "\n" + name + "=";
  std::size_t at = header.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t start = at + key.size(), end = header.find('\n', start);
  return std::string(header.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

std::string run_header_value(std::string_view header, const std::string& name) {
  std::optional<std::string> v = run_header_field(header, name);
  if (!v) throw VerifyError(fmt::format("not a skb package: no {} in its header", name));
  return *v;
}

std::uint64_t run_header_number(std::string_view header, const std::string& name) {
  std::string text = run_header_value(header, name);
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw VerifyError(fmt::format("not a skb package: {}={} is not a number", name, text));
  return n;
}

RunHeaderFields parse_run_header(std::string_view header) {
  RunHeaderFields f;
  f.package = run_header_value(header, "skb_package");
  f.header_len = run_header_number(header, "skb_header_len");
  f.installer_offset = run_header_number(header, "skb_installer_offset");
  f.installer_size = run_header_number(header, "skb_installer_size");
  f.installer_sha256 = run_header_value(header, "skb_installer_sha256");
  if (run_header_field(header, "skb_installer_unpacked_size"))
    f.installer_unpacked_size = run_header_number(header, "skb_installer_unpacked_size");
  f.installer_unpacked_sha256 = run_header_field(header, "skb_installer_unpacked_sha256").value_or("");
  f.installer_unpacked_b2 = run_header_field(header, "skb_installer_unpacked_b2").value_or("");
  f.base = run_header_field(header, "skb_base").value_or("");
  f.payload_offset = run_header_number(header, "skb_payload_offset");
  f.payload_size = run_header_number(header, "skb_payload_size");
  f.payload_sha256 = run_header_value(header, "skb_payload_sha256");
  f.signature_size = run_header_number(header, "skb_signature_size");
  return f;
}

}  // namespace skb::packager
