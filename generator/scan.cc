#include "generator/scan.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "opmodel/shape_rules.h"

namespace skb::generator {
using opmodel::canonical_signature;
using opmodel::check_shapes;
using opmodel::OpRecord;
using opmodel::parse_op_record;

namespace {

struct Partial {
  std::size_t records = 0;
  std::vector<Rejected> rejected;
  std::map<std::string, OpRecord> distinct;
  std::map<std::string, std::string> file_of;
};

// The first file by name that holds a signature, whatever order the threads met them in.
void note_file(std::map<std::string, std::string>& file_of, const std::string& sig, const std::string& file) {
  auto [it, added] = file_of.try_emplace(sig, file);
  if (!added && file < it->second) it->second = file;
}

// What each distinct file content came to: a valid record's signature (already among the
// distinct ones), else the error every file with those bytes gets. Dumps hold the same record
// once per rank, byte for byte: it is parsed and checked once.
struct Outcome {
  std::string signature;  // of a valid record
  std::string error;      // of any other
};

class Outcomes {
 public:
  std::optional<Outcome> find(const std::string& digest) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = seen_.find(digest);
    if (it == seen_.end()) return std::nullopt;
    return it->second;
  }
  void put(std::string digest, Outcome outcome) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.emplace(std::move(digest), std::move(outcome));
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, Outcome> seen_;
};

void scan_one(const std::string& file, Partial& out, Outcomes& outcomes) {
  std::string digest;
  try {
    std::string text = common::read_file(file, opmodel::kMaxRecordSize);
    digest = common::sha256_hex(text);
    if (auto known = outcomes.find(digest)) {
      if (known->error.empty()) {
        ++out.records;
        note_file(out.file_of, known->signature, file);
      } else {
        out.rejected.push_back({file, known->error});
      }
      return;
    }
    OpRecord record = parse_op_record(common::parse_json(text));
    check_shapes(record);  // nothing computes with shapes that contradict their op
    std::string sig = canonical_signature(record);
    note_file(out.file_of, sig, file);
    out.distinct.try_emplace(sig, std::move(record));
    ++out.records;
    outcomes.put(std::move(digest), {std::move(sig), ""});
  } catch (const common::FieldError& e) {
    out.rejected.push_back({file, e.describe()});
    if (!digest.empty()) outcomes.put(std::move(digest), {"", e.describe()});
  } catch (const common::Error& e) {
    // read errors already name the file; keep only what follows it
    std::string what = e.what();
    std::string prefix = file + ": ";
    if (what.compare(0, prefix.size(), prefix) == 0) what.erase(0, prefix.size());
    out.rejected.push_back({file, what});
  }
}

}  // namespace

ScanResult scan_files(const std::vector<std::string>& files, unsigned threads,
                      void (*progress)(std::size_t, std::size_t)) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(files.size() / 64 + 1)));
  std::vector<Partial> parts(threads);
  Outcomes outcomes;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  constexpr std::size_t kBatch = 32;
  auto work = [&](Partial& part, bool report) {
    for (;;) {
      std::size_t begin = next.fetch_add(kBatch);
      if (begin >= files.size()) break;
      std::size_t end = std::min(files.size(), begin + kBatch);
      for (std::size_t i = begin; i < end; ++i) scan_one(files[i], part, outcomes);
      std::size_t now = done.fetch_add(end - begin) + (end - begin);
      if (report && progress) progress(now, files.size());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, std::ref(parts[t]), false);
  work(parts[0], true);
  for (auto& th : pool) th.join();

  ScanResult result;
  result.files_scanned = files.size();
  for (Partial& p : parts) {
    result.records += p.records;
    result.rejected.insert(result.rejected.end(), p.rejected.begin(), p.rejected.end());
    result.distinct.merge(p.distinct);
    for (const auto& [sig, file] : p.file_of) note_file(result.file_of, sig, file);
  }
  std::sort(result.rejected.begin(), result.rejected.end(),
            [](const Rejected& a, const Rejected& b) { return a.file < b.file; });
  return result;
}

}  // namespace skb::generator
