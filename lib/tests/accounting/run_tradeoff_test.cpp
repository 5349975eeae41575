#include "dpkit/accounting/run_tradeoff.hpp"

#include <algorithm>
#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "dpkit/core/grid.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/subsampling/subsampled_tradeoff.hpp"
#include "support/exact_curves.hpp"
#include "support/runs.hpp"

namespace acc = dpkit::accounting;
using dpkit::test::dpsgd;

namespace {

double max_gap(const acc::run_tradeoff_result& t) {
  double g = 0;
  for (std::size_t i = 0; i < t.alpha.size(); ++i)
    g = std::max(g, t.beta_upper[i] - t.beta_lower[i]);
  return g;
}
}  // namespace

TEST_CASE("tradeoff bounds from an exact profile contain the exact curve",
          "[accounting][tradeoff]") {
  // The profile of G(μ) is known in closed form, so is its curve: an exact reference for the
  // formulas, independent of the PLD engine. Coarse grids must stay certified (wider only).
  const double mu = 1.5;
  const dpkit::divergence::gaussian_tradeoff g(mu);
  const std::vector<double> alphas = dpkit::linspace(0.0, 1.0, 201);
  for (double spacing : {1e-3, 0.05, 0.5}) {
    std::vector<double> eps, delta;
    for (double e = 0; e <= 12; e += spacing) {
      eps.push_back(e);
      delta.push_back(dpkit::divergence::gdp_delta(mu, e));
    }
    // A certified but loose profile bracket, ±1 %.
    std::vector<double> lo = delta, up = delta;
    for (std::size_t j = 0; j < delta.size(); ++j) {
      lo[j] *= 0.99;
      up[j] = std::min(1.0, 1.01 * up[j]);
    }
    for (const auto& [dl, du] : {std::pair{delta, delta}, std::pair{lo, up}}) {
      const acc::tradeoff_bracket b = acc::tradeoff_from_profile(eps, dl, du, alphas);
      double gap = 0;
      for (std::size_t i = 0; i < alphas.size(); ++i) {
        const double exact = g.beta(alphas[i]);
        CAPTURE(spacing, alphas[i], b.beta_lower[i], exact, b.beta_upper[i]);
        CHECK(b.beta_lower[i] <= exact + 1e-15);
        CHECK(exact <= b.beta_upper[i] + 1e-15);
        gap = std::max(gap, b.beta_upper[i] - b.beta_lower[i]);
      }
      // With the exact profile on the fine grid, only the cell slack (≲ 2·spacing) remains.
      if (spacing == 1e-3 && dl == du) CHECK(gap < 2.5e-3);
    }
  }
  REQUIRE_THROWS_AS(
      acc::tradeoff_from_profile(std::vector<double>{0.5, 1.0}, std::vector<double>{0.1, 0.0},
                                 std::vector<double>{0.1, 0.0}, alphas),
      std::domain_error);
  REQUIRE_THROWS_AS(
      acc::tradeoff_from_profile(std::vector<double>{0.0, 1.0}, std::vector<double>{0.1},
                                 std::vector<double>{0.1, 0.0}, alphas),
      std::domain_error);
}

TEST_CASE("Gaussian runs and single subsampled steps use closed forms", "[accounting][tradeoff]") {
  const std::vector<double> alphas = {0.0, 1e-6, 0.05, 0.5, 0.99, 1.0};
  const auto gauss = acc::run_tradeoff(dpsgd(20.0, 1.0, 400), alphas);
  REQUIRE(gauss.exact);
  const dpkit::divergence::gaussian_tradeoff g(1.0);  // √400 / 20
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    CHECK(gauss.beta_lower[i] == gauss.beta_upper[i]);
    CHECK(gauss.beta_lower[i] == Approx(g.beta(alphas[i])).epsilon(1e-14).margin(1e-300));
  }
  const auto one =
      acc::run_tradeoff(dpsgd(0.8, 0.1, 1, acc::sampling_scheme::without_replacement), alphas);
  REQUIRE(one.exact);
  const dpkit::subsampling::cp_gaussian_tradeoff c(2.0 / 0.8, 0.1);  // replace-one: μ = 2/σ
  for (std::size_t i = 0; i < alphas.size(); ++i) CHECK(one.beta_lower[i] == c.beta(alphas[i]));
}

TEST_CASE("composed subsampled runs: a narrow certified bracket consistent with delta",
          "[accounting][tradeoff]") {
  const auto run = dpsgd(1.0, 0.05, 50);
  const std::vector<double> alphas = dpkit::linspace(0.0, 1.0, 401);
  const auto t = acc::run_tradeoff(run, alphas);
  REQUIRE(t.converged());
  REQUIRE_FALSE(t.exact);
  CHECK(max_gap(t) < 2e-3);
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    CHECK(t.beta_lower[i] <= t.beta_upper[i]);
    CHECK(t.beta_upper[i] <= 1 - alphas[i]);
  }
  // The curve determines the profile: δ(ε) = max_α (1 − f(α) − e^ε α) ≥ the value at any grid α,
  // so max over the grid with β_upper can never exceed the certified δ_upper of the separate
  // δ query (an independent adaptive run), and with β_lower it is close to δ.
  for (double eps : {0.0, 0.5, 1.5}) {
    const auto d = acc::pld_delta(run, eps);
    double from_upper = 0, from_lower = 0;
    for (std::size_t i = 0; i < alphas.size(); ++i) {
      from_upper = std::max(from_upper, 1 - t.beta_upper[i] - std::exp(eps) * alphas[i]);
      from_lower = std::max(from_lower, 1 - t.beta_lower[i] - std::exp(eps) * alphas[i]);
    }
    CAPTURE(eps, from_upper, from_lower, d.lower, d.upper);
    CHECK(from_upper <= d.upper);
    CHECK(from_lower >= d.lower - 0.01);  // α-grid resolution 1/400
  }
  // Symmetric: both neighbouring directions are in the curve, so f(f(α)) = α. f is convex,
  // hence below the chords of its values on the α grid, hence below the interpolated β_upper;
  // f decreasing and f(α) ≥ β_lower(α) give α = f(f(α)) ≤ f(β_lower(α)) ≤ interpolated β_upper.
  auto upper_at = [&](double x) {
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(x * 400), 399);
    const double w = x * 400 - static_cast<double>(k);
    return (1 - w) * t.beta_upper[k] + w * t.beta_upper[k + 1];
  };
  for (std::size_t i = 0; i < alphas.size(); ++i)
    CHECK(alphas[i] <= upper_at(t.beta_lower[i]) + 1e-12);
  // More steps: a lower curve (less privacy), well outside both brackets.
  const auto longer = acc::run_tradeoff(dpsgd(1.0, 0.05, 100), alphas);
  CHECK(longer.beta_upper[200] < t.beta_lower[200]);
  // Replace-one neighbours (sensitivity 2) are less private than add/remove.
  const auto wor =
      acc::run_tradeoff(dpsgd(1.0, 0.05, 50, acc::sampling_scheme::without_replacement), alphas);
  REQUIRE(wor.converged());
  CHECK(wor.beta_upper[200] < t.beta_lower[200]);
}

TEST_CASE("the largest true-positive rate at tiny false-positive rates: no cancellation",
          "[accounting][tradeoff][certified]") {
  // 1 − β at α = 1e-200 was 0 (β rounds to 1): below the true rate, which is at least α for
  // the best test.
  const std::vector<double> alphas = {1e-300, 1e-200, 1e-20, 1e-10, 1e-5, 0.05, 0.5};
  // G(1) (σ = 20, T = 400: μ = 1 exactly, the run's μ rounded): each side on its side of
  // Φ(Φ⁻¹(α) + 1) at 50 digits, and the two within 1e-9 of each other.
  const auto gauss = acc::run_tradeoff(dpsgd(20.0, 1.0, 400), alphas);
  REQUIRE(gauss.exact);
  using dpkit::test::real50;
  const real50 root2 = boost::math::constants::root_two<real50>();
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    const real50 x = -root2 * boost::math::erfc_inv(2 * real50(alphas[i])) + 1;  // Φ⁻¹(α) + 1
    const real50 exact = boost::math::erfc(-x / root2) / 2;
    CAPTURE(alphas[i], gauss.power_lower[i], gauss.power_upper[i], exact.convert_to<double>());
    CHECK(dpkit::test::at_least(gauss.power_upper[i], exact));
    CHECK(dpkit::test::at_most(gauss.power_lower[i], exact));
    CHECK(gauss.power_upper[i] <= gauss.power_lower[i] * (1 + 1e-9));
  }
  // 50 composed subsampled steps, no closed form: their curve lies below one step's (composing
  // only adds power), whose closed form C_q(G(1/σ)) gives a lower bound on the true rate that
  // power_upper must stay above; and the full batch's G(√50/σ) (subsampling only removes power)
  // an upper bound that power_lower must stay below — at 1e-300 as at 0.5.
  const auto t = acc::run_tradeoff(dpsgd(1.0, 0.05, 50), alphas);
  const auto one = acc::run_tradeoff(dpsgd(1.0, 0.05, 1), alphas);
  const auto full = acc::run_tradeoff(dpsgd(1.0, 1.0, 50), alphas);
  REQUIRE(t.converged());
  REQUIRE(one.exact);
  REQUIRE(full.exact);
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    CAPTURE(alphas[i], t.power_lower[i], t.power_upper[i], one.power_lower[i], full.power_upper[i]);
    CHECK(t.power_upper[i] >= one.power_lower[i]);
    CHECK(t.power_lower[i] <= full.power_upper[i]);
    CHECK(t.power_lower[i] <= t.power_upper[i]);
    if (t.beta_lower[i] < 0.5) {
      CHECK(t.power_upper[i] == Approx(1 - t.beta_lower[i]).epsilon(1e-13));
      CHECK(t.power_lower[i] == Approx(1 - t.beta_upper[i]).epsilon(1e-13));
    }
  }
}

TEST_CASE("run tradeoff rejects bad input", "[accounting][tradeoff]") {
  const std::vector<double> bad = {0.5, 1.5};
  REQUIRE_THROWS_AS(acc::run_tradeoff(dpsgd(1.0, 0.05, 50), bad), std::domain_error);
  const std::vector<double> nan = {std::nan("")};
  REQUIRE_THROWS_AS(acc::run_tradeoff(dpsgd(1.0, 0.05, 50), nan), std::domain_error);
  REQUIRE_THROWS_AS(acc::run_tradeoff(dpsgd(-1.0, 0.05, 50), std::vector<double>{0.5}),
                    std::domain_error);
}

namespace {
// Φ⁻¹(1 − f(α)) − Φ⁻¹(α) for one Poisson-subsampled step C_q(G(μ)), written out independently
// of the library's tradeoff classes (Dong, Roth & Su 2022, Thm 9 and Prop. C.2): with
// f_q(α) = q G_μ(α) + (1 − q)(1 − α), the symmetrised curve is f_q on [0, α*] with
// α* = Φ(−μ/2) (where f_q' = −1), then the line of slope −1 through (α*, f_q(α*)).
double one_step_gdp_term(double q, double mu, double alpha) {
  const auto tpr_q = [&](double a) {  // 1 − f_q(a)
    return (1 - q) * a + q * dpkit::normal_cdf(dpkit::normal_quantile(a) + mu);
  };
  const double a_star = dpkit::normal_cdf(-mu / 2);
  const double tpr = alpha <= a_star ? tpr_q(alpha) : tpr_q(a_star) + (alpha - a_star);
  return dpkit::normal_quantile(tpr) - dpkit::normal_quantile(alpha);
}
}  // namespace

TEST_CASE("the GDP parameter of a run: exact for Gaussian runs, certified bracket otherwise",
          "[accounting][tradeoff][gdp]") {
  // Gaussian runs: G(μ) itself, μ = √T/σ.
  const acc::gdp_mu_result g = acc::run_gdp_mu(dpsgd(2, 1, 16));
  CHECK(g.exact);
  CHECK(g.mu_lower == Approx(2.0).epsilon(1e-15));
  CHECK(g.mu_upper == g.mu_lower);

  // One subsampled step: the sup of the term written out above over a fine grid (1e5 points
  // uniform in Φ⁻¹(α) on [1e-12, 1/2]) lies in the certified bracket, which is no wider than
  // the grid's z spacing allows.
  for (const auto& [sigma, q] : {std::pair{0.8, 0.05}, std::pair{0.5, 0.01}, std::pair{2.0, 0.3}}) {
    const acc::gdp_mu_result r = acc::run_gdp_mu(dpsgd(sigma, q, 1));
    const double z0 = dpkit::normal_quantile(1e-12);
    double sup = 0;
    for (int i = 0; i <= 100000; ++i) {
      const double a = i == 100000 ? 0.5 : dpkit::normal_cdf(z0 * (1 - i / 100000.0));
      sup = std::max(sup, one_step_gdp_term(q, 1 / sigma, std::max(a, 1e-12)));
    }
    INFO("sigma = " << sigma << ", q = " << q << ": [" << r.mu_lower << ", " << r.mu_upper
                    << "], fine-grid sup " << sup);
    // The fine grid's points are not the function's 4000, so its sup may sit below a value
    // the coarse grid hits, by at most curvature × (spacing 7e-5)² ≈ 1e-8 relative.
    CHECK(r.mu_lower <= sup * (1 + 1e-6));
    CHECK(sup <= r.mu_upper * (1 + 1e-9));
    // Width: the z spacing, plus the β rounding allowance (2e-15 absolute: ≲ 5e-5 in μ on
    // either side where the TPR is ~1e-11).
    CHECK(r.mu_upper - r.mu_lower <= std::abs(z0) / 3999 + 1e-4);
  }

  // A composed run (PLD bracket): consistent with the tradeoff bracket at a finer grid, and
  // near the Gaussian-DP central limit μ_CLT = q√(T(e^{1/σ²} − 1)) (an approximation of the
  // curve's middle; the sup over FPRs down to 1e-8 is 11 % above it here, so only to 20 %).
  const acc::training_run run = dpsgd(1.0, 0.01, 2000);
  const acc::gdp_mu_result c = acc::run_gdp_mu(run, 1e-8, 2000);
  CHECK_FALSE(c.exact);
  CHECK(c.mu_lower <= c.mu_upper);
  const acc::gdp_mu_result fine = acc::run_gdp_mu(run, 1e-8, 8000);
  CHECK(fine.mu_lower >= c.mu_lower - 1e-9);  // a finer grid can only raise the lower bound
  CHECK(fine.mu_upper <= c.mu_upper + 1e-9);  // and lower the upper one
  CHECK(fine.mu_lower <= c.mu_upper);
  const double clt = 0.01 * std::sqrt(2000 * std::expm1(1.0));
  CHECK(std::abs(fine.mu_lower / clt - 1) < 0.2);
  CHECK(fine.alpha_at_max >= 1e-8);

  CHECK_THROWS_AS(acc::run_gdp_mu(run, 0.0), std::domain_error);
  CHECK_THROWS_AS(acc::run_gdp_mu(run, 0.5), std::domain_error);
  CHECK_THROWS_AS(acc::run_gdp_mu(run, 1e-10, 1), std::domain_error);
}
