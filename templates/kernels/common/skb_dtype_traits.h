// What the host and the CUDA templates ask of a dtype at compile time.
#pragma once
#include <stdint.h>

namespace skb_geom {

/// Whether T is an integer dtype: integer ops compute exactly, not in float.
template <class T>
struct IsInt {
  static constexpr bool value = false;
};
template <>
struct IsInt<int32_t> {
  static constexpr bool value = true;
};
template <>
struct IsInt<int64_t> {
  static constexpr bool value = true;
};

/// Whether A and B are one type (a template's dtypes: float16 operands alike, float ones).
template <class A, class B>
struct Same {
  static constexpr bool value = false;
};
template <class A>
struct Same<A, A> {
  static constexpr bool value = true;
};

}  // namespace skb_geom
