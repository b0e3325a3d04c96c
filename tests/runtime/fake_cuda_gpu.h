// What the pretend GPU driver (fake_cuda_gpu.cc) reads of a cuLaunchKernelEx configuration,
// taken from CUDA's own cuda.h (fake_cuda_launch_config.cc) so that the runtime's copy of its
// layout is checked against the real one.
#pragma once

namespace skb::test {

struct FakeLaunch {
  unsigned grid = 0, block = 0, shared = 0;
  int attributes = 0;
  int attribute_id[4] = {};
  int attribute_flag[4] = {};  // the value's first int (programmaticStreamSerializationAllowed)
};

/// `config` as a CUlaunchConfig.
FakeLaunch read_launch_config(const void* config);

}  // namespace skb::test
