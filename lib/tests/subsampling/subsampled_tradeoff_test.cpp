#include "dpkit/subsampling/subsampled_tradeoff.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "support/check_accuracy.hpp"
#include "support/test_util.hpp"

using dpkit::test::relative_error;
namespace ss = dpkit::subsampling;
namespace dv = dpkit::divergence;

TEST_CASE("closed-form C_p(G(mu)) agrees with the general C_p construction", "[subsampling][cp]") {
  // BSA24 Def 4.7 evaluated on a grid: the construction (4001 points) reproduces the closed form to
  // ~1e-6.
  for (auto [mu, p] : {std::pair{1.5, 0.1}, std::pair{2.5, 0.25}, std::pair{1.0, 0.5}}) {
    const ss::cp_gaussian_tradeoff closed(mu, p);
    const auto general = ss::subsample(dv::gaussian_tradeoff(mu), p);
    double worst = 0;
    for (double a = 0; a <= 1.0; a += 0.001)
      worst = std::max(worst, std::abs(general.beta(a) - closed.beta(a)));
    CAPTURE(mu, p, worst);
    CHECK(worst < 1e-6);
  }
}

TEST_CASE("C_p(G(mu)) is a symmetric tradeoff function with a slope -1 middle piece",
          "[subsampling][cp]") {
  const double mu = 2.0, p = 0.2;
  const ss::cp_gaussian_tradeoff f(mu, p);
  const double a_star = dpkit::normal_cdf(-mu / 2);
  const double b_star = p * dpkit::normal_cdf(-mu / 2) + (1 - p) * dpkit::normal_cdf(mu / 2);
  // Middle piece: slope −1 between α* and β* (BSA24 §C.4.1).
  CHECK(std::abs((f.beta(b_star) - f.beta(a_star)) / (b_star - a_star) + 1) < 1e-12);
  double previous = 1;
  for (double a = 0.0; a <= 1.0; a += 0.01) {
    CAPTURE(a);
    const double b = f.beta(a);
    CHECK(b <= previous + 1e-15);
    CHECK(b <= 1 - a + 1e-15);
    CHECK(std::abs(f.beta(b) - a) < 1e-10);  // symmetric: C(C(α)) = α
    CHECK(std::abs(f.power(a) + b - 1) < 1e-15);
    previous = b;
  }
  // p = 1 gives G(μ); p = 0 gives Id.
  CHECK(std::abs(ss::cp_gaussian_tradeoff(mu, 1.0).beta(0.3) -
                 dv::gaussian_tradeoff(mu).beta(0.3)) < 1e-12);
  CHECK(std::abs(ss::cp_gaussian_tradeoff(mu, 0.0).beta(0.3) - 0.7) < 1e-15);
}

TEST_CASE("C_p(G(mu)) privacy profile: closed form equals primal-dual", "[subsampling][cp]") {
  const ss::cp_gaussian_tradeoff f(2.5, 0.25);
  for (double eps : {0.0, 0.2, 1.0, 3.0}) {
    CAPTURE(eps);
    CHECK(std::abs(f.privacy_profile(eps) - dv::primal_dual_profile(f, eps)) <
          1e-9 * f.privacy_profile(eps) + 1e-15);
  }
}

TEST_CASE("one-sided G(mu)_p and its inverse", "[subsampling][cp]") {
  const ss::gaussian_mixture_tradeoff g(1.5, 0.3);
  for (double a : {0.01, 0.2, 0.5, 0.9}) {
    CAPTURE(a);
    CHECK(std::abs(g.beta(g.inverse(a)) - a) < 1e-12);
    CHECK(std::abs(g.beta(a) - (0.3 * dv::gaussian_tradeoff(1.5).beta(a) + 0.7 * (1 - a))) < 1e-15);
  }
  REQUIRE_THROWS_AS(ss::gaussian_mixture_tradeoff(1.0, 1.5), std::domain_error);
  REQUIRE_THROWS_AS(ss::cp_gaussian_tradeoff(-1.0, 0.5), std::domain_error);
  REQUIRE_THROWS_AS(ss::subsample(dv::gaussian_tradeoff(1.0), 0.5, 2), std::domain_error);
}

TEST_CASE("C_p(G(mu)) matches the 40-digit reference", "[subsampling][cp][reference]") {
  dpkit::test::check_accuracy_case("cp_gaussian_tradeoff");
}
