#include <archive.h>

#include "packager/install/payload_filters.h"

namespace skb::installer {

void add_payload_filters(archive* a) { archive_read_support_filter_gzip(a); }

}  // namespace skb::installer
