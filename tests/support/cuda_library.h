#pragma once
// An installed library of one cuda kernel, its index written as the installer writes it, for
// the runtime's tests on a machine without a GPU.
#include <filesystem>
#include <string>

namespace skb::test {

/// The library at SKB_TEST_SCRATCH-like `scratch`/`name`: one static Relu kernel of the record
/// relu_record() whose binary holds `cubin`, its index entry's launch field `launch` ("": none,
/// a host kernel). Returns the install path.
std::filesystem::path cuda_library(const std::filesystem::path& scratch, const std::string& name,
                                   const std::string& launch, const std::string& cubin);

/// The call the library's kernel is built for: Relu of a float16 2 x 3 tensor, as JSON.
std::string relu_record();

}  // namespace skb::test
