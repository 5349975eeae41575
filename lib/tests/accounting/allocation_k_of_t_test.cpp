// Random allocation of k of t steps per epoch (training_phase::selected > 1): the certified
// bracket against the sampler's own Monte Carlo, its properties over a seeded sweep of the
// accepted domain, the units, and calibration.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/random_allocation.hpp"
#include "dpkit/accounting/run_units.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/runs.hpp"

namespace acc = dpkit::accounting;
using dpkit::test::run_of;

namespace {
acc::training_phase k_of_t(double sigma, long long t, long long k, long long steps) {
  acc::training_phase p;
  p.noise_multiplier = sigma;
  p.sampling_rate = static_cast<double>(k) / static_cast<double>(t);
  p.sampling = acc::sampling_scheme::random_allocation;
  p.steps = steps;
  p.selected = k;
  return p;
}

// log e_k(y) / C(t, k) for positive y (the elementary symmetric polynomial by the usual
// recursion e_j ← e_j + y_i e_{j−1}, scaled per step to stay in range).
double log_u_statistic(const std::vector<double>& y, int k) {
  const auto t = static_cast<int>(y.size());
  std::vector<double> e(static_cast<std::size_t>(k) + 1, 0.0);
  e[0] = 1;
  double log_scale = 0;
  for (int i = 0; i < t; ++i) {
    for (int j = std::min(k, i + 1); j >= 1; --j)
      e[static_cast<std::size_t>(j)] += y[static_cast<std::size_t>(i)] *
                                        e[static_cast<std::size_t>(j) - 1];
    const double top = *std::max_element(e.begin(), e.end());
    for (double& v : e) v /= top;
    log_scale += std::log(top);
  }
  double log_binom = std::lgamma(t + 1.0) - std::lgamma(k + 1.0) - std::lgamma(t - k + 1.0);
  return std::log(e[static_cast<std::size_t>(k)]) + log_scale - log_binom;
}
}  // namespace

TEST_CASE("k of t: the bracket holds the sampler's own profile, both directions (Monte Carlo)",
          "[accounting][allocation]") {
  // The exact privacy loss of E epochs of the k-of-t sampler: per epoch a uniform k-set A,
  // Z ~ N(μ1_A, I_t) (with the example) or N(0, I_t) (without), W = e_k(Y)/C(t, k) with
  // Y_j = e^{μZ_j − μ²/2}. Remove: δ(ε) = E_P[(1 − e^{ε − log W})₊]; add: δ(ε) =
  // E_Q[(1 − e^{ε} W)₊]; 100 000 draws each (standard error SE). The certified upper end may not
  // fall below either direction's MC − 4 SE, the certified lower end may not exceed the larger
  // MC + 4 SE (each fails by chance with probability ~3e-5). Sizes and allowances fixed before
  // the data; seed fixed.
  struct setting {
    double sigma;
    int t, k, epochs;
  };
  for (const setting s : {setting{1.0, 6, 2, 2}, setting{0.7, 9, 4, 1}, setting{2.0, 5, 3, 3}}) {
    const double mu = 1 / s.sigma;
    constexpr int n = 100000;
    dpkit::random_stream rng(20261126, static_cast<std::uint64_t>(s.t * 10 + s.k), 0);
    std::vector<double> remove(n), add(n);
    std::vector<double> y(static_cast<std::size_t>(s.t));
    std::vector<int> order(static_cast<std::size_t>(s.t));
    for (int i = 0; i < n; ++i) {
      for (int side = 0; side < 2; ++side) {
        double total = 0;
        for (int e = 0; e < s.epochs; ++e) {
          // A uniform k-set: the first k of a uniform permutation (Fisher–Yates).
          for (int j = 0; j < s.t; ++j) order[static_cast<std::size_t>(j)] = j;
          for (int j = s.t - 1; j > 0; --j)
            std::swap(order[static_cast<std::size_t>(j)],
                      order[rng.below(static_cast<std::uint64_t>(j) + 1)]);
          std::vector<bool> in(static_cast<std::size_t>(s.t), false);
          if (side == 0)
            for (int j = 0; j < s.k; ++j) in[static_cast<std::size_t>(order[j])] = true;
          for (int j = 0; j < s.t; ++j) {
            const double z = rng.normal() + (in[static_cast<std::size_t>(j)] ? mu : 0.0);
            y[static_cast<std::size_t>(j)] = std::exp(mu * z - 0.5 * mu * mu);
          }
          total += log_u_statistic(y, s.k);
        }
        (side == 0 ? remove : add)[static_cast<std::size_t>(i)] = total;
      }
    }
    const acc::training_phase p = k_of_t(s.sigma, s.t, s.k, static_cast<long long>(s.t) * s.epochs);
    for (double eps : {0.0, 0.5, 1.0, 2.0}) {
      double sr = 0, sr2 = 0, sa = 0, sa2 = 0;
      for (int i = 0; i < n; ++i) {
        const double r = std::max(0.0, -std::expm1(eps - remove[static_cast<std::size_t>(i)]));
        const double a = std::max(0.0, 1 - std::exp(eps + add[static_cast<std::size_t>(i)]));
        sr += r;
        sr2 += r * r;
        sa += a;
        sa2 += a * a;
      }
      const double mr = sr / n, ma = sa / n;
      const double ser = std::sqrt(std::max(0.0, sr2 / n - mr * mr) / n);
      const double sea = std::sqrt(std::max(0.0, sa2 / n - ma * ma) / n);
      const acc::allocation_bracket b = acc::allocation_delta(p, eps);
      CAPTURE(s.sigma, s.t, s.k, s.epochs, eps, mr, ser, ma, sea, b.lower, b.upper, b.route);
      CHECK(b.upper >= mr - 4 * ser);
      CHECK(b.upper >= ma - 4 * sea);
      CHECK(b.lower <= std::max(mr + 4 * ser, ma + 4 * sea));
      CHECK(b.lower > 0);
    }
  }
}

TEST_CASE("k of t: over a seeded sweep the ends are ordered, consistent and monotone",
          "[accounting][allocation]") {
  // σ log-uniform in [0.3, 10], t in [3, 1000], k in [2, min(t − 1, 20)], T in [1, 5t] (partial
  // epochs included), δ log-uniform in [1e-10, 1e-3]. Every case: lower ≤ upper; the epoch sums'
  // Gaussian (computed here from its definition) is ≤ the upper end; the δ query's certified
  // ends are consistent with the ε query's (δ's lower end at the upper ε is ≤ δ, δ's upper end
  // at the lower ε is ≥ δ); a σ 10 % larger has no larger upper end (within the accuracy asked,
  // 0.1 %); the RDP bound is above the PLD lower end.
  dpkit::random_stream rng(20261126, 47, 0);
  for (int c = 0; c < 12; ++c) {
    const double sigma = std::exp(std::log(0.3) + rng.uniform() * std::log(10 / 0.3));
    const auto t =
        static_cast<long long>(std::exp(std::log(3.0) + rng.uniform() * std::log(1000.0 / 3)));
    const long long kmax = std::min<long long>(t - 1, 20);
    if (kmax < 2) continue;
    const long long k = 2 + static_cast<long long>(rng.below(static_cast<std::uint64_t>(kmax - 1)));
    const long long steps = 1 + static_cast<long long>(rng.below(static_cast<std::uint64_t>(5 * t)));
    const double delta = std::exp(std::log(1e-10) + rng.uniform() * std::log(1e7));
    const acc::training_phase p = k_of_t(sigma, t, k, steps);
    const acc::allocation_bracket b = acc::allocation_epsilon(p, delta);
    CAPTURE(c, sigma, t, k, steps, delta, b.lower, b.upper, b.route, b.message);
    REQUIRE(std::isfinite(b.upper));
    CHECK(b.lower <= b.upper);
    CHECK(b.steps_per_epoch == t);
    const long long complete = steps / t;
    if (complete > 0) {
      const double mu = static_cast<double>(k) * std::sqrt(static_cast<double>(complete)) /
                        (sigma * std::sqrt(static_cast<double>(t)));
      CHECK(dpkit::divergence::gdp_epsilon(mu, delta).lower <= b.upper);
      CHECK(b.lower > 0);
    }
    const acc::allocation_bracket at_upper = acc::allocation_delta(p, b.upper);
    CHECK(at_upper.lower <= delta);
    if (b.lower > 0) CHECK(acc::allocation_delta(p, b.lower).upper >= delta);
    acc::training_phase noisier = p;
    noisier.noise_multiplier = 1.1 * sigma;
    CHECK(acc::allocation_epsilon(noisier, delta).upper <= b.upper * (1 + 1e-3));
    const acc::privacy_estimate rdp =
        acc::estimate_epsilon(run_of(p), delta, acc::accountant_type::rdp);
    CHECK(rdp.upper >= b.lower);
  }
}

TEST_CASE("k of t: the routes, the edges and the refusals", "[accounting][allocation]") {
  SECTION("2 of 100 through the composition route is 1 of 50 twice per epoch") {
    // 2 of 100 steps through the composition route is 1 of 50 composed twice per epoch: the same
    // laws as k = 1 at q = 1/50 over twice the steps — the upper ends agree.
    acc::training_phase one = k_of_t(1.0, 50, 1, 200);
    const acc::allocation_bracket single = acc::allocation_epsilon(one, 1e-5);
    const acc::allocation_bracket two = acc::allocation_epsilon(k_of_t(1.0, 100, 2, 200), 1e-5);
    CHECK(two.upper <= single.upper * (1 + 1e-3));
    CHECK(two.upper >= single.lower);
  }
  SECTION("t = ceil(k/q), from a rate or from counts") {
    acc::phase_units u;
    u.noise_multiplier = 1.0;
    u.sampling = acc::sampling_scheme::random_allocation;
    u.selected = 4;
    u.sampling_rate = 0.04;
    u.epochs = 3.0;
    acc::phase_derivation d = acc::derive_phase(u);
    CHECK(d.batches_per_epoch == 100);
    CHECK(d.phase.steps == 300);
    CHECK(d.phase.selected == 4);
    u.sampling_rate.reset();
    u.batch_size = 30;  // average batch kN/t = 30 of N = 1000: t = ceil(4000/30) = 134
    u.dataset_size = 1000;
    d = acc::derive_phase(u);
    CHECK(d.batches_per_epoch == 134);
    CHECK(d.phase.steps_per_epoch == 134);
    CHECK(d.phase.steps == 402);
    CHECK(acc::allocation_steps_per_epoch(2.0 / 7.0, 2) == 7);
    CHECK(acc::allocation_steps_per_epoch(0.3, 2) == 7);
  }
  SECTION("selected only with random allocation, and below t") {
    acc::phase_units u;
    u.noise_multiplier = 1.0;
    u.sampling_rate = 0.1;
    u.steps = 10;
    u.selected = 2;
    try {
      (void)acc::derive_phase(u);
      FAIL("selected with Poisson sampling was accepted");
    } catch (const acc::units_error& e) {
      CHECK(e.rule() == acc::units_rule::selected_unused);
      CHECK(e.name() == "selected");
    }
    acc::training_phase p = k_of_t(1.0, 10, 2, 10);
    p.steps_per_epoch = 2;  // t = 2 = k, but q = 0.2 is not k/t: refused
    CHECK_THROWS_AS(acc::allocation_epsilon(p, 1e-5), std::domain_error);
    p = k_of_t(1.0, 10, 2, 10);
    p.sampling_rate = 1;  // every step: the Gaussian mechanism
    CHECK_THROWS_AS(acc::allocation_epsilon(p, 1e-5), std::domain_error);
    // Neither upper route: 2e8 allocations to compose (k·epochs > 1e8) and μ√k = 47 > 40 for
    // the convex order. Every query refuses, naming selected — the upper end alone included
    // (it returned NaN until 2026-11-26).
    p = k_of_t(0.03, 4, 2, 400000000);
    for (const auto& query :
         {std::function<void()>([&] { (void)acc::allocation_epsilon(p, 1e-5); }),
          std::function<void()>([&] { (void)acc::allocation_epsilon_upper(p, 1e-5); }),
          std::function<void()>([&] { (void)acc::allocation_delta(p, 1.0); })})
      CHECK_THROWS_WITH(query(), Catch::Matchers::Contains("selected") &&
                                     Catch::Matchers::Contains("neither upper-bound route"));
  }
  SECTION("one partial epoch used with probability k r / t <= delta: epsilon = 0") {
    const acc::allocation_bracket b = acc::allocation_epsilon(k_of_t(1.0, 10000, 2, 2), 1e-3);
    CHECK(b.upper == 0);
    CHECK(b.lower == 0);
  }
}

TEST_CASE("k of t: calibration returns a sigma whose certified upper end holds the budget",
          "[accounting][allocation]") {
  acc::training_run run = run_of(k_of_t(1.0, 100, 4, 1000));
  acc::calibration_options o;
  const acc::noise_calibration c = acc::calibrate_noise_multiplier(run, 2.0, 1e-5, o);
  CAPTURE(c.noise_multiplier, c.estimate.upper, c.estimate.lower, c.message);
  CHECK(c.estimate.upper <= 2.0);
  CHECK(c.estimate.upper >= 2.0 * (1 - 2 * o.budget_tolerance));
  run.phases.front().noise_multiplier = c.noise_multiplier * (1 - 3 * o.relative_tolerance);
  CHECK(acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld).upper > 2.0 * (1 - 1e-3));
  CHECK(c.message.find("k of t") != std::string::npos);
}
