// Internal: outward rounding of computed sums (matrix_mechanism.cpp, matrix_minsep.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace dpkit::accounting::detail {

/// A computed sum of `terms` nonnegative terms (or its square root) moved outward by the rounding
/// error bound of recursive summation, (terms + 2)·u relative, so certified ends stay on their
/// side. A single term is exact.
inline double padded_up(double x, double terms) {
  if (terms <= 1) return x;
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  return std::nextafter(x * (1 + (terms + 2) * u), std::numeric_limits<double>::infinity());
}
inline double padded_down(double x, double terms) {
  if (terms <= 1) return x;
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  return std::max(0.0, x * (1 - (terms + 2) * u));
}

}  // namespace dpkit::accounting::detail
