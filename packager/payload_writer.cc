#include "packager/payload_writer.h"

#include <archive.h>
#include <archive_entry.h>

#include <fmt/format.h>
#include <cstdio>
#include <cstring>
#include <memory>

#include "common/error.h"
#include "packager/read_ahead.h"

namespace skb::packager {
namespace fs = std::filesystem;
using common::Error;

Compression parse_compression(const std::string& name) {
  if (name == "gzip") return Compression::kGzip;
  if (name == "zstd") return Compression::kZstd;
  if (name == "xz") return Compression::kXz;
  throw Error(fmt::format("--compression {}: expected gzip, zstd or xz", name));
}

namespace {

// libarchive's message for the last error (it may have none), with the system's reason when
// there is one: "Write error: No space left on device".
std::string why(archive* a) {
  std::string message = archive_error_string(a) ? archive_error_string(a) : "unknown error";
  int e = archive_errno(a);
  if (e > 0 && message.find(std::strerror(e)) == std::string::npos) message += std::string(": ") + std::strerror(e);
  return message;
}

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};

void check(archive* a, int rc, const char* what) {
  if (rc < ARCHIVE_WARN) throw Error(fmt::format("libarchive: {}: {}", what, why(a)));
}

void add_entry(archive* a, const std::string& path, const std::string& data, std::int64_t mtime) {
  std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(), &archive_entry_free);
  archive_entry_set_pathname(e.get(), path.c_str());
  archive_entry_set_filetype(e.get(), AE_IFREG);
  archive_entry_set_perm(e.get(), 0644);
  archive_entry_set_uid(e.get(), 0);
  archive_entry_set_gid(e.get(), 0);
  archive_entry_set_mtime(e.get(), mtime, 0);
  archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
  check(a, archive_write_header(a, e.get()), "header");
  if (!data.empty() && archive_write_data(a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
    throw Error(fmt::format("libarchive: writing {}: {}", path, why(a)));
}

}  // namespace

std::vector<std::string> write_payload(const fs::path& out, const std::string& manifest,
                                       const std::vector<SourceFile>& files, Compression compression,
                                       std::int64_t mtime) {
  std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
  archive* w = a.get();
  check(w, archive_write_set_format_pax_restricted(w), "tar format");
  switch (compression) {
    case Compression::kGzip:
      check(w, archive_write_add_filter_gzip(w), "gzip");
      check(w, archive_write_set_filter_option(w, "gzip", "timestamp", nullptr), "gzip option");
      break;
    case Compression::kZstd:
      check(w, archive_write_add_filter_zstd(w), "zstd");
      break;
    case Compression::kXz:
      check(w, archive_write_add_filter_xz(w), "xz");
      break;
  }
  check(w, archive_write_set_bytes_in_last_block(w, 1), "block size");
  check(w, archive_write_open_filename(w, out.c_str()), out.c_str());
  add_entry(w, kManifestName, manifest, mtime);
  ReadAhead source(files);  // reads and hashes on a second core while this one compresses
  for (const auto& f : files) add_entry(w, f.path, source.next(), mtime);
  check(w, archive_write_close(w), "close");
  return source.mismatches();
}

}  // namespace skb::packager
