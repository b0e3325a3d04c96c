#pragma once
// Tensors for checking kernels: bytes in the kernel's dtype, and the same values as floats.
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "opmodel/op_record.h"
#include "runtime/reference/reference_ops.h"

namespace skb::reference {

/// Bytes per element of a dtype the host templates use: float, float16, bfloat16, int32, int64.
std::size_t dtype_size(const std::string& dtype);
void store(const std::string& dtype, unsigned char* p, float v);
float load(const std::string& dtype, const unsigned char* p);

/// A tensor's bytes in its dtype, and its values as the kernel sees them (rounded to the dtype);
/// for a tensor list, each tensor's Buffer in `items` instead.
struct Buffer {
  std::vector<unsigned char> bytes;
  Ref ref;
  bool list = false;
  std::vector<Buffer> items;
  std::vector<void*> item_pointers;  // what a kernel takes for a list: filled by *_pointers below
};

/// Uniform random values in [lo, hi), or the tensor's const_data when it has some.
Buffer make_buffer(const opmodel::Tensor& t, std::mt19937& rng, float lo, float hi);

/// Random inputs for a call (absent slots give empty buffers; divisors stay away from 0) and
/// zeroed outputs.
std::vector<Buffer> make_inputs(const opmodel::OpRecord& rec, std::mt19937& rng);
std::vector<Buffer> make_outputs(const opmodel::OpRecord& rec);

/// The pointers a kernel takes for these buffers (skb_op_run's layout): one per slot, nullptr for
/// an absent one, and for a tensor list the address of an array of its tensors' pointers, which
/// the list's Buffer keeps (valid while it is neither copied nor changed).
std::vector<const void*> input_pointers(std::vector<Buffer>& in);
std::vector<void*> output_pointers(std::vector<Buffer>& out);

/// What the op computes, per output, from the reference implementations.
std::vector<std::vector<float>> expected_outputs(const opmodel::OpRecord& rec, const std::vector<Buffer>& inputs);

/// The largest relative error the dtype allows against the float reference.
double tolerance(const std::string& dtype);

/// The first output element that is off by more than the tolerance, as "output o element i:
/// got g, want w", or empty when every element is close.
std::string compare_outputs(const opmodel::OpRecord& rec, const std::vector<Buffer>& outputs,
                            const std::vector<std::vector<float>>& want);

/// The single tensor of slot i, or nullptr when it is absent or a list.
const opmodel::Tensor* slot_tensor(const std::vector<opmodel::Slot>& slots, std::size_t i);

}  // namespace skb::reference
