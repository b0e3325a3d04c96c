#include "generator/plan.h"

#include <fmt/format.h>
#include <algorithm>

#include "common/error.h"
#include "common/sha256.h"
#include "opmodel/shape_rules.h"
#include "opmodel/support.h"

namespace skb::generator {
using opmodel::dynamic_signature;
using opmodel::has_shape_rules;
using opmodel::kernel_defines;
using opmodel::OpRecord;
using opmodel::separate_lists;
using opmodel::Slot;
using opmodel::Tensor;
using opmodel::Variant;

std::string kernel_name(const std::string& op_type, const std::string& signature, const Toolchain& toolchain,
                        const OpTemplate& source) {
  common::Sha256 h;
  h.update(signature);
  h.update("\n");
  h.update(toolchain.identity);
  h.update("\n");
  h.update(source.hash);
  return op_type + "_" + h.hex().substr(0, 32);
}

std::string unsupported_reason(const OpRecord& r, const Toolchain& tc) {
  const OpTemplate* t = tc.find(r.op_type);
  if (t == nullptr) return fmt::format("no template in toolchain {}", tc.name);
  if (std::string why = opmodel::unsupported_attrs(r); !why.empty()) return why;
  for (const auto* slots : {&r.inputs, &r.outputs}) {
    for (const Slot& s : *slots) {
      for (const Tensor& tensor : s.tensors) {
        // Host data such as a permutation: a static kernel is made for its values, so they must
        // have been recorded (const_data "NULL" says they were not).
        if (tensor.value_depend) {
          if (!tensor.const_data.is_array()) return "a value-dependent input whose values were not recorded";
          continue;
        }
        if (std::find(t->dtypes.begin(), t->dtypes.end(), tensor.dtype) == t->dtypes.end())
          return fmt::format("dtype {}", tensor.dtype);
        if (!tensor.is_contiguous()) return "a non-contiguous view";
        if (!tc.formats.empty() && std::find(tc.formats.begin(), tc.formats.end(), tensor.format) == tc.formats.end())
          return fmt::format("format {}", tensor.format);
      }
    }
  }
  return "";
}

namespace {

// Elements of the call's first output tensor (saturating; 0 when it has none).
std::int64_t first_output_elements(const OpRecord& record) {
  for (const auto& slot : record.outputs)
    for (const auto& t : slot.tensors) {
      std::int64_t n = 1;
      for (std::int64_t d : t.shape) n = d <= 0 ? 0 : n > INT64_MAX / d ? INT64_MAX : n * d;
      return n;
    }
  return 0;
}

}  // namespace

Plan make_plan(const ScanResult& scan, const Toolchain& tc, bool with_dynamic) {
  if (with_dynamic && tc.dynamic_entry.empty())
    throw common::Error(
        fmt::format("--dynamic: toolchain {} builds no dynamic kernels (its profile has no "
                    "dynamic_entry)",
                    tc.name));
  Plan plan;
  plan.distinct_kernels = scan.distinct.size();
  std::map<std::string, Kernel> dynamic;
  for (const auto& [signature, record] : scan.distinct) {
    if (!has_shape_rules(record.op_type)) ++plan.shapes_unchecked[record.op_type];
    std::string why = unsupported_reason(record, tc);
    if (!why.empty()) {
      ++plan.unsupported[record.op_type];
      if (plan.unsupported_reason.try_emplace(record.op_type, why).second)
        if (auto f = scan.file_of.find(signature); f != scan.file_of.end())
          plan.unsupported_file.emplace(record.op_type, f->second);
      continue;
    }
    const OpTemplate* source = tc.find(record.op_type);
    Kernel k;
    k.name = kernel_name(record.op_type, signature, tc, *source);
    k.op_type = record.op_type;
    k.signature = signature;
    k.source = source;
    k.defines = separate_lists(kernel_defines(record, Variant::kStatic), tc.list_separator);
    k.work = first_output_elements(record);
    plan.kernels.push_back(std::move(k));
    ++plan.planned[record.op_type];
    if (with_dynamic) {
      std::string dsig = dynamic_signature(record);
      if (!dynamic.count(dsig)) {
        Kernel d;
        d.name = kernel_name(record.op_type, dsig, tc, *source);
        d.op_type = record.op_type;
        d.signature = dsig;
        d.variant = Variant::kDynamic;
        d.source = source;
        d.defines = separate_lists(kernel_defines(record, Variant::kDynamic), tc.list_separator);
        dynamic.emplace(dsig, std::move(d));
      }
    }
  }
  for (auto& [sig, k] : dynamic) plan.kernels.push_back(std::move(k));
  std::sort(plan.kernels.begin(), plan.kernels.end(), [](const Kernel& a, const Kernel& b) { return a.name < b.name; });
  return plan;
}

}  // namespace skb::generator
