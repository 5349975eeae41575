#include "dpkit/accounting/pld.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

namespace acc = dpkit::accounting;
namespace ss = dpkit::subsampling;

namespace {
struct bracket {
  acc::composed_pld pessimistic, optimistic;
};

bracket compose_gaussian(double mu, long long steps, double h) {
  auto loss = ss::gaussian_loss(mu);
  auto both = acc::discretize_both(*loss, h, 1e-14);
  acc::pld_factor fp{&both.first, steps}, fo{&both.second, steps};
  return {acc::compose({&fp, 1}, 1e-12, 1 << 22), acc::compose({&fo, 1}, 1e-12, 1 << 22)};
}
}  // namespace

TEST_CASE("composed Gaussian PLD brackets the exact GDP profile", "[accounting][pld]") {
  // T-fold composition of G(μ) is exactly G(√T μ) (BSA24 eq. (3.4)): an exact reference.
  // T = 1e5 exercises the round-off bounds where the c-fold power amplifies FFT errors most.
  // The closed form's own certified bracket [ε_lower, ε_upper] must lie inside the PLD's.
  for (auto [mu, steps] : {std::pair{0.5, 1LL}, std::pair{0.1, 100LL}, std::pair{0.02, 10000LL},
                           std::pair{0.004, 100000LL}}) {
    const double total = mu * std::sqrt(static_cast<double>(steps));
    const bracket b = compose_gaussian(mu, steps, mu / 40);
    for (double delta : {1e-3, 1e-6, 1e-9}) {
      CAPTURE(mu, steps, delta);
      const auto exact = dpkit::divergence::gdp_epsilon(total, delta);
      CHECK(b.optimistic.epsilon(delta) <= exact.lower);
      CHECK(exact.upper <= b.pessimistic.epsilon(delta));
    }
    for (double eps : {0.0, 0.5, 2.0}) {
      CAPTURE(mu, steps, eps);
      const double exact = dpkit::divergence::gdp_delta(total, eps);
      CHECK(b.optimistic.delta(eps) <= exact);
      CHECK(exact <= b.pessimistic.delta(eps));
    }
  }
}

TEST_CASE("where the exact epsilon is 0 the lower bound is 0", "[accounting][pld][certified]") {
  // G(0.01)^⊗100 = G(0.1), δ(0) = 2Φ(0.05) − 1 ≈ 0.04: at δ ≥ δ(0) the exact ε is 0, and the
  // optimistic side must not claim more (it once returned the first positive grid point).
  const bracket b = compose_gaussian(0.01, 100, 0.01 / 40);
  const double delta0 = dpkit::divergence::gdp_delta(0.1, 0.0);
  // Above P(S > 0) ≈ Φ(0.05) = 0.52 the sweep reaches the lowest positive grid point with every
  // remaining bound below δ: the branch that once returned that point.
  for (double delta : {delta0 * 1.01, 0.2, 0.6, 0.9, 0.99}) {
    CAPTURE(delta);
    CHECK(b.optimistic.epsilon(delta) == 0.0);
    CHECK(b.pessimistic.epsilon(delta) >= 0.0);
    CHECK(b.pessimistic.epsilon(delta) <= 2 * 0.01 / 40);  // within a grid step of the truth
  }
}

TEST_CASE("tilted compositions bracket tiny delta tightly", "[accounting][pld]") {
  // Without a tilt, FFT round-off (~1e-16 of the peak per point) swamps δ ≲ 1e-10; with the
  // query's focus the bracket stays as narrow as at large δ. Exact reference: G(√T μ) = G(2).
  const double mu = 0.2, h = 5e-4;
  const long long steps = 100;
  const double total = mu * std::sqrt(static_cast<double>(steps));
  auto loss = ss::gaussian_loss(mu);
  auto both = acc::discretize_both(*loss, h, 1e-20);
  acc::pld_factor fp{&both.first, steps}, fo{&both.second, steps};
  const auto plain_up = acc::compose({&fp, 1}, 1e-20, 1 << 22);
  const auto plain_lo = acc::compose({&fo, 1}, 1e-20, 1 << 22);
  for (double delta : {1e-12, 1e-14}) {
    acc::compose_focus focus;
    focus.delta = delta;
    const auto up = acc::compose({&fp, 1}, 1e-20, 1 << 22, focus);
    const auto lo = acc::compose({&fo, 1}, 1e-20, 1 << 22, focus);
    const double exact = dpkit::divergence::gdp_epsilon(total, delta).value;
    const double gap = up.epsilon(delta) - lo.epsilon(delta);
    const double plain_gap = plain_up.epsilon(delta) - plain_lo.epsilon(delta);
    CAPTURE(delta, lo.epsilon(delta), exact, up.epsilon(delta), up.tilt, plain_gap);
    CHECK(up.tilt > 0);
    CHECK(lo.epsilon(delta) <= exact);
    CHECK(exact <= up.epsilon(delta));
    CHECK(gap < 2e-5 * exact);  // measured 5e-6 and 7e-6
    CHECK(plain_gap > 100 * gap);
  }
  for (double eps : {15.6, 16.9}) {  // δ ≈ 1e-12 and 1e-14
    acc::compose_focus focus;
    focus.epsilon = eps;
    const auto up = acc::compose({&fp, 1}, 1e-20, 1 << 22, focus);
    const auto lo = acc::compose({&fo, 1}, 1e-20, 1 << 22, focus);
    const double exact = dpkit::divergence::gdp_delta(total, eps);
    CAPTURE(eps, lo.delta(eps), exact, up.delta(eps));
    CHECK(lo.delta(eps) <= exact);
    CHECK(exact <= up.delta(eps));
    CHECK(up.delta(eps) - lo.delta(eps) < 1e-3 * exact);
  }
}

TEST_CASE("both sides converge at second order in the grid spacing", "[accounting][pld]") {
  // Gap ε_upper − ε_lower ∝ h² (docs/accounting.md): halving h divides it by ≈ 4.
  const double mu = 0.1, delta = 1e-5;
  double previous = NAN;
  for (double h : {0.004, 0.002, 0.001}) {
    const bracket b = compose_gaussian(mu, 100, h);
    const double gap = b.pessimistic.epsilon(delta) - b.optimistic.epsilon(delta);
    CAPTURE(h, gap);
    CHECK(gap > 0);
    if (!std::isnan(previous)) {
      const double order = std::log2(previous / gap);
      CAPTURE(order);
      CHECK(order > 1.7);
      CHECK(order < 2.4);
    }
    previous = gap;
  }
}

TEST_CASE("the optimistic side rounds at second order where the density varies within a cell",
          "[accounting][pld]") {
  // The optimistic side is a contraction of X = e^{−Y} (E[X] unchanged) followed by rounding
  // losses down (E[X] grows): E[X] of the discretised step minus the exact E_P[X] over the cells
  // (the Q-mass of the window, Σ q) is what the rounding cost, to first order the mean loss
  // shift per step, which T steps multiply. At q = 0.001, σ = 0.5 the bulk of the losses is
  // ~q = 10 cells of h = 1e-4 wide, piled against log(1 − q): rounding each cell onto one
  // shifted lattice cost 1.1e-5 = 0.11·h per step there (a lower ε bound 9 % low after 1e5
  // steps); the grouped contraction must cost at most 1e-4·h. The exact Q-mass is 1 minus
  // the Q-mass beyond the window, which the per-step truncation bounds by 1e-15·e^{y_lo}.
  for (auto [sigma, q, h] : {std::tuple{0.5, 0.001, 1e-4}, std::tuple{0.5, 0.001, 2e-3},
                             std::tuple{0.1, 1.024e-5, 0.03}, std::tuple{1.0, 0.01, 1e-3}}) {
    for (auto d : {ss::adjacency_direction::remove, ss::adjacency_direction::add}) {
      auto loss = ss::poisson_gaussian_loss(sigma, q, d);
      const auto both = acc::discretize_both(*loss, h, 1e-15);
      const acc::discrete_pld& o = both.second;
      double ex = 0;
      for (std::size_t k = 0; k < o.mass.size(); ++k) ex += o.mass[k] * std::exp(-o.loss(k));
      // Q-mass of the window: E_P[X] over everything the optimistic side kept, from the loss's
      // own interval masses (independent of the grouping).
      const double y_lo = loss->lower_tail_point(1e-15);
      const double kept = loss->mass((std::floor(y_lo / h) - 1.5) * h, INFINITY).q;
      CAPTURE(sigma, q, h, loss->describe(), ex, kept);
      CHECK(ex >= kept * (1 - 1e-13));  // contraction and rounding down: E[X] cannot shrink
      CHECK(ex - kept <= 1e-4 * h);     // the rounding, per unit mass, is second order
    }
  }
}

TEST_CASE("the hard corner is bracketed within 0.1 % on a coarse grid", "[accounting][pld]") {
  // q = 0.001, σ = 0.5, T = 1e5, δ = 1e-5 (ε ≈ 13.03): at h = 2e-4 the cell-by-cell optimistic
  // side gave [10.2, 13.03] (22 % wide) and the accountant refined to h = 5e-6 (8.4M-point
  // FFTs, 7.6 s); grouped, the same grid brackets ε within 0.1 %. Both sides stay certified:
  // the bracket at h = 2e-4 must intersect the one at h = 1e-4.
  acc::training_run run;
  acc::training_phase phase;
  phase.noise_multiplier = 0.5;
  phase.sampling_rate = 0.001;
  phase.steps = 100000;
  run.phases.push_back(phase);
  acc::pld_options coarse, finer;
  coarse.grid_spacing = 2e-4;
  finer.grid_spacing = 1e-4;
  const auto a = acc::pld_epsilon(run, 1e-5, coarse), b = acc::pld_epsilon(run, 1e-5, finer);
  CAPTURE(a.lower, a.upper, b.lower, b.upper);
  CHECK(a.upper - a.lower <= 1e-3 * a.upper);
  CHECK(std::max(a.lower, b.lower) <= std::min(a.upper, b.upper));
}

TEST_CASE("one subsampled step: bounds bracket the single-step profile", "[accounting][pld]") {
  for (auto d : {ss::adjacency_direction::remove, ss::adjacency_direction::add}) {
    auto loss = ss::poisson_gaussian_loss(0.8, 0.1, d);
    auto both = acc::discretize_both(*loss, 1e-3, 1e-15);
    acc::pld_factor fp{&both.first, 1}, fo{&both.second, 1};
    const auto up = acc::compose({&fp, 1}, 1e-14, 1 << 20),
               lo = acc::compose({&fo, 1}, 1e-14, 1 << 20);
    for (double eps : {0.0, 0.2, 1.0, 3.0}) {
      CAPTURE(loss->describe(), eps);
      const double exact = loss->delta(eps);
      CHECK(lo.delta(eps) <= exact * (1 + 1e-12) + 1e-16);
      CHECK(exact <= up.delta(eps) * (1 + 1e-12) + 1e-16);
      // h = 1e-3 gives a 1e-3-relative bracket even at ε = 0, where the kink of (1 − e^{ε−Y})₊
      // sits between optimistic lattice points (measured 4.8e-4 for the add direction).
      CHECK(up.delta(eps) - lo.delta(eps) <= 1e-3 * exact + 1e-14);
    }
  }
}

TEST_CASE("heterogeneous factors compose like their product", "[accounting][pld]") {
  // G(0.3)^⊗50 ⊗ G(0.4)^⊗20 ⊗ G(1.2) = G(√(50·0.09 + 20·0.16 + 1.44)).
  const double h = 0.004;
  auto a = ss::gaussian_loss(0.3), b = ss::gaussian_loss(0.4), c = ss::gaussian_loss(1.2);
  auto da = acc::discretize_both(*a, h, 1e-14), db = acc::discretize_both(*b, h, 1e-14),
       dc = acc::discretize_both(*c, h, 1e-14);
  const std::vector<acc::pld_factor> fp = {{&da.first, 50}, {&db.first, 20}, {&dc.first, 1}};
  const std::vector<acc::pld_factor> fo = {{&da.second, 50}, {&db.second, 20}, {&dc.second, 1}};
  const auto up = acc::compose(fp, 1e-12, 1 << 22), lo = acc::compose(fo, 1e-12, 1 << 22);
  const double exact =
      dpkit::divergence::gdp_epsilon(std::sqrt(50 * 0.09 + 20 * 0.16 + 1.44), 1e-6).value;
  CHECK(lo.epsilon(1e-6) <= exact);
  CHECK(exact <= up.epsilon(1e-6));
  CHECK(up.epsilon(1e-6) - lo.epsilon(1e-6) < 0.01 * exact);
}

TEST_CASE("certified corrections are tiny and the queries are consistent", "[accounting][pld]") {
  const bracket b = compose_gaussian(0.1, 400, 0.0025);
  CHECK(b.pessimistic.above_bound < 1e-12);
  CHECK(b.optimistic.wrap_bound < 2e-12);
  CHECK(b.pessimistic.roundoff < 1e-15);                  // pointwise part
  CHECK(b.pessimistic.roundoff_bound(1.0, 1.0) < 1e-13);  // with the spectrum's, per point
  CHECK(b.pessimistic.infinity_mass < 1e-10);
  const double e = b.pessimistic.epsilon(1e-5);
  CHECK(b.pessimistic.delta(e) <= 1e-5 * (1 + 1e-12));
  const double el = b.optimistic.epsilon(1e-5);
  CHECK(b.optimistic.delta(el) >= 1e-5 * (1 - 1e-9));
  REQUIRE_THROWS_AS(
      acc::discretize(*ss::gaussian_loss(1.0), 0.0, acc::pld_side::pessimistic, 1e-12),
      std::domain_error);
  REQUIRE_THROWS_AS(acc::discretize(*ss::gaussian_loss(1.0), 0.01, acc::pld_side::pessimistic, 0.5),
                    std::domain_error);
}

TEST_CASE("the one-sweep profile equals the one-point delta", "[accounting][pld]") {
  // Poisson-subsampled steps: an asymmetric loss with mass on both sides of 0.
  auto loss = ss::poisson_gaussian_loss(0.8, 0.05, ss::adjacency_direction::add);
  auto both = acc::discretize_both(*loss, 1e-3, 1e-14);
  for (const acc::discrete_pld* d : {&both.first, &both.second}) {
    acc::pld_factor f{d, 30};
    const acc::composed_pld c = acc::compose({&f, 1}, 1e-12, 1 << 22);
    // Off-lattice and lattice points, below the window, inside it and beyond its top.
    std::vector<double> eps = {0.0, 1e-4, 0.0125, 0.5, 1.0, 1.0, 2.345, 7.5, 40.0, 900.0};
    eps.push_back(c.h * static_cast<double>(c.first + 3) + c.offset);  // below the window
    std::sort(eps.begin(), eps.end());
    const std::vector<double> v = c.delta(eps);
    REQUIRE(v.size() == eps.size());
    for (std::size_t i = 0; i < eps.size(); ++i) {
      CAPTURE(i, eps[i], v[i], c.delta(eps[i]));
      CHECK(std::abs(v[i] - c.delta(eps[i])) <= 1e-15 + 1e-12 * c.delta(eps[i]));
    }
  }
  const std::vector<double> descending = {1.0, 0.5};
  auto g = ss::gaussian_loss(1.0);
  auto d = acc::discretize(*g, 0.01, acc::pld_side::pessimistic, 1e-12);
  acc::pld_factor f{&d, 1};
  REQUIRE_THROWS_AS(acc::compose({&f, 1}, 1e-12, 1 << 20).delta(descending), std::domain_error);
}

TEST_CASE("compose refuses FFTs beyond the memory limit", "[accounting][pld]") {
  auto loss = ss::gaussian_loss(0.1);
  auto d = acc::discretize(*loss, 1e-4, acc::pld_side::pessimistic, 1e-14);
  acc::pld_factor f{&d, 100000};
  REQUIRE_THROWS_AS(acc::compose({&f, 1}, 1e-12, 1 << 16), std::length_error);
}

TEST_CASE("epsilon beyond 709 (where e^epsilon overflows) is still bracketed",
          "[accounting][pld]") {
  // G(4.5)^⊗100 = G(45): ε(1e-5) ≈ 1200. Regression: the ε solve once saturated at log(DBL_MAX).
  const bracket b = compose_gaussian(4.5, 100, 0.02);
  const double exact = dpkit::divergence::gdp_epsilon(45.0, 1e-5).value;
  REQUIRE(exact > 709.8);
  CHECK(b.optimistic.epsilon(1e-5) <= exact);
  CHECK(exact <= b.pessimistic.epsilon(1e-5));
  CHECK(b.pessimistic.epsilon(1e-5) - b.optimistic.epsilon(1e-5) < 1e-3 * exact);
}

TEST_CASE("an epsilon below the window's lowest loss: both ends from the lattice's own delta",
          "[accounting][pld][certified]") {
  // The add direction of one Poisson-subsampled step at small σ: P = N(0, σ²) and
  // Q = (1 − q)N(0, σ²) + qN(1, σ²), so ℓ(x) = −log(1 − q + q·e^{(2x − 1)/(2σ²)}) ≤ −log(1 − q),
  // below 0 only for x > 1/2, where P has mass Φ̄(1/(2σ)) (7.6e-24 at σ = 0.05): the window cut
  // at the tail τ = 1e-14 lies wholly above 0, within ~e^{-47} of −log(1 − q). Closed form, for
  // 0 ≤ ε < −log(1 − q), with x_ε = 1/2 + σ² log((e^{−ε} − 1 + q)/q) (ℓ > ε ⇔ x < x_ε):
  // δ(ε) = Φ(x_ε/σ)·(1 − e^ε(1 − q)) − e^ε·q·Φ((x_ε − 1)/σ), decreasing in ε; the exact ε at δ
  // by bisection. For δ below δ(0) ≈ q the crossing lies below the window's lowest point, where
  // the upper end was that point (about −log(1 − q), 0.357 at q = 0.3 against the exact 0.251
  // at δ = 0.1) and the lower end 0, at every grid spacing.
  auto phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  for (double sigma : {0.03, 0.05})
    for (double q : {0.01, 0.3, 0.9}) {
      auto exact_delta = [&](double eps) {
        const double x = 0.5 + sigma * sigma * std::log((std::exp(-eps) - 1 + q) / q);
        // 1 − e^ε(1 − q) = q − (1 − q)(e^ε − 1), without cancellation at small ε.
        return phi(x / sigma) * (q - (1 - q) * std::expm1(eps)) -
               std::exp(eps) * q * phi((x - 1) / sigma);
      };
      const double top = -std::log1p(-q);
      auto loss = ss::poisson_gaussian_loss(sigma, q, ss::adjacency_direction::add);
      for (double h : {1e-2, 1e-3}) {
        auto both = acc::discretize_both(*loss, h, 1e-14);
        acc::pld_factor fp{&both.first, 1}, fo{&both.second, 1};
        const auto up = acc::compose({&fp, 1}, 1e-14, 1 << 20),
                   lo = acc::compose({&fo, 1}, 1e-14, 1 << 20);
        for (double fraction : {0.1, 0.5, 0.9, 0.999}) {
          const double delta = fraction * exact_delta(0.0);
          double a = 0, b = top * (1 - 1e-9);
          for (int i = 0; i < 200; ++i) {
            const double m = 0.5 * (a + b);
            (exact_delta(m) > delta ? a : b) = m;
          }
          const double exact = 0.5 * (a + b);
          const double upper = up.epsilon(delta), lower = lo.epsilon(delta);
          CAPTURE(sigma, q, h, delta, exact, lower, upper, exact_delta(lower), exact_delta(upper));
          CHECK(lower <= exact * (1 + 1e-12));
          CHECK(exact <= upper * (1 + 1e-12));
          // Narrow in δ: the ends' exact δ differ by at most 1e-8 of δ, a few times the lattice's
          // floating slack of 1e-9 a side (measured: above 1e-11 of δ; in ε up to 2e-6 relative
          // at δ = 0.999·δ(0), where δ(ε) is flat).
          CHECK(upper < top);
          CHECK(exact_delta(lower) - exact_delta(upper) <= 1e-8 * delta);
        }
        // At δ ≥ δ(0) the exact ε is 0: both ends say so.
        const double above = std::min(1.01 * exact_delta(0.0), 0.999);
        CAPTURE(sigma, q, h, above);
        CHECK(up.epsilon(above) == 0.0);
        CHECK(lo.epsilon(above) == 0.0);
      }
    }
}
