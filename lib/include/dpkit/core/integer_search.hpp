// dpkit/core/integer_search.hpp — golden-section search over the integers of [lo, hi], for a
// function of an integer that is unimodal (or nearly so): the bracket it narrows to, which the
// caller then scans. Used where a bound is minimised over a step index τ (shifted/interpolation,
// shifted/noisy_sgd) and one evaluation can cost a whole accountant run.
//
// Written here rather than taken from Boost: boost::math::tools::brent_find_minima (used for
// the real-valued searches) minimises over the reals, and on f(round(x)) — a step function —
// its parabolic steps stall on flat pieces and can settle on a non-integer abscissa; Boost has
// no integer minimiser.
#pragma once

#include <cmath>
#include <utility>

namespace dpkit {

/// Narrows [lo, hi] by golden-section steps on the integers while it is wider than 4, keeping
/// the side of the smaller value (ties keep the left), and returns the final bracket [a, b]
/// (b − a ≤ 4). f(k) is called only at integers inside [lo, hi]; a point may be asked for more
/// than once (cache in f where an evaluation is costly). For a unimodal f, the minimiser over
/// the integers of [lo, hi] lies in the bracket. f may be +∞ where it cannot be evaluated (a
/// refused τ) on a prefix or a suffix of [lo, hi], finite and unimodal on the rest: a tie at +∞
/// then keeps the side whose end is finite (keeping the left once narrowed onto a run of +∞
/// while the finite values lay to the right).
template <class F>
std::pair<long long, long long> golden_section_bracket(F&& f, long long lo, long long hi) {
  constexpr double inverse_golden_ratio = 0.6180339887498949;
  auto step = [&](long long a, long long b) {
    return static_cast<long long>(std::llround(inverse_golden_ratio * static_cast<double>(b - a)));
  };
  long long a = lo, b = hi;
  int finite_right = -1;  // whether the finite part lies right: asked once, at the first +∞ tie
  while (b - a > 4) {
    const long long c = b - step(a, b);
    long long d = a + step(a, b);
    if (c >= d) d = c + 1;
    const double fc = f(c), fd = f(d);
    const bool tie_at_inf = fc == fd && std::isinf(fc) && fc > 0;
    if (tie_at_inf && finite_right < 0)
      finite_right =
          std::isfinite(static_cast<double>(f(hi))) && !std::isfinite(static_cast<double>(f(lo)))
              ? 1
              : 0;
    const bool right = tie_at_inf ? finite_right == 1 : !(fc <= fd);
    if (right)
      a = c;
    else
      b = d;
  }
  return {a, b};
}

}  // namespace dpkit
