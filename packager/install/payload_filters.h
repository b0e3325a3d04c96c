#pragma once

struct archive;

namespace skb::installer {

/// Registers with libarchive the decompressors a payload may need. Linked in one of two forms:
/// payload_filters_all.cc (gzip, zstd and xz: every compression skb-package writes) for the
/// programs and the installer of zstd and xz packages; payload_filters_gzip.cc (gzip alone) for
/// the installer of gzip packages, the default, which leaves zstd's and xz's decoders out of
/// most .run files.
void add_payload_filters(archive* a);

}  // namespace skb::installer
