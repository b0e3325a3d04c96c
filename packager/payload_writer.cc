#include "packager/payload_writer.h"

#include <archive.h>
#include <archive_entry.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string_view>
#include <thread>

#include "common/error.h"
#include "packager/block_deflater.h"
#include "packager/format/gzip_bytes.h"
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

// libarchive's sink for a gzip payload: the tar stream goes to BlockDeflater. A C callback: an
// exception waits in `failure` until libarchive has returned.
struct BlockSink {
  BlockDeflater* blocks;
  std::exception_ptr failure;
};

la_ssize_t to_blocks(archive* a, void* data, const void* bytes, std::size_t n) {
  auto* sink = static_cast<BlockSink*>(data);
  try {
    sink->blocks->write(std::string_view(static_cast<const char*>(bytes), n));
    return static_cast<la_ssize_t>(n);
  } catch (...) {
    sink->failure = std::current_exception();
    archive_set_error(a, EIO, "write failed");
    return -1;
  }
}

// Throws when rc is a failure: the sink's own exception when it failed, else libarchive's message.
void check(archive* a, const BlockSink& sink, int rc, const char* what) {
  if (rc >= ARCHIVE_WARN) return;
  if (sink.failure) std::rethrow_exception(sink.failure);
  throw Error(fmt::format("libarchive: {}: {}", what, why(a)));
}

void add_entry(archive* a, const BlockSink& sink, const std::string& path, const std::string& data,
               std::int64_t mtime) {
  std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(), &archive_entry_free);
  archive_entry_set_pathname(e.get(), path.c_str());
  archive_entry_set_filetype(e.get(), AE_IFREG);
  archive_entry_set_perm(e.get(), 0644);
  archive_entry_set_uid(e.get(), 0);
  archive_entry_set_gid(e.get(), 0);
  archive_entry_set_mtime(e.get(), mtime, 0);
  archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
  check(a, sink, archive_write_header(a, e.get()), "header");
  if (!data.empty() && archive_write_data(a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
    check(a, sink, ARCHIVE_FATAL, fmt::format("writing {}", path).c_str());
  check(a, sink, archive_write_finish_entry(a), "entry end");  // its padding too
}

// Blocks compressed at once: one per core (the thread that feeds them mostly waits).
unsigned compressing_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 16u); }

}  // namespace

std::vector<std::string> write_payload(const fs::path& out, const std::string& manifest,
                                       const std::vector<SourceFile>& files, Compression compression,
                                       std::int64_t mtime) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  std::unique_ptr<BlockDeflater> blocks;
  BlockSink sink{};
  // Freed first: freeing an archive left open on an error writes its end to the sink.
  std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
  archive* w = a.get();
  check(w, sink, archive_write_set_format_pax_restricted(w), "tar format");
  switch (compression) {
    case Compression::kGzip:
      // gzip blocks, which the installer unpacks on all cores (format/gzip_bytes.h).
      file.reset(std::fopen(out.c_str(), "wbe"));
      if (!file) throw Error(fmt::format("{}: cannot create: {}", out.string(), std::strerror(errno)));
      blocks = std::make_unique<BlockDeflater>(file.get(), out, kGzipLevel, compressing_threads());
      sink.blocks = blocks.get();
      break;
    case Compression::kZstd:
      check(w, sink, archive_write_add_filter_zstd(w), "zstd");
      break;
    case Compression::kXz:
      check(w, sink, archive_write_add_filter_xz(w), "xz");
      break;
  }
  check(w, sink, archive_write_set_bytes_in_last_block(w, 1), "block size");
  // Unbuffered: each entry is in the sink when add_entry returns (a block can end right after one).
  if (blocks) check(w, sink, archive_write_set_bytes_per_block(w, 0), "block size");
  if (blocks)
    check(w, sink, archive_write_open2(w, &sink, nullptr, &to_blocks, nullptr, nullptr), out.c_str());
  else
    check(w, sink, archive_write_open_filename(w, out.c_str()), out.c_str());
  add_entry(w, sink, kManifestName, manifest, mtime);
  if (blocks) blocks->end_block();  // the manifest in a block of its own: what an installer reads first
  ReadAhead source(files);          // reads and hashes on a second core while this one feeds the compressor
  for (const auto& f : files) add_entry(w, sink, f.path, source.next(), mtime);
  check(w, sink, archive_write_close(w), "close");
  if (blocks) {
    blocks->finish();
    if (std::fclose(file.release()) != 0)
      throw Error(fmt::format("{}: write failed: {}", out.string(), std::strerror(errno)));
  }
  return source.mismatches();
}

}  // namespace skb::packager
