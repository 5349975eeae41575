#include "dpkit/divergence/tradeoff.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dpkit/core/grid.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::test::relative_error;
namespace dv = dpkit::divergence;

namespace {
// G(μ) seen only through beta(): exercises the generic base-class algorithms.
class opaque_gaussian final : public dv::tradeoff_function {
 public:
  explicit opaque_gaussian(double mu) : g_(mu) {}
  double beta(double alpha) const override { return g_.beta(alpha); }
  double power(double alpha) const override { return g_.power(alpha); }
  std::string describe() const override { return "opaque " + g_.describe(); }

 private:
  dv::gaussian_tradeoff g_;
};
}  // namespace

TEST_CASE("primal-dual profile reproduces the closed-form GDP profile", "[divergence][tradeoff]") {
  for (double mu : {0.5, 1.0, 2.0, 5.0}) {
    const opaque_gaussian f(mu);
    for (double eps : {-0.5, 0.0, 0.5, 1.0, 3.0, 10.0, 20.0}) {
      CAPTURE(mu, eps);
      const double exact = dv::gdp_delta(mu, eps);
      const double numeric = dv::primal_dual_profile(f, eps);
      CHECK(numeric <= exact + 1e-15);  // a supremum found numerically cannot exceed the true one
      CHECK(std::abs(numeric - exact) <= 1e-9 * exact + 1e-15);
    }
  }
}

TEST_CASE("tradeoff_epsilon inverts a profile (generic and closed form agree)",
          "[divergence][tradeoff]") {
  for (double mu : {0.5, 2.0}) {
    for (double delta : {1e-8, 1e-4}) {
      CAPTURE(mu, delta);
      const auto generic = dv::tradeoff_epsilon(opaque_gaussian(mu), delta);
      const auto exact = dv::gdp_epsilon(mu, delta);
      REQUIRE(generic.converged());
      CHECK(relative_error(generic.value, exact.value) < 1e-8);
      const auto closed = dv::tradeoff_epsilon(dv::gaussian_tradeoff(mu), delta);
      CHECK(relative_error(closed.value, exact.value) < 1e-11);
    }
  }
}

TEST_CASE("default inverse (bisection) matches the symmetric G inverse", "[divergence][tradeoff]") {
  const opaque_gaussian f(1.3);
  const dv::gaussian_tradeoff g(1.3);
  for (double b : {0.0, 0.01, 0.3, 0.7, 1.0}) CHECK(std::abs(f.inverse(b) - g.inverse(b)) < 1e-14);
}

TEST_CASE("(epsilon, delta)-DP tradeoff curve and its exact profile", "[divergence][tradeoff]") {
  const double eps = 1.0, delta = 1e-3;
  const auto f = dv::piecewise_linear_tradeoff::from_epsilon_delta(eps, delta);
  // DRS22 eq. (5) evaluated directly.
  auto direct = [&](double a) {
    return std::max({0.0, 1 - delta - std::exp(eps) * a, std::exp(-eps) * (1 - delta - a)});
  };
  for (double a : {0.0, 0.1, 0.2689, 0.5, 0.9, 0.999, 1.0})
    CHECK(std::abs(f.beta(a) - direct(a)) < 1e-15);
  // The curve certifies exactly δ at ε and any larger ε, and more at smaller ε.
  CHECK(std::abs(f.privacy_profile(eps) - delta) < 1e-15);
  CHECK(std::abs(f.privacy_profile(eps + 1) - delta) < 1e-15);
  const double smaller = 1 - (1 - delta) * (1 + std::exp(eps - 0.5)) / (1 + std::exp(eps));
  CHECK(std::abs(f.privacy_profile(eps - 0.5) - smaller) < 1e-15);
  CHECK(f.vertex_alpha().size() == 4);
}

TEST_CASE("lower convex envelope drops points above the hull", "[divergence][tradeoff]") {
  const std::vector<double> a = {0.0, 0.5, 0.25, 1.0, 0.75};
  const std::vector<double> b = {1.0, 0.6, 0.5, 0.0, 0.1};
  const auto f = dv::piecewise_linear_tradeoff::lower_convex_envelope(a, b);
  CHECK(f.vertex_alpha() == std::vector<double>{0.0, 0.25, 0.75, 1.0});
  CHECK(f.vertex_beta() == std::vector<double>{1.0, 0.5, 0.1, 0.0});
  CHECK(std::abs(f.beta(0.5) - 0.3) < 1e-15);
  // Left-continuous inverse: first α reaching β.
  CHECK(f.inverse(0.5) == 0.25);
  CHECK(std::abs(f.inverse(0.3) - 0.5) < 1e-15);
  CHECK(f.inverse(1.0) == 0.0);
}

TEST_CASE("envelope of G(mu) samples converges at second order, from the optimistic side",
          "[divergence][tradeoff]") {
  // Joining samples of a convex f by chords gives a curve g ≥ f, so g is (slightly) more
  // private: 0 ≤ δ_f(ε) − δ_g(ε) ≤ sup(g − f). Away from α = 0, 1 (where G(μ)″ blows up)
  // the chord gap is h²·f″/8: it must shrink by ≈ 4 when the grid is halved.
  const dv::gaussian_tradeoff g(1.0);
  const double eps = 1.0, exact = dv::gdp_delta(1.0, eps);
  double previous_gap = NAN;
  for (std::size_t n : {65, 129, 257, 513}) {
    const std::vector<double> a = dpkit::linspace(0.0, 1.0, n);
    std::vector<double> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = g.beta(a[i]);
    const auto f = dv::piecewise_linear_tradeoff::lower_convex_envelope(a, b);
    CHECK(f.vertex_alpha().size() == n);  // strictly convex: every sample is a vertex
    double gap = 0, interior_gap = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      const double mid = 0.5 * (a[i] + a[i + 1]);
      const double d = f.beta(mid) - g.beta(mid);
      CHECK(d >= -1e-16);
      gap = std::max(gap, d);
      if (mid > 0.1 && mid < 0.9) interior_gap = std::max(interior_gap, d);
    }
    const double profile_error = exact - f.privacy_profile(eps);
    CAPTURE(n, gap, interior_gap, profile_error);
    CHECK(profile_error >= 0);
    CHECK(profile_error <= 2 * gap);  // midpoints approximate the sup gap to O(h³)
    if (!std::isnan(previous_gap)) {
      const double order = std::log2(previous_gap / interior_gap);
      CAPTURE(order);
      CHECK(order > 1.9);
      CHECK(order < 2.1);
    }
    previous_gap = interior_gap;
  }
}

TEST_CASE("piecewise-linear tradeoff rejects invalid samples", "[divergence][tradeoff]") {
  const std::vector<double> a = {0.1, 1.0}, b = {0.9, 0.0};
  REQUIRE_THROWS_WITH(dv::piecewise_linear_tradeoff::lower_convex_envelope(a, b),
                      Contains("min(alpha) is 0.1, but must be 0"));
  const std::vector<double> a2 = {0.0, 1.0}, b2 = {0.0, 0.5};
  REQUIRE_THROWS_WITH(dv::piecewise_linear_tradeoff::lower_convex_envelope(a2, b2),
                      Contains("non-increasing"));
  const std::vector<double> a3 = {0.0, 1.0}, b3 = {1.0};
  REQUIRE_THROWS_AS(dv::piecewise_linear_tradeoff::lower_convex_envelope(a3, b3),
                    std::domain_error);
  REQUIRE_THROWS_AS(dv::piecewise_linear_tradeoff::from_epsilon_delta(-1.0, 0.1),
                    std::domain_error);
  REQUIRE_THROWS_AS(dv::tradeoff_epsilon(dv::gaussian_tradeoff(1.0), 0.0), std::domain_error);
}
