// dpkit/core/roots.hpp — bracketing root finding that reports, never hides, failure.
//
// A thin wrapper over Boost.Math's TOMS 748 (Alefeld, Potra & Shi 1995), which keeps a
// bracket [lower, upper] with f(lower)·f(upper) ≤ 0 at every step. The wrapper
//   * checks the initial bracket and returns termination_type::failure (with a message)
//     instead of throwing when it does not bracket a root or f returns NaN;
//   * returns the final bracket and the function values at its ends, so that callers can
//     pick the *certified* side (e.g. the ε at which δ(ε) is already ≤ the target);
//   * reports max_iterations when the evaluation budget runs out before the tolerance.
#pragma once

#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"
#include "dpkit/core/result.hpp"
#include "dpkit/core/tolerance.hpp"

namespace dpkit {

struct root_options {
  /// Stop when upper − lower ≤ max(absolute_tolerance, relative_tolerance·min(|lower|,|upper|)).
  /// Default: 4 machine epsilons (tol::kRootRelative).
  double relative_tolerance = tol::kRootRelative;
  /// Default: 0 (purely relative).
  double absolute_tolerance = 0.0;
  /// Maximum number of evaluations of f. Default: 200.
  int max_evaluations = 200;
};

struct root_result : solver_status {
  double root = NAN;   ///< the end of the final bracket with the smaller |f|
  double lower = NAN;  ///< final bracket, lower ≤ upper
  double upper = NAN;
  double f_lower = NAN;  ///< f(lower), f(upper): opposite signs (or one is 0) when converged
  double f_upper = NAN;
};

namespace detail {
struct root_nan_error {
  double x;
};
}  // namespace detail

/// Finds a root of f in [lower, upper]; f(lower) and f(upper) must have opposite signs
/// (or one of them be zero), otherwise the result has termination_type::failure.
/// Exceptions thrown by f propagate.
template <class F>
root_result find_root(F&& f, double lower, double upper, const root_options& options = {}) {
  check_finite("find_root", "lower", lower);
  check_finite("find_root", "upper", upper);
  if (lower > upper) std::swap(lower, upper);
  root_result r;
  int evaluations = 0;
  auto g = [&](double x) {
    // Interpolation can overflow for |f| ≳ 1e150 and propose a NaN abscissa: report, not pass on.
    if (std::isnan(x)) throw detail::root_nan_error{x};
    ++evaluations;
    const double y = f(x);
    if (std::isnan(y)) throw detail::root_nan_error{x};
    return y;
  };
  auto finish = [&](double lo, double hi, double flo, double fhi, termination_type t,
                    std::string message) {
    r.lower = lo;
    r.upper = hi;
    r.f_lower = flo;
    r.f_upper = fhi;
    r.root = std::abs(flo) <= std::abs(fhi) ? lo : hi;
    r.termination = t;
    r.message = std::move(message);
    r.evaluations = evaluations;
    return r;
  };
  try {
    const double f_lo = g(lower);
    if (f_lo == 0) return finish(lower, lower, f_lo, f_lo, termination_type::converged, "");
    const double f_hi = g(upper);
    if (f_hi == 0) return finish(upper, upper, f_hi, f_hi, termination_type::converged, "");
    if ((f_lo > 0) == (f_hi > 0)) {
      return finish(lower, upper, f_lo, f_hi, termination_type::failure,
                    "find_root: [" + format_value(lower) + ", " + format_value(upper) +
                        "] does not bracket a root: f = " + format_value(f_lo) + " and " +
                        format_value(f_hi) + " have the same sign");
    }
    const double rel = options.relative_tolerance, abs_tol = options.absolute_tolerance;
    auto done = [rel, abs_tol](double a, double b) {
      return std::abs(b - a) <= std::max(abs_tol, rel * std::min(std::abs(a), std::abs(b)));
    };
    std::uintmax_t max_iter = static_cast<std::uintmax_t>(std::max(options.max_evaluations - 2, 1));
    const std::pair<double, double> bracket =
        boost::math::tools::toms748_solve(g, lower, upper, f_lo, f_hi, done, max_iter);
    // Boost returns the final bracket but not f at its ends; re-evaluate only new ends.
    const double f_a = bracket.first == lower ? f_lo : g(bracket.first);
    const double f_b = bracket.second == upper ? f_hi : g(bracket.second);
    const bool ok = done(bracket.first, bracket.second) || f_a == 0 || f_b == 0;
    return finish(bracket.first, bracket.second, f_a, f_b,
                  ok ? termination_type::converged : termination_type::max_iterations,
                  ok ? std::string()
                     : "find_root: stopped after " + std::to_string(evaluations) +
                           " evaluations with bracket [" + format_value(bracket.first) + ", " +
                           format_value(bracket.second) + "]");
  } catch (const detail::root_nan_error& e) {
    return finish(lower, upper, NAN, NAN, termination_type::failure,
                  std::isnan(e.x) ? std::string("find_root: the iteration produced a NaN abscissa")
                                  : "find_root: f(" + format_value(e.x) + ") is NaN");
  }
}

/// For f monotone on [lower, ∞): if f(lower) and f(upper) have the same sign, moves `upper`
/// to lower + factor^k·(upper − lower), k = 1, 2, ..., until they differ, then solves.
/// Fails (termination_type::failure) after max_expansions expansions.
template <class F>
root_result find_root_expanding_upward(F&& f,
                                       double lower,
                                       double upper,
                                       const root_options& options = {},
                                       double factor = 2.0,
                                       int max_expansions = 200) {
  check_finite("find_root_expanding_upward", "lower", lower);
  check_greater("find_root_expanding_upward", "upper", upper, lower);
  check_greater("find_root_expanding_upward", "factor", factor, 1.0);
  const double f_lo = f(lower);
  int evaluations = 1;
  double width = upper - lower;
  for (int k = 0; k <= max_expansions; ++k) {
    const double f_hi = f(upper);
    ++evaluations;
    if (std::isnan(f_lo) || std::isnan(f_hi) || (f_lo > 0) != (f_hi > 0) || f_hi == 0 ||
        f_lo == 0) {
      root_result r = find_root(f, lower, upper, options);
      r.evaluations += evaluations;
      return r;
    }
    width *= factor;
    upper = lower + width;
    if (!std::isfinite(upper)) break;
  }
  root_result r;
  r.termination = termination_type::failure;
  r.evaluations = evaluations;
  r.lower = lower;
  r.upper = upper;
  r.message = "find_root_expanding_upward: no sign change up to " + format_value(upper);
  return r;
}

}  // namespace dpkit
