// Full-batch runs (sampling rate 1) are exactly μ-GDP with μ = c√T/σ, so their ε(δ) and δ(ε)
// are known to 50 digits (data/reference/full_batch_*.csv, data/generators/
// full_batch_reference.py). The PLD accountant answers them by the closed form and calls the
// answer a certified bracket; here the bracket must contain the exact real value on every row
// of a random grid (≥ 300 runs each, μ from 1e-4 to 1e6, δ from 1e-300 to 0.999), compared
// exactly: the reference is stored as a double-double hi + lo, and a double b is ≥ the exact
// value iff b > hi, or b == hi and lo ≤ 0.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

namespace acc = dpkit::accounting;
using dpkit::test::reference_path;

namespace {

bool at_least_exact(double b, double hi, double lo) {
  return b > hi || (b == hi && lo <= 0);
}
bool at_most_exact(double b, double hi, double lo) {
  return b < hi || (b == hi && lo >= 0);
}

acc::training_run full_batch_run(const dpkit::csv_table& t, std::size_t i) {
  acc::training_phase p;
  p.noise_multiplier = t.at(i, "noise_multiplier");
  p.sampling_rate = 1;
  p.sampling = t.at(i, "sensitivity") == 1 ? acc::sampling_scheme::poisson
                                           : acc::sampling_scheme::without_replacement;
  p.steps = static_cast<long long>(t.at(i, "steps"));
  acc::training_run run;
  run.phases.push_back(p);
  return run;
}

}  // namespace

TEST_CASE("full-batch epsilon: the certified bracket contains the exact epsilon (50 digits)",
          "[accounting][pld][certified]") {
  const dpkit::csv_table t = dpkit::read_csv(reference_path("full_batch_epsilon.csv"));
  REQUIRE(t.rows.size() >= 300);
  double widest = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const double delta = t.at(i, "delta");
    const double hi = t.at(i, "epsilon_hi"), lo = t.at(i, "epsilon_lo");
    const acc::training_run run = full_batch_run(t, i);
    const acc::pld_epsilon_result r = acc::pld_epsilon(run, delta);
    INFO(t.where(i) << ": exact " << t.at(i, "epsilon") << ", bracket [" << r.lower << ", "
                    << r.upper << "]");
    REQUIRE(r.converged());
    CHECK(r.kind == dpkit::bound_kind::upper_bound);
    CHECK(r.value == r.upper);
    CHECK(at_least_exact(r.upper, hi, lo));
    CHECK(at_most_exact(r.lower, hi, lo));
    // Tight: ~1e-14 wide where nothing cancels; up to ~1e-8 where the closed form's two terms
    // nearly cancel (μ ≲ 1e-3, deep tails), the price of a proven allowance there.
    if (hi > 0) {
      const double width = (r.upper - r.lower) / hi;
      CHECK(width < (run.gdp_mu() >= 0.01 ? 1e-10 : 1e-7));
      widest = std::max(widest, width);
    }
    // The same through the accountant interface the CLI uses.
    const acc::privacy_estimate e = acc::estimate_epsilon(run, delta, acc::accountant_type::pld);
    CHECK(e.value == r.upper);
    CHECK(e.lower == r.lower);
  }
  WARN("full-batch epsilon brackets: widest relative width " << widest);
}

TEST_CASE("full-batch delta: the certified bracket contains the exact delta (50 digits)",
          "[accounting][pld][certified]") {
  const dpkit::csv_table t = dpkit::read_csv(reference_path("full_batch_delta.csv"));
  REQUIRE(t.rows.size() >= 300);
  int in_range = 0;
  double widest = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const double epsilon = t.at(i, "epsilon");
    const acc::training_run run = full_batch_run(t, i);
    const acc::pld_delta_result r = acc::pld_delta(run, epsilon);
    INFO(t.where(i) << ": exact delta " << t.at(i, "delta") << ", log " << t.at(i, "log_delta")
                    << "; bracket [" << r.lower << ", " << r.upper << "], log upper "
                    << r.log_value);
    REQUIRE(r.converged());
    CHECK(r.value == r.upper);
    // log δ (upper bound) is finite wherever the exact log δ is a double.
    const double log_hi = t.at(i, "log_delta_hi"), log_lo = t.at(i, "log_delta_lo");
    if (!std::isnan(log_hi)) CHECK(at_least_exact(r.log_value, log_hi, log_lo));
    const double hi = t.at(i, "delta_hi"), lo = t.at(i, "delta_lo");
    if (std::isnan(hi)) {  // δ below the normal double range: both ends must be tiny, upper ≥ 0
      CHECK(r.lower <= 2.3e-308);
      CHECK(r.upper >= 0);
      continue;
    }
    ++in_range;
    CHECK(at_least_exact(r.upper, hi, lo));
    CHECK(at_most_exact(r.lower, hi, lo));
    // As for ε: ~1e-13 where nothing cancels, up to ~1e-5 where the two terms of the closed
    // form nearly cancel (μ = 1e-4 at δ ~ 1e-200).
    const double width = (r.upper - r.lower) / hi;
    CHECK(width < (run.gdp_mu() >= 0.01 ? 1e-7 : 1e-5));
    widest = std::max(widest, width);
  }
  CHECK(in_range >= 300);
  WARN("full-batch delta brackets: widest relative width " << widest);
}

TEST_CASE("a full-batch phase at tiny noise beside a Poisson phase: exact epsilon (seeded)",
          "[accounting][pld][certified]") {
  // A full-batch phase's loss is N(μ²/2, μ²) per step, μ = 1/σ: at σ = 3e-78 every loss lies
  // within 1e140 of 5.4e154, and the grid, fitted to that width, put it at lattice index ~2^51;
  // 5 000 such steps overflowed the composed index, and the run beside a Poisson phase read
  // "unavailable" (3 000 steps answered). The exact ε: the composition's ε(δ) lies between the
  // full-batch part's alone, μ_T²/2 + μ_T·z with |z| < 40, μ_T = √T/σ, and that plus the Poisson
  // phase's (< 1e4 here); with σ ≤ 1e-25, both ends are T/(2σ²) to 1e-20 relative, so the
  // bracket must contain T/(2σ²) up to its own rounding (8 ulps of room).
  std::mt19937_64 gen(20261128);
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(gen));
  };
  constexpr double ulp = 0x1p-52;
  for (int i = 0; i < 10; ++i) {
    acc::training_phase full;
    full.noise_multiplier = i == 0 ? 3.05e-78 : log_uniform(1e-100, 1e-25);
    full.sampling_rate = 1;
    full.steps = i == 0 ? 5000 : static_cast<long long>(log_uniform(1e4, 1e7));
    acc::training_phase poisson;
    poisson.noise_multiplier = i == 0 ? 1.0 : log_uniform(0.5, 5);
    poisson.sampling_rate = i == 0 ? 0.01 : log_uniform(1e-3, 0.1);
    poisson.steps = i == 0 ? 100 : static_cast<long long>(log_uniform(1, 1000));
    acc::training_run run;
    run.phases = i % 2 == 0 ? std::vector{full, poisson} : std::vector{poisson, full};
    const double delta = i == 0 ? 1e-5 : log_uniform(1e-12, 1e-2);
    const double exact =
        static_cast<double>(full.steps) / (2 * full.noise_multiplier * full.noise_multiplier);
    const acc::privacy_estimate e = acc::estimate_epsilon(run, delta, acc::accountant_type::pld);
    INFO("case " << i << ": full batch sigma " << full.noise_multiplier << ", T " << full.steps
                 << "; poisson sigma " << poisson.noise_multiplier << ", q "
                 << poisson.sampling_rate << ", T " << poisson.steps << "; delta " << delta
                 << ": exact " << exact << ", bracket [" << e.lower << ", " << e.upper << "] ("
                 << e.message << ")");
    CHECK(e.converged());
    CHECK(e.kind == dpkit::bound_kind::upper_bound);
    CHECK(e.upper >= exact * (1 - 8 * ulp));
    CHECK(e.lower <= exact * (1 + 8 * ulp));
    CHECK(e.upper - e.lower <= 1e-3 * e.upper);
  }
}

TEST_CASE("gdp_log_delta_bounds encloses the point value and widens with the mu interval",
          "[divergence][gdp][certified]") {
  for (double mu : {1e-4, 0.3, 1.0, 4.714, 100.0, 9e5}) {
    for (double z : {-1.0, 0.5, 3.0, 20.0}) {
      const double eps = std::max(0.0, 0.5 * mu * mu + z * mu);
      CAPTURE(mu, eps);
      const auto b = dpkit::divergence::gdp_log_delta_bounds(mu, mu, eps);
      const double v = dpkit::divergence::gdp_log_delta(mu, eps);
      CHECK(b.lower <= v);
      CHECK(v <= b.upper);
      CHECK(b.upper <= 0);
      const auto wide = dpkit::divergence::gdp_log_delta_bounds(mu * 0.99, mu * 1.1, eps);
      CHECK(wide.lower < b.lower);
      CHECK(wide.upper > b.upper);
    }
  }
  CHECK_THROWS_AS(dpkit::divergence::gdp_log_delta_bounds(2.0, 1.0, 0.5), std::domain_error);
}
