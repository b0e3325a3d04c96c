// fmt's compiled part, built from fmt's own header, for the statically linked installer: Debian
// ships fmt compiled as a shared library only, and the installer links nothing dynamically. The
// programs link that shared library instead. Its `L` format (the locale's digit grouping) groups
// with a comma: std::locale would bring libstdc++'s locale tables into every .run.
#define FMT_STATIC_THOUSANDS_SEPARATOR ','
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
// What fmt/format.h declares extern for its compiled library.
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
