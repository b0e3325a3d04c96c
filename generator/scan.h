#pragma once
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "opmodel/op_record.h"

namespace skb::generator {
using opmodel::OpRecord;

/// A file that could not be used, and why (`<json-pointer>: <what was expected>`).
struct Rejected {
  std::string file;
  std::string error;
};

/// Every file read, validated and reduced to its distinct records.
struct ScanResult {
  std::size_t files_scanned = 0;
  std::size_t records = 0;
  std::vector<Rejected> rejected;              // sorted by file
  std::map<std::string, OpRecord> distinct;    // canonical signature → one record with it
  std::map<std::string, std::string> file_of;  // canonical signature → the first file by name that holds it
};

/// Reads, validates and deduplicates files on `threads` threads. A bad file is recorded in
/// `rejected` and the scan goes on. `progress` is called now and then with the files done.
ScanResult scan_files(const std::vector<std::string>& files, unsigned threads,
                      void (*progress)(std::size_t done, std::size_t total) = nullptr);

}  // namespace skb::generator
