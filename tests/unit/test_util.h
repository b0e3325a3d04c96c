#pragma once
#include <filesystem>
#include <string>

#include "common/json_input.h"
#include "generator/compile_step.h"

namespace skb::test {

/// A fresh scratch folder for the running test, under the build tree; kept for inspection.
std::filesystem::path scratch_dir();

/// A minimal valid op-statistics record: Add of two float [2,3] tensors.
common::Json valid_record();

/// A compile step of the static kernel Relu_0123456789abcdef0123456789abcdef (toolchain "tcid",
/// suffix .so) into dir, running command.
generator::CompileStep relu_step(const std::filesystem::path& dir, std::vector<std::string> command);

/// Writes text to a file, creating parent folders.
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace skb::test
