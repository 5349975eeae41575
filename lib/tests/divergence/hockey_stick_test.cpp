#include "dpkit/divergence/hockey_stick.hpp"

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dpkit/core/normal.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::test::relative_error;
namespace dv = dpkit::divergence;

namespace {
// ∫ (p − e^ε q)₊ directly: for equal variances p > e^ε q on one side of a threshold x*,
// where log p(x*) − log q(x*) = ε. Integrated numerically from the densities.
double hockey_stick_by_quadrature(double m1, double m2, double var, double eps) {
  const double s = std::sqrt(var);
  const double dm = m1 - m2;
  // log p − log q = (dm/var)·(x − (m1 + m2)/2).
  const double x_star = 0.5 * (m1 + m2) + eps * var / dm;
  auto integrand = [&](double x) {
    const double p = dpkit::normal_pdf((x - m1) / s) / s, q = dpkit::normal_pdf((x - m2) / s) / s;
    return std::max(p - std::exp(eps) * q, 0.0);
  };
  const double inf = std::numeric_limits<double>::infinity();
  using gk = boost::math::quadrature::gauss_kronrod<double, 61>;
  return dm > 0 ? gk::integrate(integrand, x_star, inf, 20, 1e-13)
                : gk::integrate(integrand, -inf, x_star, 20, 1e-13);
}
}  // namespace

TEST_CASE("univariate hockey-stick equals direct integration of the densities",
          "[divergence][hockey]") {
  for (double m1 : {0.4, 1.0, -2.0}) {
    for (double var : {0.25, 1.0, 4.0}) {
      for (double eps : {0.0, 0.5, 2.0}) {
        CAPTURE(m1, var, eps);
        const double h = dv::hockey_stick_divergence(dv::univariate_normal{m1, var},
                                                     dv::univariate_normal{0.0, var}, eps);
        CHECK(relative_error(h, hockey_stick_by_quadrature(m1, 0.0, var, eps)) < 1e-10);
      }
    }
  }
}

TEST_CASE("multivariate hockey-stick depends on the Mahalanobis distance only",
          "[divergence][hockey]") {
  Eigen::Matrix3d cov;
  cov << 2.0, 0.3, -0.2, 0.3, 1.0, 0.1, -0.2, 0.1, 0.5;
  const Eigen::Vector3d m1(0.3, -0.1, 0.4), m2(0.0, 0.2, 0.1);
  const Eigen::Vector3d d = m1 - m2;
  const double mahalanobis =
      std::sqrt(d.dot(cov.inverse() * d));  // explicit inverse: independent path
  for (double eps : {0.0, 0.3, 1.5}) {
    const double h = dv::hockey_stick_divergence(dv::multivariate_normal{m1, cov},
                                                 dv::multivariate_normal{m2, cov}, eps);
    CAPTURE(eps);
    CHECK(relative_error(h, hockey_stick_by_quadrature(mahalanobis, 0.0, 1.0, eps)) < 1e-10);
  }
}

TEST_CASE("hockey-stick rejects unequal covariances", "[divergence][hockey]") {
  REQUIRE_THROWS_WITH(
      dv::hockey_stick_divergence(dv::univariate_normal{0, 1}, dv::univariate_normal{0, 2}, 1.0),
      Contains("unequal variances are not supported"));
  dv::multivariate_normal a{Eigen::Vector2d(0, 0), Eigen::Matrix2d::Identity()};
  dv::multivariate_normal b{Eigen::Vector2d(0, 1), 2 * Eigen::Matrix2d::Identity()};
  REQUIRE_THROWS_AS(dv::hockey_stick_divergence(a, b, 1.0), std::domain_error);
  REQUIRE_THROWS_AS(dv::hockey_stick_divergence(a, a, NAN), std::domain_error);
}
