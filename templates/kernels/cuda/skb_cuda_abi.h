/* What a CUDA kernel of skb is launched with: plain C, shared by the templates (nvcc) and the
 * runtime (any C++ compiler, no CUDA header).
 *
 * Static kernel:  extern "C" __global__ void skb_kernel(skb_args args)
 * Dynamic kernel: extern "C" __global__ void skb_kernel_dynamic(skb_args args, skb_cuda_call call)
 *
 * Both are launched with a 1-D grid and block (the build record's "launch", or a static kernel's
 * own skb_cuda_launch); every kernel loops
 * grid-stride, so any grid computes the whole result. A dynamic call's shapes and attributes
 * travel by value in the kernel's parameters (about 2 KB, under the 4 KB every GPU takes). */
#ifndef SKB_CUDA_ABI_H
#define SKB_CUDA_ABI_H
#include <stdint.h>

#define SKB_CUDA_MAX_RANK 8
#define SKB_MAX_SLOTS 8
#define SKB_CUDA_MAX_ATTRS 8
#define SKB_CUDA_MAX_ATTR_VALUES 8
#define SKB_CUDA_ATTR_NAME 32

/** One pointer per input and output tensor, in device memory: one per slot (NULL for an absent
 * input), a tensor list's tensors one each from its slot's place on (ConcatD's x: in[0] to
 * in[n - 1]). A dynamic call's shapes are in the same order. */
typedef struct skb_args {
  const void* in[SKB_MAX_SLOTS];
  void* out[SKB_MAX_SLOTS];
} skb_args;

/** A tensor's shape; rank -1 for an absent tensor. */
typedef struct skb_cuda_shape {
  int32_t rank;
  int64_t dims[SKB_CUDA_MAX_RANK];
} skb_cuda_shape;

/** One attribute, every kind as doubles (bool 0/1, int, float, lists); name NUL-terminated. */
typedef struct skb_cuda_attr {
  char name[SKB_CUDA_ATTR_NAME];
  int32_t count;
  double values[SKB_CUDA_MAX_ATTR_VALUES];
} skb_cuda_attr;

/** A static kernel's own launch, where the grid-stride default does not suit it (a matmul's
 * tiles): the kernel defines `extern "C" __constant__ skb_cuda_launch skb_launch` (skb_cuda.h's
 * SKB_LAUNCH), and the runtime, reading it when it loads the kernel, launches it with this grid
 * and block instead of the build record's, and with shared_bytes of dynamic shared memory. */
typedef struct skb_cuda_launch {
  uint32_t grid;
  uint32_t block;
  uint32_t shared_bytes;
  uint32_t reserved; /* 0 */
} skb_cuda_launch;

#define SKB_CUDA_LAUNCH_SYMBOL "skb_launch"

/** A static kernel built for sm_90 or later defines `extern "C" __constant__ uint32_t skb_awaits = 1`
 * (skb_cuda.h's SKB_AWAITS): before it reads or writes global memory it waits for the grids
 * before it in its stream to finish (griddepcontrol.wait), then lets the grid after it start
 * (griddepcontrol.launch_dependents). Such a kernel may be launched as a programmatic dependent
 * launch, its blocks started while the grid before it finishes. */
#define SKB_CUDA_AWAITS_SYMBOL "skb_awaits"

/** Tensor maps (TMA, sm_90 and later) a static kernel reads inputs through: the kernel defines
 * `extern "C" __constant__ skb_cuda_tma_plan skb_tma` (skb_cuda.h's SKB_TMA) and takes a second
 * parameter, skb_cuda_tensor_maps. At each launch the runtime encodes map i from maps[i] and the
 * call's pointer of input maps[i].slot (cuTensorMapEncodeTiled), and sets `encoded` to the maps
 * it encoded: fewer than count (an input that is not 16-byte aligned) and the kernel takes a
 * path that reads no map. */
#define SKB_CUDA_MAX_TMA 2
#define SKB_CUDA_TMA_RANK 3
#define SKB_CUDA_TMA_SYMBOL "skb_tma"

typedef struct skb_cuda_tma {
  int32_t slot;                            /* the input */
  uint32_t data_type;                      /* CUtensorMapDataType */
  uint32_t swizzle;                        /* CUtensorMapSwizzle */
  uint32_t rank;                           /* 1 to SKB_CUDA_TMA_RANK */
  uint64_t dims[SKB_CUDA_TMA_RANK];        /* elements, the contiguous axis first */
  uint64_t strides[SKB_CUDA_TMA_RANK - 1]; /* bytes from one index of axis 1, 2 to the next */
  uint32_t box[SKB_CUDA_TMA_RANK];         /* elements a load brings, per axis */
  uint32_t reserved;                       /* 0 */
} skb_cuda_tma;

typedef struct skb_cuda_tma_plan {
  uint32_t count;
  uint32_t reserved; /* 0 */
  skb_cuda_tma maps[SKB_CUDA_MAX_TMA];
} skb_cuda_tma_plan;

/** The encoded maps (CUtensorMap: 128 bytes, 64-byte aligned, opaque). */
typedef struct __attribute__((aligned(64))) skb_cuda_tensor_maps {
  uint64_t words[16 * SKB_CUDA_MAX_TMA];
  uint32_t encoded;
} skb_cuda_tensor_maps;

/** What a dynamic CUDA kernel is told about a call. */
typedef struct skb_cuda_call {
  int32_t num_inputs;
  int32_t num_outputs;
  skb_cuda_shape inputs[SKB_MAX_SLOTS];
  skb_cuda_shape outputs[SKB_MAX_SLOTS];
  int32_t num_attrs;
  skb_cuda_attr attrs[SKB_CUDA_MAX_ATTRS];
} skb_cuda_call;

#endif
