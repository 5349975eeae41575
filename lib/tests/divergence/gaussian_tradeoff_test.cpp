#include "dpkit/divergence/gaussian_tradeoff.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dpkit/core/normal.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/check_accuracy.hpp"

using Catch::Matchers::Contains;
using dpkit::test::check_accuracy_case;
using dpkit::test::relative_error;
using namespace dpkit::tol;
namespace dv = dpkit::divergence;

TEST_CASE("G(mu) matches 50-digit references", "[divergence][tradeoff][reference]") {
  for (const char* id : {"gaussian_tradeoff_beta", "gaussian_tradeoff_log_beta"}) {
    SECTION(id) {
      check_accuracy_case(id);
    }
  }
}

TEST_CASE("G(0) is the identity tradeoff Id(alpha) = 1 - alpha", "[divergence][tradeoff]") {
  const dv::gaussian_tradeoff g(0.0);
  for (double a : {0.0, 1e-12, 0.1, 0.5, 0.9, 1.0}) CHECK(std::abs(g.beta(a) - (1 - a)) < kTol1);
}

TEST_CASE("G(mu) is a symmetric tradeoff function", "[divergence][tradeoff]") {
  for (double mu : {0.3, 1.0, 2.5, 6.0}) {
    const dv::gaussian_tradeoff g(mu);
    CAPTURE(mu);
    // Fixed point α = Φ(−μ/2) with slope −1.
    const double a_star = dpkit::normal_cdf(-mu / 2);
    CHECK(relative_error(g.beta(a_star), a_star) < kTol2);
    CHECK(relative_error(g.slope(a_star), -1.0) < kTol2);
    double previous = 1.0;
    for (double a = 0.01; a < 1; a += 0.01) {
      CAPTURE(a);
      const double b = g.beta(a);
      CHECK(b <= 1 - a + kTol1);                       // f(α) ≤ 1 − α
      CHECK(b <= previous);                            // non-increasing
      CHECK(relative_error(g.inverse(b), a) < kTol3);  // G⁻¹ = G: G(G(α)) = α
      CHECK(std::abs(g.power(a) + b - 1) < kTol1);     // power = 1 − β
      // Convexity: second difference is non-negative.
      CHECK(g.beta(a - 0.005) + g.beta(a + 0.005) - 2 * b >= -kTol1);
      // Slope against a central difference (truncation O(h²)).
      const double h = 1e-6 * std::min(a, 1 - a);
      CHECK(std::abs((g.beta(a + h) - g.beta(a - h)) / (2 * h) - g.slope(a)) <
            1e-6 * std::abs(g.slope(a)) + 1e-8);
      previous = b;
    }
  }
}

TEST_CASE("composition of Gaussians: G(mu1) x G(mu2) = G(hypot(mu1, mu2))",
          "[divergence][tradeoff]") {
  CHECK(dv::compose(dv::gaussian_tradeoff(3.0), dv::gaussian_tradeoff(4.0)).mu() == 5.0);
  const std::vector<double> mus = {3.0, 4.0, 12.0};
  CHECK(dv::compose_gaussian(mus).mu() == 13.0);
  CHECK(dv::compose_gaussian(std::vector<double>{}).mu() == 0.0);
  // T-fold composition of G(1/σ) is G(√T/σ); no overflow for huge μ.
  const std::vector<double> steps(10000, 0.5);
  CHECK(relative_error(dv::compose_gaussian(steps).mu(), 50.0) < kTol2);
  const std::vector<double> huge = {1e200, 1e200};
  CHECK(relative_error(dv::compose_gaussian(huge).mu(), std::sqrt(2.0) * 1e200) < kTol0);
}

TEST_CASE("G(mu) privacy profile is the Balle-Wang formula", "[divergence][tradeoff]") {
  const dv::gaussian_tradeoff g(1.5);
  for (double eps : {-1.0, 0.0, 0.7, 3.0}) CHECK(g.privacy_profile(eps) == dv::gdp_delta(1.5, eps));
  CHECK(g.describe() == "G(1.5)");
}

TEST_CASE("G(mu) edges and bad input", "[divergence][tradeoff]") {
  const dv::gaussian_tradeoff g(2.0);
  CHECK(g.beta(0.0) == 1.0);
  CHECK(g.beta(1.0) == 0.0);
  CHECK(g.power(0.0) == 0.0);
  CHECK(g.beta(1e-300) > 0.0);  // no rounding of 1 − α to 1
  REQUIRE_THROWS_WITH(dv::gaussian_tradeoff(-1.0),
                      Contains("gaussian_tradeoff: mu is -1, but must be finite and >= 0"));
  REQUIRE_THROWS_AS(dv::gaussian_tradeoff(NAN), std::domain_error);
  REQUIRE_THROWS_AS(g.beta(1.5), std::domain_error);
  REQUIRE_THROWS_AS(g.slope(0.0), std::domain_error);
}
