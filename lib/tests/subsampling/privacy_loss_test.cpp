#include "dpkit/subsampling/privacy_loss.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/core/grid.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::test::relative_error;
namespace ss = dpkit::subsampling;

namespace {
using dpkit::test::kInf;

std::vector<std::unique_ptr<ss::privacy_loss>> all_losses() {
  std::vector<std::unique_ptr<ss::privacy_loss>> v;
  v.push_back(ss::gaussian_loss(0.7));
  v.push_back(ss::poisson_gaussian_loss(1.0, 0.01, ss::adjacency_direction::remove));
  v.push_back(ss::poisson_gaussian_loss(0.8, 0.2, ss::adjacency_direction::add));
  v.push_back(ss::poisson_gaussian_loss(2.0, 1.0, ss::adjacency_direction::remove));
  v.push_back(ss::symmetric_subsampled_gaussian_loss(2.0, 0.1));
  v.push_back(ss::symmetric_subsampled_gaussian_loss(1.0, 1.0));
  return v;
}

// Poisson remove, written out independently: L(x) ≥ ε ⟺ x ≥ x* = σ² log((e^ε − 1 + q)/q) + 1/2,
// δ(ε) = P(x ≥ x*) − e^ε Q(x ≥ x*) = qΦ̄((x* − 1)/σ) + (1 − q − e^ε)Φ̄(x*/σ).
double poisson_remove_delta(double sigma, double q, double eps) {
  const double x = sigma * sigma * std::log((std::exp(eps) - 1 + q) / q) + 0.5;
  return q * dpkit::normal_ccdf((x - 1) / sigma) +
         (1 - q - std::exp(eps)) * dpkit::normal_ccdf(x / sigma);
}
}  // namespace

TEST_CASE("privacy losses are probability laws under P and Q", "[subsampling][pld]") {
  for (const auto& l : all_losses()) {
    CAPTURE(l->describe());
    const ss::loss_mass total = l->mass(-kInf, kInf);
    CHECK(std::abs(total.p - 1) < 1e-14);
    CHECK(std::abs(total.q - 1) < 1e-14);
    // dQ = e^{−Y} dP: on a fine grid, Q(cell) ≈ e^{−y_mid} P(cell) to O(h²) per cell.
    const std::vector<double> cuts = dpkit::linspace(-2.0, 2.0, 4001);
    double worst = 0;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      const ss::loss_mass m = l->mass(cuts[k], cuts[k + 1]);
      // Cells cut by a support edge or holding the atom at 0 have no meaningful midpoint.
      if (m.p < 1e-12 || cuts[k] < l->support_lower() || cuts[k + 1] > l->support_upper()) continue;
      if (cuts[k] < 0 && 0 <= cuts[k + 1] && l->describe().rfind("C_p", 0) == 0) continue;
      const double mid = 0.5 * (cuts[k] + cuts[k + 1]);
      worst = std::max(worst, std::abs(m.q / (m.p * std::exp(-mid)) - 1));
    }
    // dQ/dP = e^{−y} ∈ [e^{−b}, e^{−a}] on a cell (a, b]: Q/(e^{−mid}P) is within e^{±h/2}.
    CHECK(worst <= std::expm1(0.0005) + 1e-12);
  }
}

TEST_CASE("vectorised interval masses equal the one-interval masses", "[subsampling][pld]") {
  for (const auto& l : all_losses()) {
    CAPTURE(l->describe());
    std::vector<double> cuts = dpkit::linspace(-3.0, 6.0, 1801);
    std::vector<ss::loss_mass> cells;
    ss::loss_mass below, above;
    l->interval_masses(cuts, cells, below, above);
    REQUIRE(cells.size() == cuts.size() - 1);
    double worst = 0;
    for (std::size_t k = 0; k < cells.size(); ++k) {
      const ss::loss_mass m = l->mass(cuts[k], cuts[k + 1]);
      worst = std::max({worst, std::abs(cells[k].p - m.p) / std::max(m.p, 1e-300),
                        std::abs(cells[k].q - m.q) / std::max(m.q, 1e-300)});
    }
    CHECK(worst < 1e-9);
    CHECK(relative_error(below.p, l->mass(-kInf, cuts.front()).p) < 1e-12);
    CHECK(relative_error(above.p, l->mass(cuts.back(), kInf).p) < 1e-12);
  }
}

TEST_CASE("single-step privacy profiles match independent closed forms", "[subsampling][pld]") {
  for (double eps : {0.0, 0.3, 1.0, 2.5}) {
    CAPTURE(eps);
    CHECK(relative_error(ss::gaussian_loss(0.7)->delta(eps),
                         dpkit::divergence::gdp_delta(0.7, eps)) < 1e-12);
    const auto rem = ss::poisson_gaussian_loss(0.8, 0.05, ss::adjacency_direction::remove);
    // The generic profile (from masses) against the written-out threshold formula.
    CHECK(relative_error(rem->delta(eps), poisson_remove_delta(0.8, 0.05, eps)) < 1e-10);
    // The reversed pair: δ_{Q‖P}(ε) = 1 − e^ε + e^ε δ_{P‖Q}(−ε).
    const auto add = ss::poisson_gaussian_loss(0.8, 0.05, ss::adjacency_direction::add);
    CHECK(std::abs(add->delta(eps) - (1 - std::exp(eps) + std::exp(eps) * rem->delta(-eps))) <
          1e-12);
    // C_p(G(μ)): closed form (from the proof of BSA24 Prop D.4) against the generic profile from
    // masses.
    const auto sym = ss::symmetric_subsampled_gaussian_loss(2.0, 0.1);
    CHECK(relative_error(sym->delta(eps), sym->privacy_loss::delta(eps)) < 1e-9);
  }
  // p = 1: C_1(G(μ)) = G(μ).
  CHECK(relative_error(ss::symmetric_subsampled_gaussian_loss(1.3, 1.0)->delta(0.5),
                       dpkit::divergence::gdp_delta(1.3, 0.5)) < 1e-12);
}

TEST_CASE("C_p(G(mu)) loss is symmetric with its atom at 0", "[subsampling][pld]") {
  const double mu = 2.0, p = 0.1;
  const auto l = ss::symmetric_subsampled_gaussian_loss(mu, p);
  const double atom =
      (1 - p) * (dpkit::normal_cdf(mu / 2) - dpkit::normal_cdf(-mu / 2));  // Prop D.4
  CHECK(relative_error(l->mass(-1e-12, 1e-12).p, atom) < 1e-9);
  CHECK(relative_error(l->mass(-1e-12, 1e-12).q, atom) < 1e-9);
  // Prop D.4 CDF at t > 0: pΦ(ε⁺/μ − μ/2) + (1−p)Φ(ε⁺/μ + μ/2), ε⁺ = log((p − 1 + e^t)/p).
  for (double t : {0.01, 0.3, 1.0}) {
    const double ep = std::log((p - 1 + std::exp(t)) / p);
    const double cdf =
        p * dpkit::normal_cdf(ep / mu - mu / 2) + (1 - p) * dpkit::normal_cdf(ep / mu + mu / 2);
    CHECK(relative_error(l->mass(-kInf, t).p, cdf) < 1e-12);
    // Symmetry: Q(Y ≤ −t) = P(Y ≥ t).
    CHECK(relative_error(l->mass(-kInf, -t).q, l->mass(t, kInf).p) < 1e-12);
  }
}

TEST_CASE("tail points bound the truncated mass", "[subsampling][pld]") {
  for (const auto& l : all_losses()) {
    CAPTURE(l->describe());
    for (double tau : {1e-3, 1e-9, 1e-15}) {
      const double hi = l->upper_tail_point(tau), lo = l->lower_tail_point(tau);
      CHECK(l->mass(hi, kInf).p <= tau * (1 + 1e-9));
      CHECK(l->mass(-kInf, lo).p <= tau * (1 + 1e-9));
      CHECK(lo <= hi);
    }
  }
}

TEST_CASE("privacy losses reject bad parameters", "[subsampling][pld]") {
  REQUIRE_THROWS_WITH(ss::poisson_gaussian_loss(0.0, 0.1, ss::adjacency_direction::add),
                      Contains("sigma is 0, but must be finite and > 0"));
  REQUIRE_THROWS_WITH(ss::poisson_gaussian_loss(1.0, 1.5, ss::adjacency_direction::add),
                      Contains("q is 1.5, but must be in (0, 1]"));
  REQUIRE_THROWS_AS(ss::poisson_gaussian_loss(1.0, 0.0, ss::adjacency_direction::add),
                    std::domain_error);
  REQUIRE_THROWS_AS(ss::symmetric_subsampled_gaussian_loss(-1.0, 0.5), std::domain_error);
  REQUIRE_THROWS_AS(ss::gaussian_loss(NAN), std::domain_error);
}
