#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "generator/scan.h"
#include "generator/toolchain.h"
#include "opmodel/defines.h"

namespace skb::generator {
using opmodel::OpRecord;
using opmodel::Variant;

/// One kernel to compile.
struct Kernel {
  std::string name;  // <OpType>_<32 hex>: also its file names in kernel_meta/
  std::string op_type;
  std::string signature;  // canonical signature, the content of its .info
  Variant variant = Variant::kStatic;
  const OpTemplate* source = nullptr;
  std::vector<std::string> defines;
  std::int64_t work = 0;  // elements of its first output: what a device launch's grid covers
};

/// What the generator will build, and what it will not and why.
struct Plan {
  std::vector<Kernel> kernels;  // sorted by name
  std::size_t distinct_kernels = 0;
  std::map<std::string, std::size_t> planned;             // op type → static kernels
  std::map<std::string, std::size_t> unsupported;         // op type → distinct records
  std::map<std::string, std::string> unsupported_reason;  // op type → first reason met
  std::map<std::string, std::string> unsupported_file;    // op type → a file of that record
  std::map<std::string, std::size_t> shapes_unchecked;    // op type → distinct records the op model has no rules for
};

/// The kernel name: op type plus the first 128 bits of SHA-256 over the signature, the
/// toolchain identity and the template's content hash.
std::string kernel_name(const std::string& op_type, const std::string& signature, const Toolchain& toolchain,
                        const OpTemplate& source);

/// Why the toolchain cannot compile this record, or empty when it can.
std::string unsupported_reason(const OpRecord& record, const Toolchain& toolchain);

/// One static kernel per distinct supported record; with_dynamic adds one dynamic kernel per
/// distinct (op type, dtypes) among them.
Plan make_plan(const ScanResult& scan, const Toolchain& toolchain, bool with_dynamic);

}  // namespace skb::generator
