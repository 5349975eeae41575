// The one-run statistics of dpkit/audit/canary_scores.hpp: Steinke, Nasr & Jagielski 2023
// (ε from the number of correct membership guesses) and Mahloujifar, Melis & Chaudhuri 2024
// (μ of a Gaussian tradeoff curve from the same counts).
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "dpkit/audit/canary_scores.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"

namespace dpkit::audit {
namespace {

void check_guesses(const char* function,
                   std::size_t m,
                   std::size_t guesses,
                   std::size_t correct) {
  if (guesses > m)
    throw_domain_error(function, "guesses", format_value(static_cast<long long>(guesses)),
                       "<= m (" + format_value(static_cast<long long>(m)) + ", the canaries)");
  if (correct > guesses)
    throw_domain_error(function, "correct", format_value(static_cast<long long>(correct)),
                       "<= guesses (" + format_value(static_cast<long long>(guesses)) + ")");
}

// Largest x in [lo, ∞) with pass(x), for a predicate true on [0, x*) and false after, given
// pass(lo). Doubles an upper end (capped at `cap`, where pass is taken as the answer) and
// bisects to a relative 1e-9; returns the passing end (rounded down).
template <class Pass>
double largest_passing(double lo, double cap, const Pass& pass) {
  double hi = std::max(1.0, 2 * lo);
  while (pass(hi)) {
    lo = hi;
    if (hi >= cap) return cap;
    hi = std::min(cap, 2 * hi);
  }
  for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (pass(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

double one_run_p_value(std::size_t m,
                       std::size_t guesses,
                       std::size_t correct,
                       double epsilon,
                       double delta) {
  constexpr const char* kFunction = "one_run_p_value";
  check_guesses(kFunction, m, guesses, correct);
  check_nonnegative(kFunction, "epsilon", epsilon);
  check_probability(kFunction, "delta", delta);
  if (correct == 0) return 1.0;  // P(W ≥ 0) = 1
  // W ~ Bin(r, q), q = e^ε/(1 + e^ε); the wrong guesses r − W ~ Bin(r, 1 − q) with
  // 1 − q = 1/(1 + e^ε) computed without cancellation, so P(W ≥ v) = P(r − W ≤ r − v) stays
  // accurate where q rounds to 1.
  const double r = static_cast<double>(guesses);
  const double miss = 1 / (1 + std::exp(epsilon));
  if (miss <= 0) return 1.0;  // q = 1 in every representable sense: every guess is right
  const boost::math::binomial_distribution<double> wrong(r, miss);
  const double v = static_cast<double>(correct);
  const double beta = boost::math::cdf(wrong, r - v);
  if (delta == 0) return std::min(beta, 1.0);
  // δ term: max over i = 1..v of P(v − i ≤ W ≤ v − 1)/i. log P(W = j) for j = v − 1, …, 0
  // from lgamma (P(W = v − 1) may underflow while the terms near the mode do not), summed
  // relative to their largest.
  const double log_q = -std::log1p(std::exp(-epsilon));
  const double log_miss = std::log(miss);
  std::vector<double> log_pmf(correct);
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i <= correct; ++i) {
    const double j = v - static_cast<double>(i);
    log_pmf[i - 1] = std::lgamma(r + 1) - std::lgamma(j + 1) - std::lgamma(r - j + 1) +
                     j * log_q + (r - j) * log_miss;
    top = std::max(top, log_pmf[i - 1]);
  }
  double sum = 0, ratio = 0;
  for (std::size_t i = 1; i <= correct; ++i) {
    sum += std::exp(log_pmf[i - 1] - top);
    ratio = std::max(ratio, sum / static_cast<double>(i));
  }
  const double alpha = std::exp(top) * ratio;
  return std::min(1.0, beta + alpha * delta * 2 * static_cast<double>(m));
}

double one_run_epsilon(std::size_t m,
                       std::size_t guesses,
                       std::size_t correct,
                       double confidence,
                       double delta,
                       double at_least) {
  constexpr const char* kFunction = "one_run_epsilon";
  check_guesses(kFunction, m, guesses, correct);
  check_open_probability(kFunction, "confidence", confidence);
  check_probability(kFunction, "delta", delta);
  const double significance = 1 - confidence;
  const auto rejects = [&](double eps) {
    return one_run_p_value(m, guesses, correct, eps, delta) <= significance;
  };
  if (!(at_least >= 0)) at_least = 0;
  if (!rejects(at_least)) return 0;
  // p(ε) → 1 as ε grows (every guess expected right) unless all guesses are right and δ = 0;
  // ε = 1e3 already has 1 − q = e^-1000 = 0 in double: a bound there is as large as any.
  return largest_passing(at_least, 1e3, rejects);
}

double one_run_gdp_mu(std::size_t m,
                      std::size_t guesses,
                      std::size_t correct,
                      double confidence,
                      double at_least) {
  constexpr const char* kFunction = "one_run_gdp_mu";
  check_guesses(kFunction, m, guesses, correct);
  check_open_probability(kFunction, "confidence", confidence);
  if (guesses == 0 || correct == 0) return 0;
  const double significance = 1 - confidence;
  const double md = static_cast<double>(m);
  const double g = static_cast<double>(guesses);
  // Mahloujifar et al. 2024: starting from the expected mass of the worst case at level τ,
  // r (right guesses) and h (wrong ones) are propagated through the inverse of the tradeoff
  // curve's blow-up, x ↦ Φ(Φ⁻¹(x) − μ) for μ-GDP, one correct guess at a time; the claim is
  // rejected when the mass they reach exceeds the guesses' share g/m.
  const auto rejects = [&](double mu) {
    double r = significance * static_cast<double>(correct) / md;
    double h = significance * static_cast<double>(guesses - correct) / md;
    for (std::size_t k = correct; k-- > 0;) {
      const double blown = r >= 1 ? 1.0 : normal_cdf(normal_quantile(r) - mu);
      const double h_new = std::max(h, blown);
      if (h_new == h) break;  // neither r nor h changes again
      const double i = static_cast<double>(k);
      r = std::min(r + i / (g - i) * (h_new - h), 1.0);
      h = h_new;
    }
    return r + h > g / md;
  };
  if (!(at_least >= 0)) at_least = 0;
  if (!rejects(at_least)) return 0;
  // Beyond μ = 40, Φ(Φ⁻¹(x) − μ) underflows for every x < 1: as large a bound as any.
  return largest_passing(at_least, 40, rejects);
}

}  // namespace dpkit::audit
