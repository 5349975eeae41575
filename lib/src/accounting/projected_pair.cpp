// The pair projected lower bounds on correlated-noise mechanisms reduce to
// (detail/projected_pair.hpp).
#include "detail/projected_pair.hpp"

#include <boost/math/distributions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "dpkit/accounting/correlated.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/roots.hpp"

namespace dpkit::accounting::detail {

constexpr double kInf = std::numeric_limits<double>::infinity();

namespace {

// The pair: P₁ = Σ_k b_k N(k, s²) over the window k ∈ [lo, hi] of Bin(n, q), Q₁ = N(0, s²);
// `dropped` is the binomial mass outside the window.
struct projected_pair {
  std::vector<double> log_weight;  // ln b_k, k = lo..hi
  long long lo = 0;
  double s = NAN, dropped = 0;

  // ln dP₁/dQ₁(x) = ln Σ_k b_k exp((kx − k²/2)/s²): increasing in x.
  double loss(double x) const {
    double top = -kInf;
    for (std::size_t j = 0; j < log_weight.size(); ++j) top = std::max(top, term(j, x));
    if (!std::isfinite(top)) return top;
    double sum = 0;
    for (std::size_t j = 0; j < log_weight.size(); ++j) sum += std::exp(term(j, x) - top);
    return top + std::log(sum);
  }
  double term(std::size_t j, double x) const {
    const double k = static_cast<double>(lo + static_cast<long long>(j));
    return log_weight[j] + k * (x - k / 2) / (s * s);
  }
  // ln Σ_k b_k Φ̄((x − k)/s) (upper = true) or ln Σ_k b_k Φ((x − k)/s).
  double log_tail(double x, bool upper) const {
    std::vector<double> t(log_weight.size());
    for (std::size_t j = 0; j < t.size(); ++j) {
      const double z = (x - static_cast<double>(lo + static_cast<long long>(j))) / s;
      t[j] = log_weight[j] + (upper ? normal_lccdf(z) : normal_lcdf(z));
    }
    return log_sum_exp(t);
  }
  // The x with loss(x) = target, or NaN if loss stays above target (target < inf loss).
  double solve(double target) const {
    // As x → −∞ the loss tends to ln b_0 (−∞ when k = 0 is outside the window).
    if (lo == 0 && log_weight.front() >= target) return NAN;
    auto f = [&](double x) { return loss(x) - target; };
    double lo_x = -s, hi_x = s;
    for (int j = 0; f(hi_x) < 0; ++j) {
      if (j > 200) return NAN;
      hi_x *= 2;
    }
    for (int j = 0; f(lo_x) > 0; ++j) {
      if (j > 200) return NAN;
      lo_x *= 2;
    }
    root_options o;
    o.absolute_tolerance = 1e-13 * s;
    return find_root(f, lo_x, hi_x, o).root;
  }
};

projected_pair make_projected_pair(long long n, double r, double s) {
  projected_pair p;
  const double T = static_cast<double>(n);
  p.s = s;
  if (r == 1) {
    p.lo = n;
    p.log_weight = {0.0};
    return p;
  }
  const double mean = r * T, sd = std::sqrt(T * r * (1 - r));
  p.lo = std::max(0LL, static_cast<long long>(std::floor(mean - 40 * sd - 1)));
  const long long hi = std::min(n, static_cast<long long>(std::ceil(mean + 40 * sd + 1)));
  const boost::math::binomial_distribution<double> b(T, r);
  for (long long k = p.lo; k <= hi; ++k)
    p.log_weight.push_back(std::log(boost::math::pdf(b, static_cast<double>(k))));
  p.dropped = binomial_tail(n, r, hi) +
              (p.lo > 0 ? boost::math::cdf(b, static_cast<double>(p.lo - 1)) : 0.0);
  return p;
}

// e^a − e^b from logs a and b computed within `err` each, rounded down: e^{a − err}(1 −
// e^{b − a + 2 err}), 0 where that is not positive. A lower bound on the exact difference.
double lower_difference(double a, double b, double err) {
  const double gap = b - a + 2 * err;
  return gap < 0 ? std::exp(a - err) * -std::expm1(gap) : 0.0;
}

// The rounding allowance of a log tail sum of `terms` terms (or of one tail), absolute:
// (64 + 8·terms)·u·(1 + |x|), u the unit roundoff — well above the few ulps (relative to |x|)
// of normal_lcdf/lccdf and of the binomial weights' logs, and above log_sum_exp's naive sum (at
// most terms·u relative). Without it the difference of two nearly equal tails (σ large: the tails'
// ratio within 1e-5 of 1) could come out above the exact one, and a lower end above the exact ε: a
// DP-λCGD pair at T = 2, q = 0.10, σ = 19.7, δ = 7.8e-273 gave 0.76000550964666924 where the
// exact ε (50 digits) is 0.76000550964663527 (matrix_mmcc_test.cpp).
double log_allowance(double x, std::size_t terms) {
  constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;
  return (64 + 8 * static_cast<double>(terms)) * kUnit * (1 + std::abs(x));
}

// δ₁(ε) of a projected pair, each order a difference of two Gaussian tail sums in log space,
// rounded down (lower_difference): a lower bound on the pair's δ₁(ε) — and at any threshold x,
// not only at the exact root, P₁(A) − e^ε Q₁(A) for A = {x > x̂} is at most H_{e^ε}(P₁‖Q₁).
double projected_pair_delta(const projected_pair& p, double epsilon) {
  // H_{e^ε}(P₁‖Q₁) = P₁(L > ε) − e^ε Q₁(L > ε), {L > ε} = {x > x₊}.
  double forward = 0;
  const double x_plus = p.solve(epsilon);
  if (std::isfinite(x_plus)) {
    const double a = p.log_tail(x_plus, true), b = epsilon + normal_lccdf(x_plus / p.s);
    forward = lower_difference(a, b, log_allowance(a, p.log_weight.size()) + log_allowance(b, 1));
  }
  // H_{e^ε}(Q₁‖P₁) = Q₁(L < −ε) − e^ε P₁(L < −ε), {L < −ε} = {x < x₋}; the window's left-out
  // mass could only have lowered it, by at most e^ε·dropped.
  double backward = 0;
  const double x_minus = p.solve(-epsilon);
  if (std::isfinite(x_minus)) {
    const double a = normal_lcdf(x_minus / p.s), b = epsilon + p.log_tail(x_minus, false);
    backward = lower_difference(a, b, log_allowance(a, 1) + log_allowance(b, p.log_weight.size()));
    backward = std::max(0.0, backward - std::exp(epsilon) * p.dropped);
  }
  return std::max(forward, backward);
}

}  // namespace

double binomial_gaussian_delta(long long n, double q, double s, double epsilon) {
  return projected_pair_delta(make_projected_pair(n, q, s), epsilon);
}

}  // namespace dpkit::accounting::detail
