// One-run auditing (Steinke, Nasr & Jagielski 2023; Mahloujifar, Melis & Chaudhuri 2024):
// closed forms of the binomial tail, a direct long-double evaluation of the δ term, and
// coverage on simulated one-run mechanisms whose ε (or μ) is known exactly:
//
//   * randomized response per canary: canary i's score is its inclusion bit b_i, flipped with
//     probability 1/(1 + e^ε) — exactly ε-DP in each canary (δ = 0);
//   * a Gaussian score per canary, μ·b_i + N(0, 1), independent across canaries — exactly
//     μ-GDP in each canary, hence (ε_μ(δ), δ)-DP with ε_μ(δ) = divergence::gdp_epsilon.
//
// Allowances are fixed from the binomial law of the number of failures before any run: at
// confidence 0.95 a sound lower bound exceeds the truth in at most 5 % of seeds; over 200
// seeds, more than 20 exceedances has probability < 0.2 % for a sound method.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <cstddef>
#include <vector>

#include "dpkit/audit/canary_scores.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/divergence/gdp.hpp"

using Catch::Matchers::WithinRel;
namespace audit = dpkit::audit;

namespace {

// P(v − i ≤ W ≤ v − 1) for W ~ Bin(r, q), by direct summation of the pmf in long double.
long double binomial_range(std::size_t r, long double q, std::size_t from, std::size_t to) {
  long double sum = 0;
  for (std::size_t j = from; j <= to; ++j) {
    const long double log_choose = std::lgamma(static_cast<long double>(r) + 1) -
                                   std::lgamma(static_cast<long double>(j) + 1) -
                                   std::lgamma(static_cast<long double>(r - j) + 1);
    sum += std::exp(log_choose + static_cast<long double>(j) * std::log(q) +
                    static_cast<long double>(r - j) * std::log1p(-q));
  }
  return sum;
}

}  // namespace

TEST_CASE("one-run p-value: the binomial tail in closed form", "[audit][one_run]") {
  // Every guess right: P(W ≥ r) = q^r.
  for (const double eps : {0.0, 0.5, 2.0, 8.0}) {
    const double q = 1 / (1 + std::exp(-eps));
    CHECK_THAT(audit::one_run_p_value(100, 10, 10, eps, 0), WithinRel(std::pow(q, 10), 1e-12));
  }
  // No correct guess: p = 1.
  CHECK(audit::one_run_p_value(100, 10, 0, 1.0, 1e-3) == 1.0);
}

TEST_CASE("one-run p-value: the delta term against a direct sum", "[audit][one_run]") {
  const std::size_t m = 1000, r = 60, v = 50;
  for (const double eps : {0.5, 1.5, 4.0}) {
    for (const double delta : {1e-6, 1e-4}) {
      const long double q = 1 / (1 + std::exp(-static_cast<long double>(eps)));
      const long double beta = binomial_range(r, q, v, r);
      long double alpha = 0;
      for (std::size_t i = 1; i <= v; ++i)
        alpha = std::max(alpha, binomial_range(r, q, v - i, v - 1) / static_cast<long double>(i));
      const long double expected = std::min<long double>(1, beta + alpha * delta * 2 * m);
      CHECK_THAT(audit::one_run_p_value(m, r, v, eps, delta),
                 WithinRel(static_cast<double>(expected), 1e-10));
    }
  }
}

TEST_CASE("one-run epsilon: the closed form when every guess is right", "[audit][one_run]") {
  // δ = 0 and v = r: p(ε) = q^r = 1 − confidence ⇔ q = (1 − c)^{1/r}, ε = logit(q).
  for (const std::size_t r : {5u, 40u, 500u}) {
    const double c = 0.95;
    const double q = std::pow(1 - c, 1.0 / static_cast<double>(r));
    const double expected = std::log(q / (1 - q));
    CHECK_THAT(audit::one_run_epsilon(1000, r, r, c, 0), WithinRel(expected, 1e-8));
  }
  // Half the guesses right is no evidence at all.
  CHECK(audit::one_run_epsilon(1000, 100, 50, 0.95, 1e-5) == 0);
  CHECK(audit::one_run_gdp_mu(1000, 100, 50, 0.95) == 0);
}

TEST_CASE("one-run bounds are monotone in the evidence", "[audit][one_run]") {
  // More correct guesses among the same number can only raise the bound; a smaller confidence
  // too; a larger delta can only lower it.
  double previous_eps = 0, previous_mu = 0;
  for (std::size_t v = 50; v <= 100; v += 5) {
    const double eps = audit::one_run_epsilon(1000, 100, v, 0.95, 1e-5);
    const double mu = audit::one_run_gdp_mu(1000, 100, v, 0.95);
    CHECK(eps >= previous_eps);
    CHECK(mu >= previous_mu);
    previous_eps = eps;
    previous_mu = mu;
  }
  CHECK(audit::one_run_epsilon(1000, 100, 90, 0.9, 1e-5) >=
        audit::one_run_epsilon(1000, 100, 90, 0.99, 1e-5));
  CHECK(audit::one_run_epsilon(1000, 100, 90, 0.95, 1e-2) <=
        audit::one_run_epsilon(1000, 100, 90, 0.95, 1e-8));
}

TEST_CASE("one-run epsilon: coverage and power on randomized response", "[audit][one_run]") {
  // ε-DP exactly, δ = 0; the canaries scoring 1 are guessed in, so the bound is sound
  // at 0.95 and its median should come within the binomial spread of ε: with m = 1000,
  // ε = 1 (q = 0.731), about 500 guesses (sd of the precision 0.02): the one-sided 95 % lower
  // limit is about 0.731 − 1.645·0.02 = 0.70, logit 0.85 — the median bound is asserted ≥ 0.7.
  const double eps = 1.0, flip = 1 / (1 + std::exp(eps));
  const std::size_t m = 1000, seeds = 200;
  std::size_t exceed = 0;
  std::vector<double> bounds;
  for (std::size_t seed = 0; seed < seeds; ++seed) {
    dpkit::random_stream rng(20261126, seed, 0);
    std::vector<double> in, out;
    for (std::size_t i = 0; i < m; ++i) {
      const bool member = rng.bernoulli(0.5);
      const bool flipped = rng.bernoulli(flip);
      (member ? in : out).push_back((member != flipped) ? 1.0 : 0.0);
    }
    // The one-sided statistic (k₋ = 0): the canaries scoring 1 are the guesses.
    const audit::score_counts c = audit::count_scores(in, out);
    std::size_t j = 0;
    while (c.thresholds[j] < 1) ++j;
    const double bound = audit::one_run_epsilon(m, c.true_positives[j] + c.false_positives[j],
                                                c.true_positives[j], 0.95, 0);
    bounds.push_back(bound);
    exceed += bound > eps ? 1 : 0;
  }
  CHECK(exceed <= 20);
  std::nth_element(bounds.begin(), bounds.begin() + seeds / 2, bounds.end());
  CHECK(bounds[seeds / 2] >= 0.7);
}

TEST_CASE("one-run bounds: coverage on a Gaussian score per canary", "[audit][one_run]") {
  // μ-GDP in each canary; the audit with the 100 highest scores guessed in (fixed before the
  // scores). The one-run ε must stay below ε_μ(δ), the one-run f-DP μ_lower below μ, each in
  // all but at most 20 of 200 seeds (see the header).
  const double mu = 2.0, delta = 1e-5;
  const double exact = dpkit::divergence::gdp_epsilon(mu, delta).upper;
  const std::size_t m = 1000, seeds = 200;
  std::size_t exceed_eps = 0, exceed_mu = 0;
  std::vector<double> mus;
  for (std::size_t seed = 0; seed < seeds; ++seed) {
    dpkit::random_stream rng(20261127, seed, 0);
    std::vector<double> in, out;
    for (std::size_t i = 0; i < m; ++i) {
      const bool member = rng.bernoulli(0.5);
      (member ? in : out).push_back((member ? mu : 0.0) + rng.normal());
    }
    // The 100 highest scores guessed in (continuous scores: no ties at the cut).
    std::vector<std::pair<double, bool>> all;
    for (const double x : in) all.emplace_back(x, true);
    for (const double x : out) all.emplace_back(x, false);
    std::nth_element(all.begin(), all.begin() + 99, all.end(), std::greater<>());
    std::size_t correct = 0;
    for (std::size_t k = 0; k < 100; ++k) correct += all[k].second ? 1 : 0;
    exceed_eps += audit::one_run_epsilon(m, 100, correct, 0.95, delta) > exact ? 1 : 0;
    const double mu_lower = audit::one_run_gdp_mu(m, 100, correct, 0.95);
    exceed_mu += mu_lower > mu ? 1 : 0;
    mus.push_back(mu_lower);
  }
  CHECK(exceed_eps <= 20);
  CHECK(exceed_mu <= 20);
  // Power, argued before the run: 100 guesses at the top of 1000 scores are right with
  // probability ≈ 0.99 (Φ-tails at μ = 2), so the f-DP bound must find a clearly positive μ.
  std::nth_element(mus.begin(), mus.begin() + seeds / 2, mus.end());
  CHECK(mus[seeds / 2] > 0.5);
}
