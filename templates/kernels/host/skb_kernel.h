// Shared by every host kernel template: dtypes, shapes, and the two entry points.
// A template is compiled with -DSKB_STATIC (shapes from -D macros) or -DSKB_DYNAMIC.
#pragma once
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skb_dtypes.h"
#include "skb_geometry.h"
#include "skb_kernel_abi.h"

#define SKB_EXPORT extern "C" __attribute__((visibility("default")))
// Entry points are built twice, for any x86-64 and for x86-64-v3 (AVX2, FMA, F16C); the
// loader picks the one the CPU runs (an ifunc), so a kernel is fast where it can be and runs
// everywhere.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SKB_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), flatten))
#else
#define SKB_CLONES
#endif

namespace skb_k {

using skb_geom::Dims;
using skb_geom::dims;

/// A dynamic call's shape, checked (skb_geom::checked).
static inline Dims dims(const skb_shape& s) { return skb_geom::checked(s); }

/// A dynamic call with exactly the slots the kernel was built for.
static inline bool call_fits(const skb_call* c, int inputs, int outputs) {
  return c && c->num_inputs == inputs && c->num_outputs == outputs && (inputs == 0 || c->inputs) &&
         (outputs == 0 || c->outputs) && c->num_attrs >= 0 && (c->num_attrs == 0 || c->attrs);
}

/// An attribute of a dynamic call, or def when absent.
static inline double attr(const skb_call* c, const char* name, int index, double def) {
  for (int i = 0; i < c->num_attrs; ++i)
    if (strcmp(c->attrs[i].name, name) == 0) return index < c->attrs[i].count ? c->attrs[i].values[index] : def;
  return def;
}

/// How many values an attribute of a dynamic call has (0 when absent).
static inline int attr_count(const skb_call* c, const char* name) {
  for (int i = 0; i < c->num_attrs; ++i)
    if (strcmp(c->attrs[i].name, name) == 0) return c->attrs[i].count;
  return 0;
}

static inline void* alloc_floats(int64_t n) { return malloc((size_t)(n > 0 ? n : 1) * sizeof(float)); }

}  // namespace skb_k

#define SKB_DT_(x) skb_k::dt_##x
#define SKB_DT(x) SKB_DT_(x)
#define SKB_CAT_(a, b) a##b
#define SKB_CAT(a, b) SKB_CAT_(a, b)

#if defined(SKB_STATIC) == defined(SKB_DYNAMIC)
#error "compile with exactly one of -DSKB_STATIC and -DSKB_DYNAMIC"
#endif

// Every template's parameters have `ok`: its shapes and attributes agree with each other. A
// static kernel whose constants contradict each other does not compile; a dynamic one returns
// SKB_KERNEL_BAD_CALL before it touches a buffer.
#ifdef SKB_STATIC
/// Shape of input/output i as a constant expression.
#define SKB_IN_DIMS(i) skb_k::dims(SKB_IN##i##_SHAPE)
#define SKB_OUT_DIMS(i) skb_k::dims(SKB_OUT##i##_SHAPE)
/// Defines the entry point: the parameters are a constant the compiler folds into `run`.
#define SKB_ENTRY(make_static, make_dynamic, run)                                      \
  static_assert(make_static().ok,                                                      \
                "skb: the shapes and attributes of this kernel contradict each other " \
                "(its record should have been refused: see the kernel's .info)");      \
  SKB_EXPORT SKB_CLONES int skb_kernel(const void* const* in, void* const* out) {      \
    static constexpr auto params = make_static();                                      \
    return run(params, in, out);                                                       \
  }
#else
#define SKB_ENTRY(make_static, make_dynamic, run)                                                               \
  SKB_EXPORT SKB_CLONES int skb_kernel_dynamic(const skb_call* call, const void* const* in, void* const* out) { \
    if (!skb_k::call_fits(call, SKB_NUM_INPUTS, SKB_NUM_OUTPUTS)) return SKB_KERNEL_BAD_CALL;                   \
    const auto params = make_dynamic(call);                                                                     \
    if (!params.ok) return SKB_KERNEL_BAD_CALL;                                                                 \
    return run(params, in, out);                                                                                \
  }
#endif
