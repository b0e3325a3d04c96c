/* The C interface of every skb kernel, static or dynamic. */
#ifndef SKB_KERNEL_ABI_H
#define SKB_KERNEL_ABI_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKB_MAX_RANK 8

/** What a dynamic kernel returns, touching no buffer, for a call whose shapes or attributes
    contradict each other or the kernel's parameters. */
#define SKB_KERNEL_BAD_CALL 2

/** A tensor's shape, for dynamic kernels. */
typedef struct skb_shape {
  int32_t rank;
  int64_t dims[SKB_MAX_RANK];
} skb_shape;

/** One attribute, every kind as doubles (bool 0/1, int, float, lists). */
typedef struct skb_attr {
  const char* name;
  int32_t count;
  const double* values;
} skb_attr;

/** What a dynamic kernel is told at run time. An absent optional tensor has rank -1; a tensor
    list (ConcatD's x) has one shape for each of its tensors, in order, in place of its slot's one,
    so that num_inputs counts tensors, not slots. */
typedef struct skb_call {
  int32_t num_inputs;
  int32_t num_outputs;
  const skb_shape* inputs;
  const skb_shape* outputs;
  int32_t num_attrs;
  const skb_attr* attrs;
} skb_call;

/** Both kinds take one pointer per input and output slot; a tensor list's is the address of an
    array of its tensors' pointers. */
/** Static kernel: every shape and attribute was fixed at compile time. Returns 0 on success. */
typedef int (*skb_kernel_fn)(const void* const* inputs, void* const* outputs);
/** Dynamic kernel: shapes and attributes come with the call. Returns 0 on success. */
typedef int (*skb_kernel_dynamic_fn)(const skb_call* call, const void* const* inputs, void* const* outputs);

#ifdef __cplusplus
}
#endif
#endif
