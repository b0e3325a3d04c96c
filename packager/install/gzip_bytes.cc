#include "packager/install/gzip_bytes.h"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include <memory>

#include "common/error.h"

namespace skb::installer {
namespace {

struct WriteDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct ReadDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

la_ssize_t append(archive*, void* out, const void* data, std::size_t n) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(data), n);
  return static_cast<la_ssize_t>(n);
}

}  // namespace

std::string gzip_bytes(std::string_view bytes) {
  std::string out;
  std::unique_ptr<archive, WriteDeleter> a(archive_write_new());
  std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(), &archive_entry_free);
  if (!a || !e || archive_write_set_format_raw(a.get()) != ARCHIVE_OK ||
      archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_options(a.get(), "gzip:!timestamp") != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(a.get(), 1) != ARCHIVE_OK ||
      archive_write_open2(a.get(), &out, nullptr, append, nullptr, nullptr) != ARCHIVE_OK)
    throw common::Error(fmt::format("libarchive: {}", a ? archive_error_string(a.get()) : "out of memory"));
  archive_entry_set_filetype(e.get(), AE_IFREG);
  archive_entry_set_size(e.get(), static_cast<la_int64_t>(bytes.size()));
  if (archive_write_header(a.get(), e.get()) < ARCHIVE_WARN ||
      archive_write_data(a.get(), bytes.data(), bytes.size()) != static_cast<la_ssize_t>(bytes.size()) ||
      archive_write_close(a.get()) != ARCHIVE_OK)
    throw common::Error(fmt::format("libarchive: {}", archive_error_string(a.get())));
  return out;
}

std::optional<std::string> gunzip_bytes(std::string_view gz, std::size_t max) {
  std::unique_ptr<archive, ReadDeleter> a(archive_read_new());
  archive_entry* e = nullptr;
  if (!a || archive_read_support_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_read_support_format_raw(a.get()) != ARCHIVE_OK ||
      archive_read_open_memory(a.get(), gz.data(), gz.size()) != ARCHIVE_OK ||
      archive_read_next_header(a.get(), &e) != ARCHIVE_OK || archive_filter_code(a.get(), 0) != ARCHIVE_FILTER_GZIP)
    return std::nullopt;
  std::string out;
  char buf[1 << 16];
  for (la_ssize_t n; (n = archive_read_data(a.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 || out.size() + static_cast<std::size_t>(n) > max) return std::nullopt;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace skb::installer
