#include <cuda.h>

#include "tests/runtime/fake_cuda_gpu.h"

namespace skb::test {

FakeLaunch read_launch_config(const void* config) {
  const auto* c = static_cast<const CUlaunchConfig*>(config);
  FakeLaunch l;
  l.grid = c->gridDimX * c->gridDimY * c->gridDimZ;
  l.block = c->blockDimX * c->blockDimY * c->blockDimZ;
  l.shared = c->sharedMemBytes;
  for (unsigned i = 0; i < c->numAttrs && i < 4; ++i, ++l.attributes) {
    l.attribute_id[i] = static_cast<int>(c->attrs[i].id);
    l.attribute_flag[i] = c->attrs[i].value.programmaticStreamSerializationAllowed;
  }
  return l;
}

}  // namespace skb::test
