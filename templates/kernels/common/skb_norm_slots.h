// The slots of LayerNorm (x, gamma, beta → y, mean, variance) and RmsNorm (x, gamma → y, rstd),
// as the host and the CUDA norm templates type them: which of the optional ones a kernel has
// (SKB_HAS_BETA, SKB_HAS_STAT1, SKB_HAS_STAT2), each one's dtype, and a static kernel's
// defaults. Needs SKB_DT (the
// template's own header) and the kernel's -D macros.
#pragma once

typedef SKB_DT(SKB_IN0_DTYPE) TX;
typedef SKB_DT(SKB_IN1_DTYPE) TG;
typedef SKB_DT(SKB_OUT0_DTYPE) TY;
#if SKB_NUM_INPUTS > 2 && !defined(SKB_IN2_NULL)
#define SKB_HAS_BETA 1
typedef SKB_DT(SKB_IN2_DTYPE) TBeta;
#else
#define SKB_HAS_BETA 0
typedef float TBeta;
#endif
#if SKB_NUM_OUTPUTS > 1 && !defined(SKB_OUT1_NULL)
#define SKB_HAS_STAT1 1
typedef SKB_DT(SKB_OUT1_DTYPE) TS1;
#else
#define SKB_HAS_STAT1 0
typedef float TS1;
#endif
#if SKB_NUM_OUTPUTS > 2 && !defined(SKB_OUT2_NULL)
#define SKB_HAS_STAT2 1
typedef SKB_DT(SKB_OUT2_DTYPE) TS2;
#else
#define SKB_HAS_STAT2 0
typedef float TS2;
#endif

// A static kernel's attributes where its record has none, and the shapes of its optional slots.
#ifdef SKB_STATIC
#ifndef SKB_ATTR_begin_norm_axis
#define SKB_ATTR_begin_norm_axis 0
#endif
#ifndef SKB_ATTR_epsilon
#define SKB_ATTR_epsilon (SKB_OP == LayerNorm ? 1e-7 : 1e-6)
#endif
#if SKB_HAS_BETA
#define SKB_BETA_DIMS SKB_IN_DIMS(2)
#else
#define SKB_BETA_DIMS skb_geom::dims()
#endif
#if SKB_HAS_STAT1
#define SKB_STAT1_DIMS SKB_OUT_DIMS(1)
#else
#define SKB_STAT1_DIMS skb_geom::dims()
#endif
#if SKB_HAS_STAT2
#define SKB_STAT2_DIMS SKB_OUT_DIMS(2)
#else
#define SKB_STAT2_DIMS skb_geom::dims()
#endif
#endif
