#pragma once
#include <string>

#include "opmodel/op_record.h"

namespace skb::opmodel {

/// What skb's kernel templates honour of a record beyond its shapes: every attribute an op's
/// record may carry is either computed as the record says or named here (templates/kernels/
/// README.md lists both). Returns why the templates cannot compute this call (an attribute they
/// do not know, or a value they do not implement), or "" when they can. The generator counts such
/// a record as unsupported; the runtime refuses such a call (SKB_ERR_UNSUPPORTED), so that no
/// kernel, static or dynamic, ever computes something else than its record says.
std::string unsupported_attrs(const OpRecord& record);

/// Why a dynamic kernel cannot serve this call, or "": it indexes row-major layouts only, so
/// every tensor of the call must be in a plain format (ND, NCHW, ...).
std::string unsupported_by_dynamic(const OpRecord& record);

}  // namespace skb::opmodel
