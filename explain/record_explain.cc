#include "explain/record_explain.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "opmodel/defines.h"
#include "opmodel/op_record.h"
#include "opmodel/shape_rules.h"

namespace skb::explain {
using common::Json;
namespace fs = std::filesystem;

namespace {

// What a pointer into a signature names, for people: an attr's name.
std::string note_for(const std::string& pointer, const Json& sig_a, const Json& sig_b) {
  if (pointer.rfind("/attrs/", 0) != 0) return "";
  std::size_t end = pointer.find('/', 7);
  std::string index = pointer.substr(7, end == std::string::npos ? std::string::npos : end - 7);
  if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) return "";
  std::size_t i = std::stoul(index);
  for (const Json* sig : {&sig_a, &sig_b}) {
    const Json& attrs = (*sig)["attrs"];
    if (attrs.is_array() && i < attrs.size() && attrs[i].contains("name")) return attrs[i]["name"].get<std::string>();
  }
  return "";
}

}  // namespace

Json read_signature(const fs::path& file, std::string* canonical, std::string* dynamic) {
  std::string text = common::read_file(file, opmodel::kMaxRecordSize);
  try {
    opmodel::OpRecord record = opmodel::parse_op_record(common::parse_json(text));
    opmodel::check_shapes(record);
    if (dynamic) *dynamic = opmodel::dynamic_signature(record);
    std::string signature = opmodel::canonical_signature(record);
    if (canonical) *canonical = signature;
    return common::parse_json(signature);
  } catch (const common::FieldError& e) {
    throw common::Error(fmt::format("{}: {}", file.string(), e.describe()));
  }
}

RecordExplanation explain_records(const fs::path& a, const fs::path& b) {
  RecordExplanation e;
  e.file_a = a.string();
  e.file_b = b.string();
  std::string text_a, text_b, dyn_a, dyn_b;
  Json sig_a = read_signature(a, &text_a, &dyn_a), sig_b = read_signature(b, &text_b, &dyn_b);
  e.key_a = common::sha256_hex(text_a);
  e.key_b = common::sha256_hex(text_b);
  e.same = e.key_a == e.key_b;
  e.same_dynamic = dyn_a == dyn_b;
  e.differences = diff_json(sig_a, sig_b);
  for (const FieldDiff& d : e.differences) e.notes.push_back(note_for(d.pointer, sig_a, sig_b));
  return e;
}

std::string record_text(const RecordExplanation& e) {
  std::string out =
      fmt::format("a: {} (key {})\nb: {} (key {})\n", e.file_a, e.key_a.substr(0, 16), e.file_b, e.key_b.substr(0, 16));
  if (e.same) return out + "the same kernel: one canonical signature\n";
  out += fmt::format("different kernels: {} field{} of the signature differ:\n", e.differences.size(),
                     e.differences.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < e.differences.size(); ++i) {
    const FieldDiff& d = e.differences[i];
    std::string note = e.notes[i].empty() ? "" : fmt::format(" ({})", e.notes[i]);
    out += fmt::format("  {}{}: {} vs {}\n", d.pointer, note, show_value(d.a, d.in_a), show_value(d.b, d.in_b));
  }
  if (e.same_dynamic) out += "they share one dynamic kernel (the same op and dtypes): only shapes or values differ\n";
  return out;
}

Json record_json(const RecordExplanation& e) {
  Json diffs = Json::array();
  for (std::size_t i = 0; i < e.differences.size(); ++i) {
    const FieldDiff& d = e.differences[i];
    Json j = {{"pointer", d.pointer}, {"a", d.in_a ? d.a : Json()}, {"b", d.in_b ? d.b : Json()}};
    if (!d.in_a) j["absent_in"] = "a";
    if (!d.in_b) j["absent_in"] = "b";
    if (!e.notes[i].empty()) j["attr"] = e.notes[i];
    diffs.push_back(std::move(j));
  }
  return Json{{"kind", "records"},
              {"same", e.same},
              {"same_dynamic", e.same_dynamic},
              {"a", {{"file", e.file_a}, {"key", e.key_a}}},
              {"b", {{"file", e.file_b}, {"key", e.key_b}}},
              {"differences", std::move(diffs)}};
}

}  // namespace skb::explain
