#pragma once
#include <filesystem>
#include <string>

#include "common/json_input.h"

namespace skb::test {

/// A fresh scratch folder for the running test, under the build tree; kept for inspection.
std::filesystem::path scratch_dir();

/// A minimal valid op-statistics record: Add of two float [2,3] tensors.
common::Json valid_record();

/// Writes text to a file, creating parent folders.
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace skb::test
